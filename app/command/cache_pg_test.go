package command_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"clearvest/app/command"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/eventstore/memstore"
	"clearvest/eventstore/postgres"
)

// countingStore counts stream reads of the real store it wraps.
type countingStore struct {
	*postgres.Store
	reads atomic.Int64
}

func (s *countingStore) ReadStream(ctx context.Context, stream eventstore.StreamID, from int64, limit int) ([]eventstore.Envelope, error) {
	s.reads.Add(1)
	return s.Store.ReadStream(ctx, stream, from, limit)
}

// One writer per stream, the common case, reads its stream once: later commands decide on the
// cached state, and their appends' expected versions prove it current.
func TestCachedCommandsDoNotReadTheirStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	for _, tc := range []struct {
		name  string
		opts  []command.Option
		reads int64
	}{
		{"cache", nil, 1},
		{"no cache", []command.Option{command.WithCache(0, 0)}, 10},
	} {
		store := &countingStore{Store: postgres.New(pool, postgres.WithLogger(quiet))}
		t.Cleanup(store.Store.Close)
		r := newRunner(store, tc.opts...)
		stream := counterStream(tc.name)
		for range 10 {
			if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
				t.Fatal(err)
			}
		}
		if got := store.reads.Load(); got != tc.reads {
			t.Errorf("%s: 10 commands read the stream %d times, want %d", tc.name, got, tc.reads)
		}
		c, err := command.Load(ctx, r, stream, NewCounter)
		if err != nil || c.count != 10 || c.Version() != 10 {
			t.Errorf("%s: Load = count %d at version %d, %v", tc.name, c.count, c.Version(), err)
		}
	}
}

var errTooEarly = domainerr.New(domainerr.RuleBroken, "Not yet")

// Two processes, each with its own cache, write one stream. Whatever a command answers rests on
// the stream as it is, not on what one process last saw: an append from an old state conflicts
// and is decided again, and a refusal or a no-op is checked against the stream's tail first.
func TestAStaleCacheNeverDecidesTheAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	a, store := pgRunner(t, pool, command.WithBackoff(0, 0))
	b, _ := pgRunner(t, pool)
	stream := counterStream("shared")
	exec := func(r *command.Runner, decide func(*Counter) error) (command.Result, error) {
		return command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, decide)
	}

	if _, err := exec(a, increment(1)); err != nil { // a caches count 1
		t.Fatal(err)
	}
	if _, err := exec(b, increment(1)); err != nil { // count 2, unseen by a
		t.Fatal(err)
	}
	var seen []int
	res, err := exec(a, func(c *Counter) error {
		seen = append(seen, c.count)
		return c.Increment(c.count) // doubles what it sees
	})
	if err != nil {
		t.Fatal(err)
	}
	stored := readStream(t, store, stream)
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 2 || string(stored[len(stored)-1].Data) != `{"by": 2}` || res.Version != 3 {
		t.Fatalf("decide saw %v and stored %s at version %d; want a retry that doubles the current count", seen, stored[len(stored)-1].Data, res.Version)
	}

	// count is 4 now, cached by a; b takes it to 1000.
	if _, err := exec(b, increment(996)); err != nil {
		t.Fatal(err)
	}
	refuseEarly := func(c *Counter) error {
		if c.count < 10 {
			return errTooEarly
		}
		return nil
	}
	if _, err := exec(a, refuseEarly); err != nil {
		t.Errorf("a refused on its cached count: %v", err)
	}
	if _, err := exec(b, increment(1)); !errors.Is(err, errLimit) {
		t.Errorf("err = %v, want errLimit", err)
	}
	if _, err := exec(b, increment(0)); !errors.Is(err, errNotPositive) {
		t.Errorf("err = %v, want errNotPositive", err)
	}

	// a read in a sees b's writes at once.
	c, err := command.Load(ctx, a, stream, NewCounter)
	if err != nil || c.count != 1000 {
		t.Errorf("Load in a = count %d, %v; want 1000", c.count, err)
	}
}

// gappyStore leaves version 2 out of every stream read, as a broken store would.
type gappyStore struct{ *memstore.Store }

func (s gappyStore) ReadStream(ctx context.Context, stream eventstore.StreamID, from int64, limit int) ([]eventstore.Envelope, error) {
	envs, err := s.Store.ReadStream(ctx, stream, from, limit)
	var out []eventstore.Envelope
	for _, e := range envs {
		if e.Version != 2 {
			out = append(out, e)
		}
	}
	return out, err
}

func TestAGapInAStreamFailsTheLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := memstore.New()
	stream := counterStream("gap")
	for range 3 {
		if _, err := command.Execute(ctx, newRunner(mem), stream, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
			t.Fatal(err)
		}
	}
	r := newRunner(gappyStore{mem})
	_, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(*Counter) error {
		t.Error("decide called on a stream with a hole in it")
		return nil
	})
	if err == nil {
		t.Fatal("a stream missing version 2 loaded")
	}
	if _, err := command.Load(ctx, r, stream, NewCounter); err == nil {
		t.Fatal("Load of a stream missing version 2 succeeded")
	}
}

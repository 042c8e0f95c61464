package command_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"clearvest/app/command"
	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SnapCounter is Counter with snapshots; it also remembers the order of its increments, so a
// state restored wrongly shows.
type SnapCounter struct {
	Counter
	trail string
}

func NewSnapCounter() *SnapCounter { return &SnapCounter{} }

func (c *SnapCounter) Increment(by int) error {
	if by < 1 {
		return errNotPositive
	}
	aggregate.Raise(c, Incremented{By: by})
	return nil
}

func (c *SnapCounter) Apply(e aggregate.Event) {
	c.Counter.Apply(e)
	if e, ok := e.(Incremented); ok {
		c.trail += strconv.Itoa(e.By)
	}
}

func (c *SnapCounter) SnapshotKind() string { return "counter/1" }

// MarshalState refuses pending changes, as the contract (and the account aggregate) does.
func (c *SnapCounter) MarshalState() ([]byte, error) {
	if len(c.Changes()) > 0 {
		return nil, errors.New("counter: a snapshot of unsaved changes")
	}
	return fmt.Appendf(nil, "%d %s", c.count, c.trail), nil
}

func (c *SnapCounter) UnmarshalState(b []byte) error {
	if _, err := fmt.Sscanf(string(b), "%d %s", &c.count, &c.trail); err != nil {
		return fmt.Errorf("counter state %q: %w", b, err)
	}
	return nil
}

func snapCounters(every int) command.Option {
	return command.WithSnapshots(every, map[string]func(eventstore.StreamID) command.Snapshotter{
		"counter": func(eventstore.StreamID) command.Snapshotter { return NewSnapCounter() },
	})
}

// eventCountingStore counts the events a runner reads, through either read.
type eventCountingStore struct {
	*postgres.Store
	events atomic.Int64
}

func (s *eventCountingStore) ReadStream(ctx context.Context, stream eventstore.StreamID, from int64, limit int) ([]eventstore.Envelope, error) {
	envs, err := s.Store.ReadStream(ctx, stream, from, limit)
	s.events.Add(int64(len(envs)))
	return envs, err
}

func (s *eventCountingStore) ReadFromSnapshot(ctx context.Context, stream eventstore.StreamID, kind string, limit int) (*eventstore.Snapshot, []eventstore.Envelope, error) {
	snap, envs, err := s.Store.ReadFromSnapshot(ctx, stream, kind, limit)
	s.events.Add(int64(len(envs)))
	return snap, envs, err
}

// savedSnapshot is the version of the stream's snapshot once the runner's saves are written, 0
// for none.
func savedSnapshot(t *testing.T, r *command.Runner, pool *pgxpool.Pool, stream eventstore.StreamID) int64 {
	t.Helper()
	r.SnapshotsSaved()
	var version int64
	err := pool.QueryRow(context.Background(), `SELECT version FROM snapshots WHERE stream_id = $1`, string(stream)).Scan(&version)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	return version
}

func keyed(n int) eventstore.Metadata {
	return eventstore.Metadata{IdempotencyKey: fmt.Sprintf("key-%d", n), RequestHash: fmt.Sprintf("hash-%d", n)}
}

// A long stream loads from its snapshot and the events after it, into the state a full replay
// gives; a request retried with a key from before the snapshot is still answered with its
// first result.
func TestALongStreamLoadsFromItsSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	writer, _ := pgRunner(t, pool, snapCounters(10))
	stream := counterStream("long")
	for i := 1; i <= 35; i++ {
		if _, err := command.Submit(ctx, writer, stream, NewSnapCounter, keyed(i), func(c *SnapCounter, _ *command.Writes) error {
			return c.Increment(1 + i%3)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if v := savedSnapshot(t, writer, pool, stream); v != 30 {
		t.Fatalf("the latest snapshot is at version %d, want 30: one per 10 events", v)
	}

	full, _ := pgRunner(t, pool) // no snapshots: every event replayed
	want, err := command.Load(ctx, full, stream, NewSnapCounter)
	if err != nil {
		t.Fatal(err)
	}

	store := &eventCountingStore{Store: postgres.New(pool, postgres.WithLogger(quiet))}
	t.Cleanup(store.Store.Close)
	cold := newRunner(store, snapCounters(10))
	got, err := command.Load(ctx, cold, stream, NewSnapCounter)
	if err != nil {
		t.Fatal(err)
	}
	if got.count != want.count || got.trail != want.trail || got.Version() != 35 || got.Version() != want.Version() {
		t.Fatalf("from the snapshot: %d %q at %d; replayed: %d %q at %d", got.count, got.trail, got.Version(), want.count, want.trail, want.Version())
	}
	if n := store.events.Load(); n != 5 {
		t.Errorf("loading read %d events, want the 5 after the snapshot", n)
	}

	// Key 3 was used before the snapshot: the same request gets its first result, another
	// request with it is refused, and neither appends.
	res, err := command.Submit(ctx, cold, stream, NewSnapCounter, keyed(3), func(c *SnapCounter, _ *command.Writes) error {
		return c.Increment(1)
	})
	if err != nil || !res.IdempotentReplay || res.Version != 3 || len(res.Raised) != 1 || res.Raised[0].(Incremented).By != 1+3%3 {
		t.Fatalf("retry of key 3 = %+v, %v; want its first result, version 3", res, err)
	}
	reused := keyed(3)
	reused.RequestHash = "another"
	if _, err := command.Submit(ctx, cold, stream, NewSnapCounter, reused, func(c *SnapCounter, _ *command.Writes) error {
		return c.Increment(1)
	}); !errors.Is(err, command.ErrIdempotencyKeyReused) {
		t.Fatalf("key 3 with another request: %v", err)
	}
	// Key 33, after the snapshot, is in the loaded history as before.
	if res, err := command.Submit(ctx, cold, stream, NewSnapCounter, keyed(33), func(c *SnapCounter, _ *command.Writes) error {
		return c.Increment(1)
	}); err != nil || !res.IdempotentReplay || res.Version != 33 {
		t.Fatalf("retry of key 33 = %+v, %v", res, err)
	}
	res, err = command.Submit(ctx, cold, stream, NewSnapCounter, keyed(36), func(c *SnapCounter, _ *command.Writes) error {
		return c.Increment(2)
	})
	if err != nil || res.IdempotentReplay || res.Version != 36 {
		t.Fatalf("a new request = %+v, %v", res, err)
	}
	again, err := command.Load(ctx, full, stream, NewSnapCounter)
	if err != nil || again.count != want.count+2 || again.trail != want.trail+"2" {
		t.Fatalf("after the new request, a full replay gives %d %q (%v)", again.count, again.trail, err)
	}
}

// heldSnapshots holds every snapshot's save until released.
type heldSnapshots struct {
	*postgres.Store
	release chan struct{}
}

func (s *heldSnapshots) SaveSnapshot(ctx context.Context, snap eventstore.Snapshot) error {
	<-s.release
	return s.Store.SaveSnapshot(ctx, snap)
}

// The command that takes a stream past the interval answers without waiting for its snapshot's
// save, which SnapshotsSaved waits for.
func TestASnapshotIsSavedOffTheCommandsPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	store := &heldSnapshots{Store: postgres.New(pool, postgres.WithLogger(quiet)), release: make(chan struct{})}
	t.Cleanup(store.Store.Close)
	r := newRunner(store, snapCounters(5))
	stream := counterStream("held")
	done := make(chan error, 1)
	go func() {
		for range 5 {
			if _, err := command.Submit(ctx, r, stream, NewSnapCounter, eventstore.Metadata{}, func(c *SnapCounter, _ *command.Writes) error {
				return c.Increment(1)
			}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		close(store.release)
		t.Fatal("the fifth command waited for its snapshot's save")
	}
	close(store.release)
	if v := savedSnapshot(t, r, pool, stream); v != 5 {
		t.Fatalf("snapshot at version %d once saved, want 5", v)
	}
}

// A snapshot is only ever a shortcut: one of another kind, or one that does not restore, is
// read past, and the stream is read in full.
func TestAnUnusableSnapshotIsReadPast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	writer, store := pgRunner(t, pool, snapCounters(5))
	for _, tc := range []struct {
		name string
		snap func(eventstore.StreamID) eventstore.Snapshot
	}{
		{"another kind", func(s eventstore.StreamID) eventstore.Snapshot {
			return eventstore.Snapshot{Stream: s, Version: 6, Position: 1, Kind: "counter/0", State: []byte("\x00999 9")}
		}},
		{"damaged state", func(s eventstore.StreamID) eventstore.Snapshot {
			return eventstore.Snapshot{Stream: s, Version: 6, Position: 1, Kind: "counter/1", State: []byte("\x00not a counter")}
		}},
		{"damaged keys", func(s eventstore.StreamID) eventstore.Snapshot {
			return eventstore.Snapshot{Stream: s, Version: 6, Position: 1, Kind: "counter/1", State: []byte("\x00999 9"), Keys: []byte{1, 2, 3}}
		}},
		{"kept in an unknown way", func(s eventstore.StreamID) eventstore.Snapshot {
			return eventstore.Snapshot{Stream: s, Version: 6, Position: 1, Kind: "counter/1", State: []byte("\x09999 9")}
		}},
	} {
		stream := counterStream(tc.name)
		for range 7 {
			if _, err := command.Execute(ctx, writer, stream, NewSnapCounter, eventstore.Metadata{}, func(c *SnapCounter) error { return c.Increment(2) }); err != nil {
				t.Fatal(err)
			}
		}
		writer.SnapshotsSaved()
		if _, err := pool.Exec(ctx, `DELETE FROM snapshots WHERE stream_id = $1`, string(stream)); err != nil {
			t.Fatal(err)
		}
		if err := store.SaveSnapshot(ctx, tc.snap(stream)); err != nil {
			t.Fatal(err)
		}
		cold, _ := pgRunner(t, pool, snapCounters(5))
		got, err := command.Load(ctx, cold, stream, NewSnapCounter)
		if err != nil || got.count != 14 || got.trail != "2222222" || got.Version() != 7 {
			t.Errorf("%s: loaded %d %q at %d (%v), want the 7 events' 14", tc.name, got.count, got.trail, got.Version(), err)
		}
	}
}

// A snapshot is saved only past a later one of its kind: two processes saving at once keep
// the latest.
func TestSaveSnapshotKeepsTheLatest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, store := pgRunner(t, pgPool(t))
	stream := counterStream("latest")
	for _, v := range []int64{20, 10} {
		if err := store.SaveSnapshot(ctx, eventstore.Snapshot{Stream: stream, Version: v, Position: v, Kind: "k", State: []byte(strconv.FormatInt(v, 10))}); err != nil {
			t.Fatal(err)
		}
	}
	snap, _, err := store.ReadFromSnapshot(ctx, stream, "k", 10)
	if err != nil || snap == nil || snap.Version != 20 || string(snap.State) != "20" {
		t.Fatalf("kept %+v (%v), want version 20", snap, err)
	}
	if snap, _, err := store.ReadFromSnapshot(ctx, stream, "other", 10); err != nil || snap != nil {
		t.Fatalf("a snapshot of another kind was read: %+v, %v", snap, err)
	}
	if err := store.SaveSnapshot(ctx, eventstore.Snapshot{Stream: stream, Version: 0, Kind: "k", State: []byte("x")}); err == nil {
		t.Error("a snapshot at version 0 was saved")
	}
}

package command_test

import (
	"context"
	"errors"
	"testing"

	"clearvest/app/command"
	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/eventstore/memstore"
)

// A stream's commands take turns, so the runner keeps the aggregate the last one left and lends
// it to the next instead of replaying the stream into a new one: a command costs the same on a
// stream of any length.
func TestAStreamsNextCommandUsesTheAggregateTheLastOneLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		opts  []command.Option
		built int
	}{
		{"cache", nil, 1},
		{"no cache", []command.Option{command.WithCache(0, 0)}, 10},
	} {
		r := newRunner(memstore.New(), tc.opts...)
		stream := counterStream(tc.name)
		built := 0
		newCounter := func() *Counter { built++; return NewCounter() }
		for range 10 {
			if _, err := command.Execute(ctx, r, stream, newCounter, eventstore.Metadata{}, increment(1)); err != nil {
				t.Fatal(err)
			}
		}
		if built != tc.built {
			t.Errorf("%s: 10 commands built %d aggregates, want %d", tc.name, built, tc.built)
		}
		c, err := command.Load(ctx, r, stream, NewCounter)
		if err != nil || c.count != 10 || c.Version() != 10 {
			t.Errorf("%s: Load = count %d at version %d, %v; want 10 at 10", tc.name, c.count, c.Version(), err)
		}
	}
}

// A decision that raised events and then failed leaves them nowhere: the next command decides on
// the stream as stored, not on the failed one's state.
func TestARefusedDecisionLeavesNoStateBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(memstore.New())
	stream := counterStream("refused")
	if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
		t.Fatal(err)
	}
	_, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter) error {
		aggregate.Raise(c, Incremented{By: 500})
		return errLimit
	})
	if !errors.Is(err, errLimit) {
		t.Fatalf("err = %v, want the decision's", err)
	}
	var seen int
	if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter) error {
		seen = c.count
		return c.Increment(1)
	}); err != nil {
		t.Fatal(err)
	}
	if seen != 1 {
		t.Fatalf("the next command saw count %d, want 1: the refused decision's event leaked into its state", seen)
	}
}

// Read lends the aggregate the last command left, and takes it back: reading a stream and then
// deciding on it builds nothing. What a reader raises on it is thrown away with it, so the next
// command decides on the stream as stored.
func TestReadLendsTheBuiltAggregateAndTakesItBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(memstore.New())
	stream := counterStream("read")
	built := 0
	newCounter := func() *Counter { built++; return NewCounter() }
	if _, err := command.Execute(ctx, r, stream, newCounter, eventstore.Metadata{}, increment(3)); err != nil {
		t.Fatal(err)
	}
	var seen []int
	read := func(c *Counter) error { seen = append(seen, c.count); return nil }
	for range 3 {
		if err := command.Read(ctx, r, stream, newCounter, read); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := command.Execute(ctx, r, stream, newCounter, eventstore.Metadata{}, increment(1)); err != nil {
		t.Fatal(err)
	}
	if built != 1 || len(seen) != 3 || seen[0] != 3 || seen[2] != 3 {
		t.Errorf("three reads and two commands built %d aggregates and read %v; want 1 and 3 each time", built, seen)
	}

	// A reader that raises: its state is not the stream's, and is not lent again.
	errRead := errors.New("read failed")
	err := command.Read(ctx, r, stream, newCounter, func(c *Counter) error {
		aggregate.Raise(c, Incremented{By: 500})
		return errRead
	})
	if !errors.Is(err, errRead) {
		t.Fatalf("Read = %v, want f's error", err)
	}
	if err := command.Read(ctx, r, stream, newCounter, read); err != nil {
		t.Fatal(err)
	}
	if got := seen[len(seen)-1]; got != 4 || built != 2 {
		t.Errorf("after a reader raised, the next read saw %d with %d aggregates built; want 4 and a second built", got, built)
	}
}

package projections

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
)

// counting is a reactor that records every event it is given, with no uniqueness, so an event
// given twice shows up twice; failAt makes it fail once at one position.
type counting struct {
	mu     sync.Mutex
	seen   map[int64]int
	failAt int64
}

func (*counting) Name() string { return "counting" }

func (c *counting) React(_ context.Context, e eventstore.Envelope) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.Position == c.failAt {
		c.failAt = 0
		return errors.New("the database went away")
	}
	c.seen[e.Position]++
	return nil
}

func (c *counting) times() map[int64]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[int64]int, len(c.seen))
	for k, v := range c.seen {
		out[k] = v
	}
	return out
}

func (f fixture) reactorRunner(t *testing.T, r Reactor) *ReactorRunner {
	t.Helper()
	rr, err := NewReactorRunner(f.pool, f.store, r, WithBatchSize(10), WithIdlePoll(20*time.Millisecond), WithRetryDelay(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

func TestReactorPassesEveryEventOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	last := appendEvents(t, f.store, 35)
	c := &counting{seen: map[int64]int{}}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		rr := f.reactorRunner(t, c)
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = rr.CatchUp(context.Background()) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	seen := c.times()
	if len(seen) != 35 {
		t.Fatalf("reacted to %d events, want 35", len(seen))
	}
	for pos, n := range seen {
		if n != 1 {
			t.Errorf("position %d given %d times", pos, n)
		}
	}
	if pos, err := ReactorPosition(context.Background(), f.pool, c.Name()); err != nil || pos != last {
		t.Fatalf("checkpoint %d, %v; want %d", pos, err, last)
	}
}

func TestReactorGivesAFailedBatchAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	appendEvents(t, f.store, 5)
	envs, err := f.store.ReadAll(context.Background(), 0, 5)
	if err != nil || len(envs) != 5 {
		t.Fatalf("read: %v (%d events)", err, len(envs))
	}
	c := &counting{seen: map[int64]int{}, failAt: envs[3].Position}
	rr := f.reactorRunner(t, c)
	if err := rr.CatchUp(context.Background()); err == nil {
		t.Fatal("the failing batch reported no error")
	}
	if pos, _ := ReactorPosition(context.Background(), f.pool, c.Name()); pos != 0 {
		t.Fatalf("checkpoint moved to %d past a failed batch", pos)
	}
	// The batch is given again from its start: events before the failure twice (their commands
	// must refuse the repeat), the rest once.
	if err := rr.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	seen := c.times()
	for i, e := range envs {
		want := 1
		if i < 3 {
			want = 2
		}
		if seen[e.Position] != want {
			t.Errorf("event %d given %d times, want %d", i, seen[e.Position], want)
		}
	}
	if pos, _ := ReactorPosition(context.Background(), f.pool, c.Name()); pos != envs[4].Position {
		t.Fatalf("checkpoint %d, want %d", pos, envs[4].Position)
	}
}

func TestReactorRunWakesOnAppends(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := &counting{seen: map[int64]int{}}
	rr := f.reactorRunner(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rr.Run(ctx) }()
	last := appendEvents(t, f.store, 12)
	// Poll the checkpoint, bounded: the reactor runs on its own goroutine.
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for pos := int64(0); pos != last; {
		select {
		case <-deadline:
			t.Fatalf("the running reactor is at %d, not at the last event %d, after 10 s", pos, last)
		case <-tick.C:
		}
		var err error
		if pos, err = ReactorPosition(context.Background(), f.pool, c.Name()); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
}

func TestReactorStatusShowsHowFarBehindTheLogEachReactorIs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rr := f.reactorRunner(t, &counting{seen: map[int64]int{}})
	if got, err := ReactorStatuses(ctx, f.pool, f.store); err != nil || len(got) != 0 {
		t.Fatalf("before any batch: %+v, %v; want no reactors", got, err)
	}
	passed := appendEvents(t, f.store, 25)
	if err := rr.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	head := appendEvents(t, f.store, 7)
	eventstoretest.WaitVisible(t, f.store, head)
	got, err := ReactorStatuses(ctx, f.pool, f.store)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "counting" || got[0].Position != passed || got[0].Head != head || got[0].LagEvents != 7 || got[0].LagSeconds < 0 {
		t.Fatalf("status = %+v; want counting at %d of %d, 7 events behind", got, passed, head)
	}
}

package projections

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore/eventstoretest"
)

// checkpointReads counts the queries that read every projection's checkpoint at once: what a
// read-your-writes wait costs the database.
type checkpointReads struct{ n atomic.Int64 }

func (c *checkpointReads) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, "FROM projection_checkpoints WHERE name = ANY") {
		c.n.Add(1)
	}
	return ctx
}

func (c *checkpointReads) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// tracedRunner is a runner on its own pool, whose checkpoint reads are counted.
func (f fixture) tracedRunner(t *testing.T, opts ...Option) (*Runner, *checkpointReads) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(f.url)
	if err != nil {
		t.Fatal(err)
	}
	reads := &checkpointReads{}
	cfg.ConnConfig.Tracer = reads
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	r, err := NewRunner(pool, f.store, []Projection{applied{}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, reads
}

// waiting is how many waits the poller is serving.
func (r *Runner) waiting() int {
	r.waits.mu.Lock()
	defer r.waits.mu.Unlock()
	return len(r.waits.pending)
}

// TestManyWaitersShareOnePoller: N requests waiting for the read models cost the database the
// poller's rounds, not N loops of queries.
func TestManyWaitersShareOnePoller(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r, reads := f.tracedRunner(t, WithWaitTimeout(time.Minute))
	// Rounds come only from progress in this process, never from the clock, so the count below
	// depends on nothing but what the test does.
	r.waitPoll = time.Hour
	last := appendEvents(t, f.store, 20)
	eventstoretest.WaitVisible(t, f.store, last)

	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() { errs <- r.WaitFor(context.Background(), last) })
	}
	eventually(t, "every request waits", func() (bool, string) { return r.waiting() == n, fmt.Sprintf("%d waiting", r.waiting()) })
	if err := r.CatchUp(context.Background()); err != nil { // one batch: one progress signal
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a waiter failed: %v", err)
		}
	}
	// The round that started the poller, and the one the catch-up woke.
	if got := reads.n.Load(); got > 2 {
		t.Fatalf("%d waiters read the checkpoints %d times, want at most 2 (one poller)", n, got)
	}
	// A position already seen applied is answered without a query.
	before := reads.n.Load()
	if err := r.WaitFor(context.Background(), last); err != nil {
		t.Fatal(err)
	}
	if reads.n.Load() != before {
		t.Error("waiting for a position already known to be applied read the checkpoints again")
	}
}

// TestWaitForAPositionBeyondTheHeadWaitsForTheHead: a client may send any position; one the log
// has not reached costs a wait for the head at most, not the whole timeout.
func TestWaitForAPositionBeyondTheHeadWaitsForTheHead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r, _ := f.tracedRunner(t, WithWaitTimeout(time.Minute))
	r.waitPoll = time.Hour
	last := appendEvents(t, f.store, 5)
	eventstoretest.WaitVisible(t, f.store, last)

	done := make(chan error, 1)
	go func() { done <- r.WaitFor(context.Background(), math.MaxInt64) }()
	eventually(t, "the request waits", func() (bool, string) { return r.waiting() == 1, fmt.Sprintf("%d waiting", r.waiting()) })
	select {
	case err := <-done:
		t.Fatalf("answered before the read models reached the head: %v", err)
	default:
	}
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("WaitFor(the largest position) once the head is applied = %v, want nil", err)
	}
	// Caught up: a huge position is answered by the round its wait starts.
	if err := r.WaitFor(context.Background(), math.MaxInt64); err != nil {
		t.Fatalf("WaitFor(the largest position) when caught up = %v", err)
	}
	// A read replica serving that read needs to have replayed the head, not the position.
	if got := r.ReplicaTarget(math.MaxInt64); got < last || got == math.MaxInt64 {
		t.Errorf("ReplicaTarget(the largest position) = %d, want the head %d or the checkpoint past it", got, last)
	}
	if got := r.ReplicaTarget(last); got != last {
		t.Errorf("ReplicaTarget(%d) = %d, want the position itself", last, got)
	}
	if applied, err := r.AppliedOn(context.Background(), r.pool); err != nil || applied < last {
		t.Errorf("AppliedOn = %d, %v; want at least %d", applied, err, last)
	}
}

package projections

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// defaultWaitPoll is how often the poller reads the checkpoints while someone waits, for progress
// made by other processes; progress in this process wakes it at once.
const defaultWaitPoll = 25 * time.Millisecond

// waits serves every read-your-writes wait of a Runner from one poller goroutine, which runs only
// while someone waits: each round reads the lowest checkpoint and the log's head once, however
// many requests are waiting, so a burst of waiting requests costs the database nothing more.
type waits struct {
	mu      sync.Mutex
	pending map[*waiter]struct{}
	polling bool
	round   int64 // rounds started so far
	// reached is the lowest checkpoint a round has seen. Checkpoints only move forward, so a
	// position up to it needs no wait and no query.
	reached int64
}

type waiter struct {
	position int64
	// clamped: position has been lowered to the log's head, by the first round that started
	// after the waiter arrived. An earlier round's head may predate the client's own write.
	clamped bool
	after   int64 // the round number current when the waiter arrived
	err     error
	done    chan struct{}
}

// WaitFor blocks until every projection has applied the event at position (read-your-writes),
// or the wait timeout passes. A position beyond the log's head waits for the head only: a client
// cannot make a request wait for events that do not exist. Checkpoints are read from the
// database, so it works whichever process runs the projections.
func (r *Runner) WaitFor(ctx context.Context, position int64) error {
	if position <= 0 || len(r.projections) == 0 {
		return nil
	}
	w := r.addWaiter(position)
	if w == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.waitTimeout)
	defer cancel()
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
	}
	r.waits.mu.Lock()
	delete(r.waits.pending, w)
	r.waits.mu.Unlock()
	select {
	case <-w.done: // settled at the same moment
		return w.err
	default:
		return ErrWaitTimeout
	}
}

// addWaiter registers a wait and starts the poller if none runs; nil means the position is
// known to be applied already.
func (r *Runner) addWaiter(position int64) *waiter {
	ws := &r.waits
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if position <= ws.reached {
		return nil
	}
	w := &waiter{position: position, after: ws.round, done: make(chan struct{})}
	if ws.pending == nil {
		ws.pending = map[*waiter]struct{}{}
	}
	ws.pending[w] = struct{}{}
	if !ws.polling {
		ws.polling = true
		go r.pollWaits()
	}
	return w
}

// pollWaits is the poller: a round, then sleep until progress in this process or the next tick,
// until nobody waits any more.
func (r *Runner) pollWaits() {
	tick := time.NewTicker(r.waitPoll)
	defer tick.Stop()
	names := r.Names()
	for {
		wake := r.progress.Wait()
		r.waits.mu.Lock()
		r.waits.round++
		round := r.waits.round
		r.waits.mu.Unlock()

		var rd reading
		ctx, cancel := context.WithTimeout(context.Background(), r.waitTimeout)
		err := r.pool.QueryRow(ctx, `SELECT
			(SELECT coalesce(min(position), 0) FROM projection_checkpoints WHERE name = ANY($1)),
			(SELECT coalesce(max(position), 0) FROM events),
			coalesce(array_agg(c.name ORDER BY c.name), '{}'), coalesce(array_agg(c.position ORDER BY c.name), '{}')
			FROM projection_checkpoints c JOIN projection_failures f ON f.name = c.name AND f.retry_requested_at IS NULL
			WHERE c.name = ANY($1)`, names).Scan(&rd.lowest, &rd.head, &rd.parked, &rd.parkedAt)
		cancel()
		// A reading that takes the whole wait timeout is a wait that timed out, whichever of the
		// two deadlines a waiter notices first; only other errors are the database's own.
		if errors.Is(err, context.DeadlineExceeded) {
			err = ErrWaitTimeout
		}
		if !r.settle(round, rd, err) {
			return
		}
		select {
		case <-wake:
		case <-tick.C:
		}
	}
}

// reading is what one round of the poller learns.
type reading struct {
	lowest, head int64
	// parked names the projections parked at a failed event, and parkedAt their checkpoints.
	parked   []string
	parkedAt []int64
}

// parkedBefore returns the parked projections that have not applied position: they will not
// get there without an operator.
func (rd reading) parkedBefore(position int64) []string {
	var out []string
	for i, at := range rd.parkedAt {
		if at < position {
			out = append(out, rd.parked[i])
		}
	}
	return out
}

// settle releases the waiters a round's reading satisfies and reports whether any are left;
// when none are, the poller stops. A failed reading fails every waiter, as a wait of its own
// would have, and a waiter behind a parked projection fails at once with ErrParked instead of
// holding its request for the whole timeout.
func (r *Runner) settle(round int64, rd reading, err error) bool {
	ws := &r.waits
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if err == nil {
		ws.reached = max(ws.reached, rd.lowest)
	}
	for w := range ws.pending {
		if err == nil && !w.clamped && round > w.after {
			w.position, w.clamped = min(w.position, rd.head), true
		}
		switch parked := rd.parkedBefore(w.position); {
		case err != nil:
			w.err = err
		case w.position <= ws.reached:
		case len(parked) > 0:
			w.err = fmt.Errorf("%w: %s", ErrParked, strings.Join(parked, ", "))
		default:
			continue
		}
		delete(ws.pending, w)
		close(w.done)
	}
	if len(ws.pending) == 0 {
		ws.polling = false
		return false
	}
	return true
}

// Reached is the lowest checkpoint a wait has seen on this runner's database: every read model
// had applied the log up to it. After a successful WaitFor(position) it is at least position,
// or the log's head when position was beyond it.
func (r *Runner) Reached() int64 {
	r.waits.mu.Lock()
	defer r.waits.mu.Unlock()
	return r.waits.reached
}

// ReplicaTarget is what a read replica must have replayed to serve a read positioned at
// position, once WaitFor(position) has succeeded: position itself, or the head the wait was
// bounded by when position was beyond it.
func (r *Runner) ReplicaTarget(position int64) int64 {
	if len(r.projections) == 0 {
		return 0
	}
	return min(position, r.Reached())
}

// AppliedOn reads the lowest checkpoint of this runner's projections in db: on a read replica,
// how far replay has brought its read models. It reads, and never writes, so a standby can
// answer it.
func (r *Runner) AppliedOn(ctx context.Context, db rowQuerier) (int64, error) {
	var lowest int64
	err := db.QueryRow(ctx, `SELECT coalesce(min(position), 0) FROM projection_checkpoints WHERE name = ANY($1)`, r.Names()).Scan(&lowest)
	return lowest, err
}

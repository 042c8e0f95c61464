package projections

import (
	"context"
	"time"

	"clearvest/eventstore/postgres"
)

// wakeups is how a runner's loop sleeps between batches: until the store signals an append,
// and under load until the end of a coalescing window. Windows are slots of the same length on
// the clock for every runner of the process, so the projections and reactors woken by the same
// appends step together and share one read of the log (feed).
type wakeups struct {
	signal *postgres.Signal
	window time.Duration

	next  <-chan struct{} // the signal the next sleep waits on
	since time.Time       // when next was taken
	armed bool            // next was taken before a coalescing wait
}

// arm takes the signal the next sleep will wait on, unless a coalescing wait took it already, and
// returns when it was taken: the batch that follows must include every event visible then, or an
// append signalled before it would not wake the sleep after it.
func (w *wakeups) arm() time.Time {
	if !w.armed {
		w.next, w.since = w.signal.Wait(), time.Now()
	}
	w.armed = false
	return w.since
}

// coalesce is called once the signal fired. When the batch that began at began passed events
// (the runner is under load) and its window has not ended, it waits for the window's end, having
// taken the next signal first: every runner stepping at the window's end can then be served by
// the first one's read. It returns false if ctx ended the wait.
func (w *wakeups) coalesce(ctx context.Context, began time.Time, passed int) bool {
	if passed == 0 || time.Since(began) >= w.window {
		return true
	}
	w.next, w.since, w.armed = w.signal.Wait(), time.Now(), true
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(began.Truncate(w.window).Add(w.window))):
		return true
	}
}

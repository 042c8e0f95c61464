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

// coalesce is called once the signal fired, after a batch that began at began and ended at
// ended. Under load (the batch passed events) it waits for the end of a window, having taken the
// next signal first: every runner stepping at the window's end can then be served by the first
// one's read. It returns false if ctx ended the wait.
func (w *wakeups) coalesce(ctx context.Context, began, ended time.Time, passed int) bool {
	wait := w.wait(time.Now(), began, ended, passed)
	if wait <= 0 {
		return true
	}
	w.next, w.since, w.armed = w.signal.Wait(), time.Now(), true
	select {
	case <-ctx.Done():
		return false
	case <-time.After(wait):
		return true
	}
}

// wait is how long a runner woken at now waits before its next batch. Nothing after a quiet
// spell: an empty last batch, or one that ended a window or more ago. Otherwise until the end of
// the window the last batch began in; and when that has passed already (the batch took longer
// than a window, as it does on a busy machine), until the end of the window now is in, rather than
// at once: a runner stepping off the windows' boundaries would read the log on its own, and
// with a dozen runners those reads (each a visibility bound over pg_locks) were the largest
// cost of a command in the database (docs/benchmarks.md, "Money commands over HTTP").
func (w *wakeups) wait(now, began, ended time.Time, passed int) time.Duration {
	if passed == 0 || now.Sub(ended) >= w.window {
		return 0
	}
	end := began.Truncate(w.window).Add(w.window)
	if !now.Before(end) {
		end = now.Truncate(w.window).Add(w.window)
	}
	return end.Sub(now)
}

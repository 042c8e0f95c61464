package projections

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// feed shares one read of the log among the projections of a runner. Live, every projection
// wakes at the same appends and asks for the same events; reading them once each cost a
// visibility check per projection (eventstore_visible_below reads pg_locks), the largest single
// cost of a money command in the database (docs/benchmarks.md, "Money features"). The feed
// keeps the last read and hands it to every projection whose checkpoint lies within it and that
// asks on behalf of a wake-up that came before the read began.
//
// That is safe: events below a read's visibility bound are final (no later commit takes a
// position below it), so the read holds every event between its start and its end; and a
// projection served from it sleeps on the signal it took before the read began, which every
// append committed since then has fired, so such an event wakes it to read again.
type feed struct {
	reads prometheus.Counter

	mu   sync.Mutex
	last *window
}

// window is one read of the log: every event in (after, end], read from start on. full means the
// read stopped at its limit, so events after end may already be visible.
type window struct {
	start  time.Time
	after  int64
	end    int64
	full   bool
	events []eventstore.Envelope
}

// newFeed returns a feed counting its reads in reads (nil: not counted).
func newFeed(reads prometheus.Counter) *feed {
	if reads == nil {
		reads = prometheus.NewCounter(prometheus.CounterOpts{Name: "unregistered"})
	}
	return &feed{reads: reads}
}

// read returns up to limit events after the position, like postgres.ReadAll on q, for a caller
// that needs every event visible at since (when it took the signal it will sleep on next). A
// read that began at or after since serves it when it covers the position. Reads are made one at
// a time, so projections waking together wait for the first one's read instead of each making
// their own.
func (f *feed) read(ctx context.Context, q postgres.Querier, since time.Time, after int64, limit int) ([]eventstore.Envelope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if events, ok := f.last.serve(since, after, limit); ok {
		return events, nil
	}
	start := time.Now()
	events, err := postgres.ReadAll(ctx, q, after, limit)
	if err != nil {
		return nil, err
	}
	f.reads.Inc()
	w := &window{start: start, after: after, end: after, full: len(events) == limit, events: events}
	if len(events) > 0 {
		w.end = events[len(events)-1].Position
	}
	f.last = w
	return slices.Clone(events), nil
}

// serve returns the window's events after the position when the window began no earlier than
// since and holds everything after the position up to its end.
func (w *window) serve(since time.Time, after int64, limit int) ([]eventstore.Envelope, bool) {
	if w == nil || w.start.Before(since) || after < w.after || after > w.end || (after == w.end && w.full) {
		return nil, false
	}
	i := sort.Search(len(w.events), func(i int) bool { return w.events[i].Position > after })
	events := w.events[i:]
	if len(events) >= limit {
		events = events[:limit]
	} else if w.full {
		return nil, false // more may be visible after the window's end
	}
	return slices.Clone(events), true
}

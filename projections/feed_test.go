package projections

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"clearvest/eventstore"
)

func positions(events []eventstore.Envelope) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Position
	}
	return out
}

func envelopesAt(ps ...int64) []eventstore.Envelope {
	out := make([]eventstore.Envelope, len(ps))
	for i, p := range ps {
		out[i] = eventstore.Envelope{Position: p}
	}
	return out
}

func TestAWindowServesOnlyWhatItProvablyHolds(t *testing.T) {
	read := time.Now()
	partial := &window{start: read, after: 10, end: 40, events: envelopesAt(20, 30, 40)}
	full := &window{start: read, after: 10, end: 40, full: true, events: envelopesAt(20, 30, 40)}
	cases := []struct {
		name   string
		w      *window
		after  int64
		limit  int
		want   []int64
		served bool
	}{
		{"from the window's start", partial, 10, 100, []int64{20, 30, 40}, true},
		{"from inside it", partial, 25, 100, []int64{30, 40}, true},
		{"at a position it holds", partial, 30, 100, []int64{40}, true},
		{"caught up with a read that reached the end of the log", partial, 40, 100, []int64{}, true},
		{"cut to the limit", partial, 10, 2, []int64{20, 30}, true},
		{"before the window: events may be missing", partial, 5, 100, nil, false},
		{"after the window: another reader saw further", partial, 41, 100, nil, false},
		{"at the end of a read that stopped at its limit", full, 40, 100, nil, false},
		{"short of the limit in a read that stopped at its limit", full, 25, 100, nil, false},
		{"within the limit of a read that stopped at its limit", full, 10, 2, []int64{20, 30}, true},
		{"no read yet", nil, 0, 100, nil, false},
	}
	for _, c := range cases {
		got, ok := c.w.serve(read, c.after, c.limit)
		if ok != c.served {
			t.Errorf("%s: served %v, want %v", c.name, ok, c.served)
			continue
		}
		if ok && !slices.Equal(positions(got), c.want) {
			t.Errorf("%s: got %v, want %v", c.name, positions(got), c.want)
		}
	}
}

func TestAWindowServesNoWakeUpAfterItsRead(t *testing.T) {
	read := time.Now()
	w := &window{start: read, after: 0, end: 1, events: envelopesAt(1)}
	if _, ok := w.serve(read.Add(time.Nanosecond), 0, 10); ok {
		t.Fatal("a read served a projection woken after it began; an event appended in between would be missed")
	}
	if _, ok := w.serve(read.Add(-time.Second), 0, 10); !ok {
		t.Fatal("a read did not serve a projection woken before it began")
	}
}

func TestServedEventsAreTheReadersOwn(t *testing.T) {
	read := time.Now()
	w := &window{start: read, after: 0, end: 3, events: envelopesAt(1, 2, 3)}
	got, _ := w.serve(read, 0, 2)
	got = append(got, eventstore.Envelope{Position: 99})
	got[0].Position = 42
	again, _ := w.serve(read, 0, 10)
	if !slices.Equal(positions(again), []int64{1, 2, 3}) {
		t.Fatalf("a reader changed the shared window: %v", positions(again))
	}
}

// named applies nothing; several of them with different names stand for the registered
// projections waking at the same append.
type named string

func (n named) Name() string                                             { return string(n) }
func (named) Schema() string                                             { return `CREATE TABLE seen (position bigint PRIMARY KEY)` }
func (named) Apply(context.Context, pgx.Tx, []eventstore.Envelope) error { return nil }

func TestProjectionsCaughtUpTogetherReadTheLogOnce(t *testing.T) {
	f := newFixture(t)
	var ps []Projection
	for i := range 5 {
		ps = append(ps, named(fmt.Sprintf("reader_%d", i)))
	}
	r := f.runner(t, ps)
	last := appendEvents(t, f.store, 30)
	before := testutil.ToFloat64(r.metrics.logReads)
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if got := checkpoint(t, f.pool, p.Name()); got != last {
			t.Fatalf("%s is at %d, want %d", p.Name(), got, last)
		}
	}
	if reads := testutil.ToFloat64(r.metrics.logReads) - before; reads != 1 {
		t.Fatalf("5 projections catching up with the same events read the log %v times, want once", reads)
	}
	appendEvents(t, f.store, 1) // a later catch-up must read again
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := checkpoint(t, f.pool, "reader_4"); got <= last {
		t.Fatalf("an append after the shared read was not applied: reader_4 is at %d", got)
	}
}

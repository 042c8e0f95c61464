package projections

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
)

// bulkPicky is picky with a builder: a rebuild folds its events in memory and copies their rows,
// and refuses the events picky refuses.
type bulkPicky struct {
	*picky
	panicOn eventstore.Envelope // the builder panics at this event, when set
}

func (p *bulkPicky) Builder() Builder { return &pickyBuilder{p: p} }

type pickyBuilder struct {
	p    *bulkPicky
	rows [][]any
}

func (b *pickyBuilder) Add(ctx context.Context, env eventstore.Envelope) error {
	if b.p.panicOn.Position != 0 && env.ID == b.p.panicOn.ID {
		panic("a bug in the builder")
	}
	b.p.mu.Lock()
	fail := b.p.refuse[env.ID]
	b.p.mu.Unlock()
	if fail != nil {
		if err := fail(ctx, nil); err != nil {
			return err
		}
	}
	b.rows = append(b.rows, []any{env.ID, env.Position})
	return nil
}

func (b *pickyBuilder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"applications"}, []string{"event_id", "position"}, pgx.CopyFromRows(b.rows))
	b.rows = nil
	return err
}

// TestBulkRebuildStopsAtARefusedEvent: an event the builder refuses, or panics at, stops the
// rebuild with an *EventError naming it and leaves the live read model as it was; a skipped
// event is not passed to the builder.
func TestBulkRebuildStopsAtARefusedEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	events := logEvents(t, f, 40)
	p := &bulkPicky{picky: newPicky("picky")}
	r := f.runner(t, []Projection{p}, WithRebuildBatchSize(8))
	if err := r.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}

	p.refuseWith(events[17].ID, refusal)
	_, err := r.Rebuild(ctx, "picky")
	var failed *EventError
	if !errors.As(err, &failed) || failed.Event.ID != events[17].ID || failed.Projection != "picky" {
		t.Fatalf("Rebuild = %v, want an *EventError naming event 17", err)
	}
	if got := positionsIn(t, f.pool, "rm_picky"); !slices.Equal(got, positionsOf(events)) {
		t.Fatalf("a failed rebuild changed the live read model")
	}
	if _, err := r.Skip(ctx, SkipRequest{Name: "picky", Position: events[17].Position, Reason: "r", By: "b"}); err != nil {
		t.Fatal(err)
	}

	p.panicOn = events[30]
	_, err = r.Rebuild(ctx, "picky")
	var crashed *panicError
	if !errors.As(err, &failed) || failed.Event.ID != events[30].ID || !errors.As(err, &crashed) {
		t.Fatalf("Rebuild = %v, want an *EventError naming event 30 for the panic", err)
	}
	p.panicOn = eventstore.Envelope{}

	if _, err := r.Rebuild(ctx, "picky"); err != nil {
		t.Fatalf("rebuild after skipping the event: %v", err)
	}
	if got := positionsIn(t, f.pool, "rm_picky"); len(got) != 39 || slices.Contains(got, events[17].Position) {
		t.Fatalf("rebuilt model holds %d events (skipped one present: %v)", len(got), slices.Contains(got, events[17].Position))
	}
}

// countingBulk counts the builders a rebuild starts.
type countingBulk struct {
	*bulkPicky
	builders int
}

func (p *countingBulk) Builder() Builder { p.builders++; return p.bulkPicky.Builder() }

// TestALogLongerThanTheBulkLimitIsRebuiltBatchByBatch: past WithBulkLimit events no builder
// holds the log in memory, and the read model comes out the same.
func TestALogLongerThanTheBulkLimitIsRebuiltBatchByBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	events := logEvents(t, f, 40)
	for _, tc := range []struct {
		limit    int64
		builders int
	}{{40, 1}, {39, 0}, {0, 0}} {
		p := &countingBulk{bulkPicky: &bulkPicky{picky: newPicky("picky")}}
		r := f.runner(t, []Projection{p}, WithRebuildBatchSize(8), WithBulkLimit(tc.limit))
		if _, err := r.Rebuild(ctx, "picky"); err != nil {
			t.Fatal(err)
		}
		if p.builders != tc.builders {
			t.Errorf("limit %d: %d builders for a 40-event log, want %d", tc.limit, p.builders, tc.builders)
		}
		if got := positionsIn(t, f.pool, "rm_picky"); !slices.Equal(got, positionsOf(events)) {
			t.Errorf("limit %d: the rebuilt read model holds %d events, want the 40", tc.limit, len(got))
		}
	}
}

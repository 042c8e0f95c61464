package main

import (
	"context"
	"log/slog"
	"testing"

	"clearvest/app/plans/planstest"
	"clearvest/eventstore"
)

// The demo plans are created once, with the terms docs/plans.md lists, and never again: not on a
// restart, and not after an operator changed or withdrew them.
func TestSeedDemoPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := planstest.New(t, nil)
	logger := slog.New(slog.DiscardHandler)
	if err := seedDemoPlans(ctx, e.Plans, logger); err != nil {
		t.Fatal(err)
	}
	head := func() int64 {
		var pos int64
		if err := e.Pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM events`).Scan(&pos); err != nil {
			t.Fatal(err)
		}
		return pos
	}
	e.Track(head())
	e.CatchUp(t)
	list, err := e.Plans.Active(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, min, max, rate, apr, payout string }{
		{"Basic", "100.00", "250.00", "0.0040", "4.87", "100.40"},
		{"Standard", "300.00", "500.00", "0.0100", "6.08", "303.00"},
		{"Premium", "600.00", "1000.00", "0.0170", "6.89", "610.20"},
		{"Elite", "1500.00", "5000.00", "0.0390", "7.91", "1558.50"},
	}
	if len(list) != len(want) {
		t.Fatalf("%d demo plans, want %d", len(list), len(want))
	}
	for i, w := range want {
		p := list[i]
		tm := p.Terms
		got := []string{p.Name, tm.Min.String(), tm.Max.String(), tm.RateText(), tm.APRPercent().StringFixed(2), tm.ExampleFor(tm.Min).Payout.String()}
		if got[0] != w.name || got[1] != w.min || got[2] != w.max || got[3] != w.rate || got[4] != w.apr || got[5] != w.payout {
			t.Errorf("demo plan %d = %v, want %+v", i, got, w)
		}
	}

	before := head()
	if err := seedDemoPlans(ctx, e.Plans, logger); err != nil {
		t.Fatal(err)
	}
	if after := head(); after != before {
		t.Fatalf("a restart appended events: head %d, was %d", after, before)
	}
	// An operator withdraws a demo plan; the next start does not bring it back.
	pos, err := e.Plans.SetActive(ctx, eventstore.Metadata{}, list[0].ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := seedDemoPlans(ctx, e.Plans, logger); err != nil {
		t.Fatal(err)
	}
	if after := head(); after != pos {
		t.Errorf("seeding a catalogue that has plans appended events: head %d, want %d", after, pos)
	}
}

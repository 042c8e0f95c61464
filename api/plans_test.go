package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shopspring/decimal"

	"clearvest/api"
	"clearvest/app/plans"
	"clearvest/app/plans/planstest"
	"clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/eventstore"
)

func planTerms(min, max string, days int, rate string) plan.Terms {
	return plan.Terms{Min: money.MustParse(min), Max: money.MustParse(max), TermDays: days, TermRate: decimal.RequireFromString(rate)}
}

func TestListPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := planstest.New(t, nil)
	create := func(name string, tm plan.Terms, active bool) string {
		c, err := env.Plans.Create(ctx, eventstore.Metadata{}, plans.CreateInput{Name: name, Terms: tm, Active: active})
		if err != nil {
			t.Fatal(err)
		}
		env.Track(c.Position)
		return c.ID
	}
	elite := create("Elite", planTerms("1500", "5000", 180, "0.039"), true)
	basic := create("Basic", planTerms("100", "250", 30, "0.004"), true)
	create("Withdrawn", planTerms("10", "20", 7, "0.001"), false)
	// Elite's terms change: the list shows version 2.
	pos, err := env.Plans.ChangeTerms(ctx, eventstore.Metadata{}, elite, planTerms("1500", "5000", 180, "0.0385"))
	if err != nil {
		t.Fatal(err)
	}
	env.Track(pos)
	env.CatchUp(t)

	srv := start(t, api.Deps{Plans: env.Plans})
	// Anonymous, like a visitor of the plans page.
	r := get(t, srv, "/api/invest/plans")
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var body struct {
		Plans []json.RawMessage `json:"plans"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Plans) != 2 {
		t.Fatalf("%d plans listed, want the 2 active ones: %s", len(body.Plans), r.body)
	}
	// Exactly these fields, money and rates as strings.
	want := []string{
		`{"_id":"` + basic + `","apr":"4.87","example":{"amount":"100.00","maturityDays":30,"payout":"100.40","return":"0.40"},` +
			`"max":"250.00","min":"100.00","name":"Basic","termDays":30,"termRate":"0.0040","version":1}`,
		`{"_id":"` + elite + `","apr":"7.81","example":{"amount":"1500.00","maturityDays":180,"payout":"1557.75","return":"57.75"},` +
			`"max":"5000.00","min":"1500.00","name":"Elite","termDays":180,"termRate":"0.0385","version":2}`,
	}
	for i, raw := range body.Plans {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		canonical, err := json.Marshal(m) // keys sorted
		if err != nil {
			t.Fatal(err)
		}
		if string(canonical) != want[i] {
			t.Errorf("plan %d:\n got %s\nwant %s", i, canonical, want[i])
		}
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
}

func TestListPlansWithoutCatalogue(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{})
	r := get(t, srv, "/api/invest/plans")
	if r.status != http.StatusUnprocessableEntity || errorMessage(t, r) != "Plans are not available yet." {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
}

func TestListPlansEmpty(t *testing.T) {
	t.Parallel()
	env := planstest.New(t, nil)
	srv := start(t, api.Deps{Plans: env.Plans})
	r := get(t, srv, "/api/invest/plans")
	if r.status != http.StatusOK || string(r.body) != "{\"plans\":[]}\n" {
		t.Fatalf("status %d: %q, want an empty list", r.status, r.body)
	}
}

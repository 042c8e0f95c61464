package plans_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/app/plans"
	"clearvest/app/plans/planstest"
	"clearvest/domain/clock"
	"clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/eventstore"
	"clearvest/platform/pgtest"
	projplans "clearvest/projections/plans"
)

var (
	now  = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	meta = eventstore.Metadata{ActorRole: "system"}
)

func terms(min, max string, days int, rate string) plan.Terms {
	return plan.Terms{Min: money.MustParse(min), Max: money.MustParse(max), TermDays: days, TermRate: decimal.RequireFromString(rate)}
}

func create(t *testing.T, e *planstest.Env, name string, tm plan.Terms, active bool) string {
	t.Helper()
	c, err := e.Plans.Create(context.Background(), meta, plans.CreateInput{Name: name, Terms: tm, Active: active})
	if err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	e.Track(c.Position)
	return c.ID
}

func names(list []projplans.Plan) []string {
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = p.Name
	}
	return out
}

func active(t *testing.T, e *planstest.Env) []projplans.Plan {
	t.Helper()
	e.CatchUp(t)
	list, err := e.Plans.Active(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestCatalogue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := planstest.New(t, clock.Fixed(now))
	if empty, err := e.Plans.Empty(ctx); err != nil || !empty {
		t.Fatalf("Empty() on a new catalogue = %v, %v", empty, err)
	}

	elite := create(t, e, "Elite", terms("1500", "5000", 180, "0.039"), true)
	basic := create(t, e, "  Basic ", terms("100", "250", 30, "0.0040"), true)
	hidden := create(t, e, "Hidden", terms("50", "60", 10, "0.001"), false)

	list := active(t, e)
	if got := names(list); len(got) != 2 || got[0] != "Basic" || got[1] != "Elite" {
		t.Fatalf("active plans = %v, want [Basic Elite] (smallest minimum first, the inactive one left out)", got)
	}
	b := list[0]
	if b.ID != basic || b.Version != 1 || !b.Active || !b.Terms.Equal(terms("100", "250", 30, "0.004")) || !b.CreatedAt.Equal(now) {
		t.Errorf("Basic in the read model = %+v", b)
	}
	if got := b.Terms.RateText(); got != "0.0040" {
		t.Errorf("rate read back as %s, want 0.0040", got)
	}
	if empty, err := e.Plans.Empty(ctx); err != nil || empty {
		t.Errorf("Empty() after creating plans = %v, %v", empty, err)
	}

	t.Run("names are unique ignoring case and spacing", func(t *testing.T) {
		for _, name := range []string{"Basic", "BASIC", "  basic  "} {
			_, err := e.Plans.Create(ctx, meta, plans.CreateInput{Name: name, Terms: terms("1", "2", 3, "0.01"), Active: true})
			if !errors.Is(err, plans.ErrNameTaken) {
				t.Errorf("creating %q: %v, want ErrNameTaken", name, err)
			}
		}
	})

	t.Run("new terms are a new version; the old one stays", func(t *testing.T) {
		next := terms("100", "300", 60, "0.0105")
		pos, err := e.Plans.ChangeTerms(ctx, meta, basic, next)
		if err != nil || pos == 0 {
			t.Fatalf("ChangeTerms: %d, %v", pos, err)
		}
		e.Track(pos)
		if pos, err := e.Plans.ChangeTerms(ctx, meta, basic, next); err != nil || pos != 0 {
			t.Errorf("the same terms again: position %d, %v; want nothing appended", pos, err)
		}
		b, err := projplans.Get(ctx, e.Pool, basic)
		if err == nil {
			e.CatchUp(t)
			b, err = projplans.Get(ctx, e.Pool, basic)
		}
		if err != nil || b.Version != 2 || !b.Terms.Equal(next) {
			t.Fatalf("after the change: %+v, %v", b, err)
		}
		v1, err := projplans.TermsAt(ctx, e.Pool, basic, 1)
		if err != nil || !v1.Equal(terms("100", "250", 30, "0.004")) {
			t.Errorf("version 1 = %+v, %v", v1, err)
		}
		p, err := e.Plans.Load(ctx, basic)
		if err != nil || p.CurrentVersion() != 2 {
			t.Fatalf("Load: %v, %v", p, err)
		}
		if _, err := projplans.TermsAt(ctx, e.Pool, basic, 3); !errors.Is(err, projplans.ErrNotFound) {
			t.Errorf("version 3: %v", err)
		}
	})

	t.Run("bad terms store nothing", func(t *testing.T) {
		if _, err := e.Plans.ChangeTerms(ctx, meta, basic, terms("100", "300", 60, "1.2")); !errors.Is(err, plan.ErrRate) {
			t.Errorf("ChangeTerms with rate 1.2: %v", err)
		}
		_, err := e.Plans.Create(ctx, meta, plans.CreateInput{Name: "Broken", Terms: terms("10", "5", 30, "0.01"), Active: true})
		if !errors.Is(err, plan.ErrMaxBelowMin) {
			t.Errorf("Create with max < min: %v", err)
		}
		// The name of a refused plan is not claimed.
		create(t, e, "Broken", terms("5", "10", 30, "0.01"), false)
	})

	t.Run("unknown plans", func(t *testing.T) {
		for _, id := range []string{"not-a-uuid", "0191f3c2-7a4e-7b1c-9e2d-5a6b7c8d9e0f"} {
			if _, err := e.Plans.SetActive(ctx, meta, id, true); !errors.Is(err, plan.ErrNotFound) {
				t.Errorf("SetActive(%s): %v", id, err)
			}
			if _, err := e.Plans.Load(ctx, id); !errors.Is(err, plan.ErrNotFound) {
				t.Errorf("Load(%s): %v", id, err)
			}
		}
	})

	t.Run("withdrawing and offering again", func(t *testing.T) {
		for _, step := range []struct {
			id     string
			active bool
		}{{elite, false}, {hidden, true}} {
			pos, err := e.Plans.SetActive(ctx, meta, step.id, step.active)
			if err != nil || pos == 0 {
				t.Fatalf("SetActive: %d, %v", pos, err)
			}
			e.Track(pos)
		}
		if got := names(active(t, e)); len(got) != 2 || got[0] != "Hidden" || got[1] != "Basic" {
			t.Errorf("active plans = %v, want [Hidden Basic]", got)
		}
	})

	t.Run("a rebuild gives the same read model", func(t *testing.T) {
		e.CatchUp(t)
		before := snapshot(t, e)
		if _, err := e.Runner.Rebuild(ctx, projplans.Name); err != nil {
			t.Fatal(err)
		}
		after := snapshot(t, e)
		if len(before) == 0 || len(before) != len(after) {
			t.Fatalf("rebuild: %d rows before, %d after", len(before), len(after))
		}
		for i := range before {
			if before[i] != after[i] {
				t.Errorf("row %d: live %s, rebuilt %s", i, before[i], after[i])
			}
		}
	})
}

// snapshot is the whole read model as text.
func snapshot(t *testing.T, e *planstest.Env) []string {
	return pgtest.Texts(t, e.Pool, `
		SELECT to_jsonb(p)::text FROM rm_plans.plans p
		UNION ALL SELECT to_jsonb(v)::text FROM rm_plans.plan_terms v ORDER BY 1`)
}

func TestConcurrentCreationsOfOneName(t *testing.T) {
	t.Parallel()
	e := planstest.New(t, nil)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.Plans.Create(context.Background(), meta, plans.CreateInput{Name: "Standard", Terms: terms("300", "500", 60, "0.0105"), Active: true})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, plans.ErrNameTaken):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d creations of one name succeeded, want exactly 1", ok)
	}
	var streams int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(DISTINCT stream_id) FROM events WHERE stream_id LIKE 'plan-%'`).Scan(&streams); err != nil {
		t.Fatal(err)
	}
	if streams != 1 {
		t.Errorf("%d plan streams stored, want 1: a refused creation must store nothing", streams)
	}
}

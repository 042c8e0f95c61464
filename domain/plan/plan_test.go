package plan_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/money"
	"clearvest/domain/plan"
)

var plans = aggregatetest.For(plan.New)

var (
	t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	t1 = t0.Add(48 * time.Hour)
)

func terms(min, max string, days int, rate string) plan.Terms {
	return plan.Terms{Min: money.MustParse(min), Max: money.MustParse(max), TermDays: days, TermRate: decimal.RequireFromString(rate)}
}

var basic = terms("100", "250", 30, "0.004")

func created() plan.Created {
	return plan.Created{PlanID: "p1", Name: "Basic", Terms: basic, Active: true, At: t0}
}

func TestCreate(t *testing.T) {
	t.Parallel()
	t.Run("a plan starts at version 1 with its terms", func(t *testing.T) {
		t.Parallel()
		p := plans.Given().
			When(func(p *plan.Plan) error { return p.Create("p1", "  Basic  ", basic, true, t0) }).
			Then(t, created())
		if p.CurrentVersion() != 1 || !p.Active() || p.Name() != "Basic" || p.ID() != "p1" || !p.Terms().Equal(basic) {
			t.Errorf("after Create: version %d, active %v, name %q, id %q, terms %+v", p.CurrentVersion(), p.Active(), p.Name(), p.ID(), p.Terms())
		}
	})
	t.Run("inner runs of space become one", func(t *testing.T) {
		t.Parallel()
		plans.Given().
			When(func(p *plan.Plan) error { return p.Create("p1", "Elite \t Plus", basic, false, t0) }).
			Then(t, plan.Created{PlanID: "p1", Name: "Elite Plus", Terms: basic, Active: false, At: t0})
	})
	t.Run("only once", func(t *testing.T) {
		t.Parallel()
		plans.Given(created()).
			When(func(p *plan.Plan) error { return p.Create("p1", "Basic", basic, true, t0) }).
			ThenError(t, plan.ErrExists)
	})
	for name, c := range map[string]struct {
		id, name string
		terms    plan.Terms
		want     error
	}{
		"empty name":         {"p1", "   ", basic, plan.ErrNameLength},
		"41 characters":      {"p1", strings.Repeat("é", 41), basic, plan.ErrNameLength},
		"control character":  {"p1", "Bas\x00ic", basic, plan.ErrNameInvalid},
		"invalid UTF-8":      {"p1", "Bas\xffic", basic, plan.ErrNameInvalid},
		"no id":              {"", "Basic", basic, plan.ErrInvalidID},
		"zero min":           {"p1", "Basic", terms("0", "250", 30, "0.004"), plan.ErrMinNotPositive},
		"negative min":       {"p1", "Basic", terms("-1", "250", 30, "0.004"), plan.ErrMinNotPositive},
		"max below min":      {"p1", "Basic", terms("300", "250", 30, "0.004"), plan.ErrMaxBelowMin},
		"zero days":          {"p1", "Basic", terms("100", "250", 0, "0.004"), plan.ErrTermDays},
		"3651 days":          {"p1", "Basic", terms("100", "250", 3651, "0.004"), plan.ErrTermDays},
		"zero rate":          {"p1", "Basic", terms("100", "250", 30, "0"), plan.ErrRate},
		"negative rate":      {"p1", "Basic", terms("100", "250", 30, "-0.01"), plan.ErrRate},
		"100 %":              {"p1", "Basic", terms("100", "250", 30, "1"), plan.ErrRate},
		"over 100 %":         {"p1", "Basic", terms("100", "250", 30, "1.5"), plan.ErrRate},
		"too many decimals":  {"p1", "Basic", terms("100", "250", 30, "0.004000001"), plan.ErrRatePrecision},
		"min and max differ": {"p1", "Basic", terms("100", "99.99", 30, "0.004"), plan.ErrMaxBelowMin},
	} {
		t.Run("refuses "+name, func(t *testing.T) {
			t.Parallel()
			plans.Given().
				When(func(p *plan.Plan) error { return p.Create(c.id, c.name, c.terms, true, t0) }).
				ThenError(t, c.want)
		})
	}
	t.Run("accepts the edges", func(t *testing.T) {
		t.Parallel()
		edge := terms("0.01", "0.01", 3650, "0.99999999")
		name := strings.Repeat("é", 40)
		plans.Given().
			When(func(p *plan.Plan) error { return p.Create("p1", name, edge, true, t0) }).
			Then(t, plan.Created{PlanID: "p1", Name: name, Terms: edge, Active: true, At: t0})
		one := terms("1", "2", 1, "0.00000001")
		plans.Given().
			When(func(p *plan.Plan) error { return p.Create("p1", "X", one, true, t0) }).
			Then(t, plan.Created{PlanID: "p1", Name: "X", Terms: one, Active: true, At: t0})
	})
}

func TestChangeTerms(t *testing.T) {
	t.Parallel()
	next := terms("100", "300", 60, "0.0105")
	t.Run("makes the next version and keeps the old ones", func(t *testing.T) {
		t.Parallel()
		p := plans.Given(created()).
			When(func(p *plan.Plan) error { return p.ChangeTerms(next, t1) }).
			Then(t, plan.TermsChanged{Version: 2, Terms: next, At: t1})
		if p.CurrentVersion() != 2 || !p.Terms().Equal(next) {
			t.Fatalf("version %d terms %+v", p.CurrentVersion(), p.Terms())
		}
		if old, ok := p.TermsAt(1); !ok || !old.Equal(basic) {
			t.Errorf("TermsAt(1) = %+v, %v; an investment made under version 1 keeps it", old, ok)
		}
		if _, ok := p.TermsAt(3); ok {
			t.Error("TermsAt(3) exists")
		}
		if _, ok := p.TermsAt(0); ok {
			t.Error("TermsAt(0) exists")
		}
	})
	t.Run("the third version follows the second", func(t *testing.T) {
		t.Parallel()
		plans.Given(created(), plan.TermsChanged{Version: 2, Terms: next, At: t1}).
			When(func(p *plan.Plan) error { return p.ChangeTerms(basic, t1) }).
			Then(t, plan.TermsChanged{Version: 3, Terms: basic, At: t1})
	})
	t.Run("the same terms change nothing", func(t *testing.T) {
		t.Parallel()
		// 0.0040 is the same rate as 0.004.
		plans.Given(created()).
			When(func(p *plan.Plan) error { return p.ChangeTerms(terms("100.00", "250", 30, "0.0040"), t1) }).
			Then(t)
	})
	t.Run("are checked", func(t *testing.T) {
		t.Parallel()
		plans.Given(created()).
			When(func(p *plan.Plan) error { return p.ChangeTerms(terms("100", "250", 30, "1"), t1) }).
			ThenError(t, plan.ErrRate)
	})
	t.Run("of a plan that does not exist", func(t *testing.T) {
		t.Parallel()
		plans.Given().
			When(func(p *plan.Plan) error { return p.ChangeTerms(next, t1) }).
			ThenError(t, plan.ErrNotFound)
	})
}

func TestSetActive(t *testing.T) {
	t.Parallel()
	plans.Given(created()).
		When(func(p *plan.Plan) error { return p.SetActive(false, t1) }).
		Then(t, plan.Deactivated{At: t1})
	plans.Given(created(), plan.Deactivated{At: t1}).
		When(func(p *plan.Plan) error { return p.SetActive(true, t1) }).
		Then(t, plan.Activated{At: t1})
	plans.Given(created()).
		When(func(p *plan.Plan) error { return p.SetActive(true, t1) }).
		Then(t)
	plans.Given(created(), plan.Deactivated{At: t1}).
		When(func(p *plan.Plan) error { return p.SetActive(false, t1) }).
		Then(t)
	plans.Given().
		When(func(p *plan.Plan) error { return p.SetActive(true, t1) }).
		ThenError(t, plan.ErrNotFound)
}

func TestNameKey(t *testing.T) {
	t.Parallel()
	if plan.NameKey("  Basic   Plan ") != plan.NameKey("basic plan") {
		t.Error("names differing only in case and spaces are different keys")
	}
	if plan.NameKey("Basic") == plan.NameKey("Basics") {
		t.Error("different names share a key")
	}
}

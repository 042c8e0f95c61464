package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"clearvest/api"
	"clearvest/app/plans"
	"clearvest/app/plans/planstest"
	"clearvest/eventstore"
)

// planCatalogueBuild is uiBuild with the catalogue page and its templates shaped like the ones
// ui/scripts/prerender.mjs writes: the page with the marker, the empty page, a card of tokens.
func planCatalogueBuild() map[string]string {
	page := func(list string) string {
		return strings.Replace(prerenderedPage("Portfolio Plans", "/investment-plans"), "</body>",
			`<main><ul aria-label="Plans" class="card-grid">`+list+`</ul></main></body>`, 1)
	}
	templates, _ := json.Marshal(map[string]any{
		"page":   page("<!--plan-cards-->"),
		"empty":  page("") + `<p>No plans are open for new investments right now.</p>`,
		"marker": "<!--plan-cards-->",
		"dataId": "preloaded-queries",
		"term":   map[string]string{"one": "{count} day", "other": "{count} days"},
		"card": `<li data-testid="plan-card" aria-labelledby="plan-__PLAN_ID__-name"><h2 id="plan-__PLAN_ID__-name">__PLAN_NAME__</h2>` +
			`<dd>__PLAN_MIN__ to __PLAN_MAX__</dd><dd>__PLAN_TERM__</dd><dd data-testid="plan-term-rate">__PLAN_TERM_RATE__</dd>` +
			`<dd data-testid="plan-apr">__PLAN_APR__ a year</dd><p>Invest __PLAN_EXAMPLE_AMOUNT__ for __PLAN_EXAMPLE_TERM__ receive __PLAN_EXAMPLE_PAYOUT__ (__PLAN_EXAMPLE_RETURN__ return)</p>` +
			`<a href="/start-invest?plan=__PLAN_ID__">Start investing</a></li>`,
	})
	return map[string]string{
		"routes.json":                             `{"routes": [{"path": "/investment-plans", "prerendered": "prerendered/investment-plans.html", "plans": "prerendered/investment-plans.plans.json"}]}`,
		"prerendered/investment-plans.html":       page(`</ul><p>Loading the plans…</p><ul>`),
		"prerendered/investment-plans.plans.json": string(templates),
	}
}

func TestPlansPageIsServedWithTheCurrentCatalogue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := planstest.New(t, nil)
	create := func(name, min, max string, days int, rate string, active bool) string {
		c, err := env.Plans.Create(ctx, eventstore.Metadata{}, plans.CreateInput{Name: name, Terms: planTerms(min, max, days, rate), Active: active})
		if err != nil {
			t.Fatal(err)
		}
		env.Track(c.Position)
		return c.ID
	}
	basic := create("Basic <Saver>", "100", "250", 30, "0.004", true)
	create("Elite", "1500", "5000", 180, "0.039", true)
	create("Long", "1000", "1250000", 1, "0.00125", true)
	create("Withdrawn", "10", "20", 7, "0.001", false)
	env.CatchUp(t)

	build := uiBuild()
	for name, data := range planCatalogueBuild() {
		build[name] = &fstest.MapFile{Data: []byte(data)}
	}
	srv := start(t, api.Deps{Plans: env.Plans, Assets: build})
	served := func() string {
		t.Helper()
		r := get(t, srv, "/investment-plans")
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		return string(r.body)
	}

	page := served()
	for _, want := range []string{
		// Each active plan: name (escaped), amounts, term, rate for the term, APR, worked example.
		"<h2 id=\"plan-" + basic + "-name\">Basic &lt;Saver&gt;</h2>", "$100.00 to $250.00", "<dd>30 days</dd>",
		`<dd data-testid="plan-term-rate">0.40%</dd>`, `<dd data-testid="plan-apr">4.87% a year</dd>`,
		"Invest $100.00 for 30 days receive $100.40 ($0.40 return)", `href="/start-invest?plan=` + basic + `"`,
		"Elite", `<dd data-testid="plan-term-rate">3.90%</dd>`, `<dd data-testid="plan-apr">7.91% a year</dd>`, "$1,500.00 to $5,000.00",
		"Long", "<dd>1 day</dd>", `<dd data-testid="plan-term-rate">0.125%</dd>`, "$1,000.00 to $1,250,000.00",
		// The same list as data, for the app to hydrate from.
		`type="application/json" id="preloaded-queries">[{"arg":null,"endpointName":"listPlans","value":{"plans":[`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the served plans page lacks %q:\n%s", want, page)
		}
	}
	for _, unwanted := range []string{"Loading", "Withdrawn", "<!--plan-cards-->", "__PLAN_"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the served plans page contains %q", unwanted)
		}
	}
	if n := strings.Count(page, `data-testid="plan-card"`); n != 3 {
		t.Errorf("%d plan cards served, want the 3 active plans", n)
	}

	// A change of terms shows on the next request.
	pos, err := env.Plans.ChangeTerms(ctx, eventstore.Metadata{}, basic, planTerms("100", "250", 30, "0.005"))
	if err != nil {
		t.Fatal(err)
	}
	env.Track(pos)
	env.CatchUp(t)
	if page := served(); !strings.Contains(page, `<dd data-testid="plan-term-rate">0.50%</dd>`) {
		t.Errorf("the page still shows the old rate after the terms changed:\n%s", page)
	}
}

func TestPlansPageOfAnEmptyCatalogue(t *testing.T) {
	t.Parallel()
	env := planstest.New(t, nil)
	build := uiBuild()
	for name, data := range planCatalogueBuild() {
		build[name] = &fstest.MapFile{Data: []byte(data)}
	}
	srv := start(t, api.Deps{Plans: env.Plans, Assets: build})
	page := string(get(t, srv, "/investment-plans").body)
	if !strings.Contains(page, "No plans are open") || strings.Contains(page, "Loading") ||
		!strings.Contains(page, `"value":{"plans":[]}`) {
		t.Errorf("an empty catalogue is not served as the empty page with its data:\n%s", page)
	}
}

package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"clearvest/api"
	"clearvest/app/community"
	"clearvest/app/plans"
	"clearvest/app/plans/planstest"
	"clearvest/content"
	domcommunity "clearvest/domain/community"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/platform/sitecontent"
)

// liveBuild is uiBuild with a page served with current data and its templates, shaped like the
// ones ui/scripts/prerender.mjs writes: the page with the marker where the answer's markup goes,
// the page of an empty answer, and the parts that markup is built from.
func liveBuild(title, path, query, list string, empty string, parts map[string]string, counts map[string]map[string]string) fstest.MapFS {
	page := func(content string) string {
		return strings.Replace(prerenderedPage(title, path), "</body>", "<main>"+strings.Replace(list, "%s", content, 1)+"</main></body>", 1)
	}
	templates, _ := json.Marshal(map[string]any{
		"query":  query,
		"page":   page("<!--live-data-->"),
		"empty":  page("") + empty,
		"marker": "<!--live-data-->",
		"dataId": "preloaded-queries",
		"parts":  parts,
		"counts": counts,
	})
	file := "prerendered" + path
	build := uiBuild()
	build["routes.json"] = &fstest.MapFile{Data: []byte(`{"routes": [{"path": "` + path + `", "prerendered": "` + file + `.html", "data": "` + file + `.data.json"}]}`)}
	build[file+".html"] = &fstest.MapFile{Data: []byte(page(`<p>Loading…</p>`))}
	build[file+".data.json"] = &fstest.MapFile{Data: templates}
	return build
}

func planCatalogueBuild() fstest.MapFS {
	return liveBuild("Portfolio Plans", "/investment-plans", "listPlans", `<ul aria-label="Plans" class="card-grid">%s</ul>`,
		`<p>No plans are open for new investments right now.</p>`,
		map[string]string{"card": `<li data-testid="plan-card" aria-labelledby="plan-__PLAN_ID__-name"><h2 id="plan-__PLAN_ID__-name">__PLAN_NAME__</h2>` +
			`<dd>__PLAN_MIN__ to __PLAN_MAX__</dd><dd>__PLAN_TERM__</dd><dd data-testid="plan-term-rate">__PLAN_TERM_RATE__</dd>` +
			`<dd data-testid="plan-apr">__PLAN_APR__ a year</dd><p>Invest __PLAN_EXAMPLE_AMOUNT__ for __PLAN_EXAMPLE_TERM__ receive __PLAN_EXAMPLE_PAYOUT__ (__PLAN_EXAMPLE_RETURN__ return)</p>` +
			`<a href="/start-invest?plan=__PLAN_ID__">Start investing</a></li>`},
		map[string]map[string]string{"days": {"one": "{count} day", "other": "{count} days"}})
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

	srv := start(t, api.Deps{Plans: env.Plans, Assets: planCatalogueBuild()})
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
	for _, unwanted := range []string{"Loading", "Withdrawn", "<!--live-data-->", "__PLAN_"} {
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
	srv := start(t, api.Deps{Plans: env.Plans, Assets: planCatalogueBuild()})
	page := string(get(t, srv, "/investment-plans").body)
	if !strings.Contains(page, "No plans are open") || strings.Contains(page, "Loading") ||
		!strings.Contains(page, `"value":{"plans":[]}`) {
		t.Errorf("an empty catalogue is not served as the empty page with its data:\n%s", page)
	}
}

func levelsBuild() fstest.MapFS {
	level := func(name string) string {
		return `<li data-testid="badge-level" class="level"><svg class="level__icon" data-badge="` + name + `"></svg><h3 class="level__name">` +
			strings.ToUpper(name[:1]) + name[1:] + `</h3>__LEVEL_CRITERIA__</li>`
	}
	return liveBuild("Member Levels", "/Hierarchy", "listBadges", `<h2>Levels</h2><ol class="levels">%s</ol>`, "",
		map[string]string{
			"level.member": level("member"), "level.leader": level("leader"), "level.expert": level("expert"), "level.master": level("master"),
			"criteria.everyAccount": `<p class="level__criteria">Every Clearvest account</p>`,
			"criteria":              `<ul class="level__criteria"><li>__LEVEL_AMOUNT__ invested in total</li><li>__LEVEL_REFERRALS__</li></ul>`,
		},
		map[string]map[string]string{"referrals": {"one": "{count} qualified referral", "other": "{count} qualified referrals"}})
}

func TestLevelsPageIsServedWithEveryLevelAndItsCriteria(t *testing.T) {
	t.Parallel()
	env := planstest.New(t, nil)
	levels := []domcommunity.Level{
		{Name: domcommunity.Member, MinInvested: money.Zero},
		{Name: domcommunity.Leader, MinInvested: money.MustParse("1000"), MinReferrals: 1},
		{Name: domcommunity.Expert, MinInvested: money.MustParse("5000.50"), MinReferrals: 3},
		{Name: domcommunity.Master, MinInvested: money.MustParse("1250000"), MinReferrals: 1000},
	}
	comm, err := community.New(community.Config{Levels: levels}, community.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, api.Deps{Community: comm, Assets: levelsBuild()})
	r := get(t, srv, "/hierarchy")
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	page := string(r.body)
	for _, want := range []string{
		`<li data-testid="badge-level" class="level"><svg class="level__icon" data-badge="member"></svg><h3 class="level__name">Member</h3><p class="level__criteria">Every Clearvest account</p></li>`,
		`<h3 class="level__name">Leader</h3><ul class="level__criteria"><li>$1,000 invested in total</li><li>1 qualified referral</li></ul>`,
		`<h3 class="level__name">Expert</h3><ul class="level__criteria"><li>$5,000.50 invested in total</li><li>3 qualified referrals</li></ul>`,
		`<h3 class="level__name">Master</h3><ul class="level__criteria"><li>$1,250,000 invested in total</li><li>1,000 qualified referrals</li></ul>`,
		`type="application/json" id="preloaded-queries">[{"arg":null,"endpointName":"listBadges","value":{"levels":[{"minInvested":"0.00","minReferrals":0,"name":"member"},`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the served levels page lacks %q:\n%s", want, page)
		}
	}
	for _, unwanted := range []string{"Loading", "<!--live-data-->", "__LEVEL_"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the served levels page contains %q", unwanted)
		}
	}
	if n := strings.Count(page, `data-testid="badge-level"`); n != 4 {
		t.Errorf("%d levels served, want 4", n)
	}
	// The page's data is the API's answer.
	apiAnswer := string(get(t, srv, "/api/badges").body)
	if !strings.Contains(page, `"value":`+strings.TrimSpace(apiAnswer)+`}]</script>`) {
		t.Errorf("the page's data is not the API's answer %s:\n%s", apiAnswer, page)
	}
}

func howItWorksBuild() fstest.MapFS {
	step := func(link string) string {
		return `<li data-testid="how-step"><div class="how-steps__icon">__STEP_ICON__</div><h2>__STEP_TITLE__</h2><div class="prose">__STEP_DESCRIPTION__</div>` + link + `</li>`
	}
	return liveBuild("How It Works", "/how-it-works", "getContentHowItWorks", `%s`, `<p class="empty">No steps yet.</p>`,
		map[string]string{
			"body":       `<ol class="how-steps">__HOW_STEPS__</ol>`,
			"body.intro": `<p>__HOW_INTRO__</p><ol class="how-steps">__HOW_STEPS__</ol>`,
			"step":       step(""),
			"step.link":  step(`<a href="/__STEP_LINK__" class="how-steps__link">Go to __STEP_LINK_NAME__</a>`),
			"icon.user":  `<svg data-icon="user"></svg>`,
			"icon.mail":  `<svg data-icon="mail"></svg>`,
		}, nil)
}

func TestHowItWorksPageIsServedWithTheOperatorsSteps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(yaml string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "how-it-works.yaml"), []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`intro: Two steps & you are in.
steps:
  - id: open
    title: Open <your> account
    icon: user
    link: /register
    description: Register with **your** e-mail.
  - id: wait
    title: Wait for mail
    icon: wallet
    description: We write to you.
`)
	store, err := sitecontent.New(content.Files(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, api.Deps{Content: store, Assets: howItWorksBuild()})
	served := func() string {
		t.Helper()
		r := get(t, srv, "/how-it-works")
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		return string(r.body)
	}
	page := served()
	for _, want := range []string{
		`<p>Two steps &amp; you are in.</p><ol class="how-steps">`,
		`<li data-testid="how-step"><div class="how-steps__icon"><svg data-icon="user"></svg></div><h2>Open &lt;your&gt; account</h2>` +
			`<div class="prose"><p>Register with <strong>your</strong> e-mail.</p>`,
		`<a href="/register" class="how-steps__link">Go to open &lt;your&gt; account</a></li>`,
		// An icon the build has no drawing of is left out, as the app does; no link, no button.
		`<div class="how-steps__icon"></div><h2>Wait for mail</h2><div class="prose"><p>We write to you.</p>` + "\n" + `</div></li></ol>`,
		`type="application/json" id="preloaded-queries">[{"arg":null,"endpointName":"getContentHowItWorks","value":{"intro":"Two steps \u0026 you are in.",`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the served page lacks %q:\n%s", want, page)
		}
	}
	for _, unwanted := range []string{"Loading", "<!--live-data-->", "__STEP_", "__HOW_"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the served page contains %q", unwanted)
		}
	}

	// The operator's edit shows on the next request, and a list without intro has none.
	write(`steps:
  - id: only
    title: The only step
    icon: mail
    description: Just this.
`)
	page = served()
	if !strings.Contains(page, `<main><ol class="how-steps"><li data-testid="how-step"><div class="how-steps__icon"><svg data-icon="mail"></svg></div><h2>The only step</h2>`) ||
		strings.Contains(page, "Open &lt;your&gt; account") {
		t.Errorf("the page does not follow the operator's edit:\n%s", page)
	}
}

func TestALiveDataPageWhoseQueryIsNotWiredIsServedAsBuilt(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: howItWorksBuild()})
	if page := string(get(t, srv, "/how-it-works").body); !strings.Contains(page, "<p>Loading…</p>") || strings.Contains(page, "preloaded-queries") {
		t.Errorf("without content the page is not served as the build rendered it:\n%s", page)
	}
}

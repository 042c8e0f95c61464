package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
	"sync"

	"github.com/shopspring/decimal"

	"clearvest/api/apigen"
)

// Some public pages are served complete: the plan catalogue (/investment-plans), the member levels
// (/Hierarchy) and How It Works. A visitor (or a crawler) without JavaScript sees their content, and
// the app hydrates that markup from the same data sent along as JSON, so nothing appears late or
// changes size. The build cannot know that content (the plans live in the database, the levels in
// the server's configuration, the steps in the operator's content files), so it leaves templates
// (ui/scripts/prerender.mjs, from livePages in ui/src/entry-server.tsx) and the server fills them
// with the answer of the moment. See docs/public-site.md.

// liveTemplates is the build's dist/prerendered/<page>.data.json.
type liveTemplates struct {
	// The API query whose answer the page shows, by the app's name for it (its endpoint name).
	Query string `json:"query"`
	// The page with Marker where the answer's markup goes, and the page of an answer with nothing
	// to show.
	Page   string `json:"page"`
	Empty  string `json:"empty"`
	Marker string `json:"marker"`
	// The templates the answer's markup is built from, a token (__NAME__) for each value.
	Parts map[string]string `json:"parts"`
	// Words for a count, {count} standing for the number.
	Counts map[string]countWords `json:"counts"`
	// The id of the <script type="application/json"> the app reads the data from (app/preloaded.ts).
	DataID string `json:"dataId"`
}

type countWords struct {
	One   string `json:"one"`
	Other string `json:"other"`
}

// liveQuery is what the server knows of a query a page is served with: the templates it needs and
// how to build the answer's markup from them.
type liveQuery struct {
	parts  []string
	counts []string
	// markup is the answer's markup, or empty when it has nothing to show.
	markup func(t *liveTemplates, answer any) (markup string, empty bool, err error)
}

// liveAnswer gives a query's answer as the API gives it.
type liveAnswer func(ctx context.Context) (any, error)

// answerOf makes a liveAnswer of an API operation without parameters whose success is A.
func answerOf[A, Req, R any](operation func(context.Context, Req) (R, error)) liveAnswer {
	return func(ctx context.Context) (any, error) {
		var request Req
		r, err := operation(ctx, request)
		if err != nil {
			return nil, err
		}
		a, ok := any(r).(A)
		if !ok {
			return nil, fmt.Errorf("unexpected answer %T", r)
		}
		return a, nil
	}
}

// liveAnswers are the queries the server can answer for the pages, by the API's own operations;
// one not wired (tests of other parts) serves its page as the build rendered it.
func liveAnswers(s *server) map[string]liveAnswer {
	answers := map[string]liveAnswer{}
	if s.plans != nil {
		answers["listPlans"] = answerOf[apigen.ListPlans200JSONResponse](s.ListPlans)
	}
	if s.community != nil {
		answers["listBadges"] = answerOf[apigen.ListBadges200JSONResponse](s.ListBadges)
	}
	if s.content != nil {
		answers["getContentHowItWorks"] = answerOf[apigen.GetContentHowItWorks200JSONResponse](s.GetContentHowItWorks)
	}
	return answers
}

var badgeNames = []apigen.BadgeName{apigen.BadgeNameMember, apigen.BadgeNameLeader, apigen.BadgeNameExpert, apigen.BadgeNameMaster}

// liveQueries are the queries pages can be served with, by endpoint name. Their markup is written
// as the app writes it in English (the language of the served page; the app switches to the
// reader's language after hydrating), every value HTML-escaped but the step descriptions, which
// the server rendered from Markdown with raw HTML dropped, as the app shows them.
var liveQueries = map[string]liveQuery{
	"listPlans": {
		parts:  []string{"card"},
		counts: []string{"days"},
		markup: func(t *liveTemplates, answer any) (string, bool, error) {
			list, ok := answer.(apigen.ListPlans200JSONResponse)
			if !ok {
				return "", false, fmt.Errorf("listPlans answered %T", answer)
			}
			var cards strings.Builder
			for _, p := range list.Plans {
				cards.WriteString(t.fill("card",
					"__PLAN_ID__", p.UnderscoreId,
					"__PLAN_NAME__", p.Name,
					"__PLAN_MIN__", usdText(p.Min),
					"__PLAN_MAX__", usdText(p.Max),
					"__PLAN_TERM__", t.count("days", p.TermDays),
					"__PLAN_TERM_RATE__", termRateText(p.TermRate),
					"__PLAN_APR__", aprText(p.Apr),
					"__PLAN_EXAMPLE_AMOUNT__", usdText(p.Example.Amount),
					"__PLAN_EXAMPLE_PAYOUT__", usdText(p.Example.Payout),
					"__PLAN_EXAMPLE_RETURN__", usdText(p.Example.Return),
					"__PLAN_EXAMPLE_TERM__", t.count("days", p.Example.MaturityDays),
				))
			}
			return cards.String(), len(list.Plans) == 0, nil
		},
	},
	"listBadges": {
		parts:  append(levelParts(), "criteria", "criteria.everyAccount"),
		counts: []string{"referrals"},
		markup: func(t *liveTemplates, answer any) (string, bool, error) {
			list, ok := answer.(apigen.ListBadges200JSONResponse)
			if !ok {
				return "", false, fmt.Errorf("listBadges answered %T", answer)
			}
			var cards strings.Builder
			for _, l := range list.Levels {
				card, ok := t.Parts["level."+string(l.Name)]
				if !ok {
					return "", false, fmt.Errorf("no template for the level %q", l.Name)
				}
				criteria := t.Parts["criteria.everyAccount"]
				if l.MinInvested != "0.00" || l.MinReferrals != 0 {
					criteria = t.fill("criteria", "__LEVEL_AMOUNT__", dollarsText(l.MinInvested), "__LEVEL_REFERRALS__", t.count("referrals", l.MinReferrals))
				}
				cards.WriteString(strings.Replace(card, "__LEVEL_CRITERIA__", criteria, 1))
			}
			return cards.String(), len(list.Levels) == 0, nil
		},
	},
	"getContentHowItWorks": {
		parts: []string{"body", "body.intro", "step", "step.link"},
		markup: func(t *liveTemplates, answer any) (string, bool, error) {
			how, ok := answer.(apigen.GetContentHowItWorks200JSONResponse)
			if !ok {
				return "", false, fmt.Errorf("getContentHowItWorks answered %T", answer)
			}
			var steps strings.Builder
			for _, st := range how.Steps {
				template, link, linkName := "step", "", ""
				if st.Link != nil {
					// As the app names it: "Go to " and the title in lower case.
					template, link, linkName = "step.link", *st.Link, strings.ToLower(st.Title)
				}
				step := t.fill(template, "/__STEP_LINK__", link, "__STEP_LINK_NAME__", linkName, "__STEP_TITLE__", st.Title)
				// Filled last, so that nothing in them is taken for a token: an unknown icon is drawn
				// as nothing, as the app does.
				step = strings.Replace(step, "__STEP_ICON__", t.Parts["icon."+st.Icon], 1)
				steps.WriteString(strings.Replace(step, "__STEP_DESCRIPTION__", st.DescriptionHtml, 1))
			}
			body := t.Parts["body"]
			if how.Intro != "" {
				body = t.fill("body.intro", "__HOW_INTRO__", how.Intro)
			}
			return strings.Replace(body, "__HOW_STEPS__", steps.String(), 1), len(how.Steps) == 0, nil
		},
	},
}

func levelParts() []string {
	parts := make([]string, 0, len(badgeNames))
	for _, n := range badgeNames {
		parts = append(parts, "level."+string(n))
	}
	return parts
}

func parseLiveTemplates(b []byte, withOrigin func([]byte) []byte) (*liveTemplates, error) {
	var t liveTemplates
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	q, ok := liveQueries[t.Query]
	if !ok {
		return nil, fmt.Errorf("the server cannot fill a page with the query %q", t.Query)
	}
	if t.Marker == "" || strings.Count(t.Page, t.Marker) != 1 || t.Empty == "" || t.DataID == "" ||
		!strings.Contains(t.Page, "</body>") || !strings.Contains(t.Empty, "</body>") {
		return nil, fmt.Errorf("incomplete page templates")
	}
	for _, name := range q.parts {
		if t.Parts[name] == "" {
			return nil, fmt.Errorf("no template %q", name)
		}
	}
	for _, name := range q.counts {
		if !strings.Contains(t.Counts[name].Other, "{count}") {
			return nil, fmt.Errorf("no words for the count %q", name)
		}
	}
	t.Page = string(withOrigin([]byte(t.Page)))
	t.Empty = string(withOrigin([]byte(t.Empty)))
	return &t, nil
}

// livePage renders a page with its query's answer, keeping the last rendering while the answer is
// the same (the page then costs the query and a comparison).
type livePage struct {
	templates *liveTemplates
	mu        sync.Mutex
	lastData  []byte
	lastPage  []byte
}

func (p *livePage) render(answer any) ([]byte, error) {
	t := p.templates
	// The query's answer as the API would give it, for the app's store. json.Marshal escapes <, >
	// and &, so the data cannot end the <script> element it is in.
	data, err := json.Marshal([]map[string]any{{"endpointName": t.Query, "arg": nil, "value": answer}})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastPage != nil && bytes.Equal(data, p.lastData) {
		return p.lastPage, nil
	}
	markup, empty, err := liveQueries[t.Query].markup(t, answer)
	if err != nil {
		return nil, err
	}
	page := t.Empty
	if !empty {
		page = strings.Replace(t.Page, t.Marker, markup, 1)
	}
	script := `<script type="application/json" id="` + html.EscapeString(t.DataID) + `">` + string(data) + `</script>`
	i := strings.LastIndex(page, "</body>")
	out := []byte(page[:i] + script + page[i:])
	p.lastData, p.lastPage = data, out
	return out, nil
}

// fill is the template part with each token replaced by its value, HTML-escaped.
func (t *liveTemplates) fill(part string, tokensAndValues ...string) string {
	for i := 1; i < len(tokensAndValues); i += 2 {
		tokensAndValues[i] = html.EscapeString(tokensAndValues[i])
	}
	return strings.NewReplacer(tokensAndValues...).Replace(t.Parts[part])
}

// count is the words for n of something, as the app writes them ("1 day", "1,250 days").
func (t *liveTemplates) count(name string, n int) string {
	words := t.Counts[name]
	form := words.Other
	if n == 1 {
		form = words.One
	}
	return strings.ReplaceAll(form, "{count}", groupThousands(strconv.Itoa(n)))
}

// The English number formats of the UI (ui/src/components/money.ts and planWords.ts), for the
// decimal strings the API sends. They are only used on values the server produced, which are
// always well-formed; anything else is shown as the UI's placeholder.
const noAmount = "—"

// dollarsText: a level's amount as its criteria read, cents only when there are some: "1000.00" →
// "$1,000" (ui/src/features/community/levelWords.ts).
func dollarsText(amount string) string {
	return strings.TrimSuffix(usdText(amount), ".00")
}

// usdText: "1234.5" → "$1,234.50", rounded half-even to the cent like the UI.
func usdText(amount string) string {
	d, err := decimal.NewFromString(amount)
	if err != nil {
		return noAmount
	}
	d = d.RoundBank(2)
	sign := ""
	if d.IsNegative() {
		sign = "-"
		d = d.Neg()
	}
	whole, frac, _ := strings.Cut(d.StringFixed(2), ".")
	return sign + "$" + groupThousands(whole) + "." + frac
}

// termRateText: the rate for the term as a percentage with at least two decimals and every digit
// there is: "0.0040" → "0.40%", "0.00125" → "0.125%".
func termRateText(rate string) string {
	d, err := decimal.NewFromString(rate)
	if err != nil || d.IsNegative() {
		return noAmount
	}
	return percentText(d.Shift(2).String(), 2)
}

// aprText: the annual rate, already in percent, with the digits the server sent: "4.87" → "4.87%".
func aprText(apr string) string {
	if _, err := decimal.NewFromString(apr); err != nil || strings.HasPrefix(apr, "-") {
		return noAmount
	}
	_, frac, _ := strings.Cut(apr, ".")
	return percentText(apr, len(frac))
}

// percentText writes a non-negative decimal with at least minDigits decimals (trailing zeros
// beyond them dropped), grouped thousands and a percent sign.
func percentText(number string, minDigits int) string {
	whole, frac, _ := strings.Cut(number, ".")
	frac = strings.TrimRight(frac, "0")
	for len(frac) < minDigits {
		frac += "0"
	}
	if frac != "" {
		frac = "." + frac
	}
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	return groupThousands(whole) + frac + "%"
}

// groupThousands puts commas between groups of three digits: "1234567" → "1,234,567".
func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

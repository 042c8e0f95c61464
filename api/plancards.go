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
	projplans "clearvest/projections/plans"
)

// The plan catalogue page is served complete: a visitor (or a crawler) without JavaScript sees
// every active plan with its terms, and the app hydrates that markup from the same data sent along
// as JSON, so the list never appears late or changes size. The build cannot know the catalogue
// (it lives in the database and staff change it), so it leaves templates (ui/scripts/prerender.mjs)
// and the server fills them with the plans of the moment. See docs/public-site.md.

// planTemplates is the build's dist/prerendered/<page>.plans.json.
type planTemplates struct {
	// The page with Marker where the cards go, and the page of an empty catalogue.
	Page  string `json:"page"`
	Empty string `json:"empty"`
	// One card with a token for each part (PLAN_CARD_TOKENS in ui/src/features/plans/PlansPage.tsx).
	Card   string `json:"card"`
	Marker string `json:"marker"`
	// The term in words, {count} standing for the number of days.
	Term struct {
		One   string `json:"one"`
		Other string `json:"other"`
	} `json:"term"`
	// The id of the <script type="application/json"> the app reads the data from (app/preloaded.ts).
	DataID string `json:"dataId"`
}

func parsePlanTemplates(b []byte, withOrigin func([]byte) []byte) (*planTemplates, error) {
	var t planTemplates
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	if t.Marker == "" || strings.Count(t.Page, t.Marker) != 1 || t.Card == "" || t.Empty == "" || t.DataID == "" ||
		!strings.Contains(t.Term.Other, "{count}") || !strings.Contains(t.Page, "</body>") || !strings.Contains(t.Empty, "</body>") {
		return nil, fmt.Errorf("incomplete plan templates")
	}
	t.Page = string(withOrigin([]byte(t.Page)))
	t.Empty = string(withOrigin([]byte(t.Empty)))
	return &t, nil
}

// activePlans lists the catalogue as the page shows it: what GET /api/invest/plans answers.
type activePlans func(ctx context.Context) ([]projplans.Plan, error)

// planPage renders the catalogue page, keeping the last rendering while the catalogue is the same
// (the page then costs one query and a comparison).
type planPage struct {
	templates *planTemplates
	mu        sync.Mutex
	lastData  []byte
	lastPage  []byte
}

func (p *planPage) render(list []projplans.Plan) ([]byte, error) {
	answer := apigen.ListPlans200JSONResponse{Plans: make([]apigen.Plan, 0, len(list))}
	for _, pl := range list {
		answer.Plans = append(answer.Plans, planJSON(pl))
	}
	// The query's answer as the API would give it, for the app's store. json.Marshal escapes <, >
	// and &, so the data cannot end the <script> element it is in.
	data, err := json.Marshal([]map[string]any{{"endpointName": "listPlans", "arg": nil, "value": answer}})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastPage != nil && bytes.Equal(data, p.lastData) {
		return p.lastPage, nil
	}
	t := p.templates
	page := t.Empty
	if len(answer.Plans) > 0 {
		var cards strings.Builder
		for _, pl := range answer.Plans {
			cards.WriteString(t.card(pl))
		}
		page = strings.Replace(t.Page, t.Marker, cards.String(), 1)
	}
	script := `<script type="application/json" id="` + html.EscapeString(t.DataID) + `">` + string(data) + `</script>`
	i := strings.LastIndex(page, "</body>")
	out := []byte(page[:i] + script + page[i:])
	p.lastData, p.lastPage = data, out
	return out, nil
}

// card fills the card template with one plan, written as the app writes it in English (the
// language of the served page; the app switches to the reader's language after hydrating).
func (t *planTemplates) card(p apigen.Plan) string {
	parts := []string{
		"__PLAN_ID__", p.UnderscoreId,
		"__PLAN_NAME__", p.Name,
		"__PLAN_MIN__", usdText(p.Min),
		"__PLAN_MAX__", usdText(p.Max),
		"__PLAN_TERM__", t.term(p.TermDays),
		"__PLAN_TERM_RATE__", termRateText(p.TermRate),
		"__PLAN_APR__", aprText(p.Apr),
		"__PLAN_EXAMPLE_AMOUNT__", usdText(p.Example.Amount),
		"__PLAN_EXAMPLE_PAYOUT__", usdText(p.Example.Payout),
		"__PLAN_EXAMPLE_RETURN__", usdText(p.Example.Return),
		"__PLAN_EXAMPLE_TERM__", t.term(p.Example.MaturityDays),
	}
	for i := 1; i < len(parts); i += 2 {
		parts[i] = html.EscapeString(parts[i])
	}
	return strings.NewReplacer(parts...).Replace(t.Card)
}

func (t *planTemplates) term(days int) string {
	form := t.Term.Other
	if days == 1 {
		form = t.Term.One
	}
	return strings.ReplaceAll(form, "{count}", groupThousands(strconv.Itoa(days)))
}

// The English number formats of the UI (ui/src/components/money.ts and planWords.ts), for the
// decimal strings the API sends. They are only used on values the server produced, which are
// always well-formed; anything else is shown as the UI's placeholder.
const noAmount = "—"

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

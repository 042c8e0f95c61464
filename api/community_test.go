package api_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/community"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/app/plans"
	"clearvest/domain/clock"
	dcommunity "clearvest/domain/community"
	"clearvest/domain/plan"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/activity"
	"clearvest/projections/investments"
	"clearvest/projections/ledger"
	"clearvest/projections/referrals"
	"clearvest/projections/testimonials"
	"clearvest/projections/wallets"
)

// newCommunityApp is the investing API (identity checks, plans, money) with the community
// service and every read model it reads. minimum is the public counts' minimum.
func newCommunityApp(t *testing.T, minimum int) *investApp {
	t.Helper()
	env := kyctest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		plan.RegisterEvents(codec)
		testimonial.RegisterEvents(codec)
		return []projections.Projection{ledger.New(codec), wallets.New(codec), investments.New(codec), referrals.New(codec),
			testimonials.New(codec), activity.New(codec)}
	}, money.Migrations, plans.Migrations, community.Migrations))
	planSvc, err := plans.New(plans.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Now())
	svc := newMoneyService(t, env.Env, env.Commands, planSvc, clk)
	comm, err := community.New(community.Config{MinInvestors: minimum, MinCountries: minimum}, community.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	a := serve(t, env.Env, func(d *api.Deps) { d.Money, d.KYC, d.Plans, d.Community = svc, env.KYC, planSvc, comm })
	ia := &investApp{app: a, money: svc, plans: planSvc, clock: clk}
	ia.staff, _ = a.member(t, "sam@example.com", "author")
	return ia
}

type testimonialsJSON struct {
	Testimonials []struct {
		ID      string `json:"_id"`
		Name    string `json:"name"`
		Country string `json:"country"`
		Text    string `json:"text"`
		Date    string `json:"date"`
		Email   string `json:"email"`
		UserID  string `json:"userId"`
	} `json:"testimonials"`
}

type myTestimonialJSON struct {
	Eligible    bool `json:"eligible"`
	Testimonial *struct {
		ID     string `json:"_id"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"testimonial"`
}

const experience = "Clear terms, and my first plan paid out on the day it said it would."

func TestTestimonialIsWrittenByAVerifiedInvestorAndModerated(t *testing.T) {
	t.Parallel()
	a := newCommunityApp(t, 1)
	anon := a.browser(t)
	admin, _ := a.member(t, "ada@example.com", "admin")

	// Not signed in: 401. Signed in without a confirmed deposit: 422, nothing stored.
	expect(t, anon.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience}), http.StatusUnauthorized)
	newcomer, _ := a.member(t, "new@example.com", "subscriber")
	res := newcomer.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience})
	expect(t, res, http.StatusUnprocessableEntity)
	if msg := errorMessage(t, res); !strings.Contains(msg, "verified investors") {
		t.Errorf("not eligible: %q", msg)
	}
	if mine := decodeJSON[myTestimonialJSON](t, newcomer.do(http.MethodGet, "/api/testimonials/mine", nil)); mine.Eligible || mine.Testimonial != nil {
		t.Errorf("newcomer: %+v", mine)
	}

	investor, investorID := a.investor(t, "grace@example.com", "400")
	expect(t, investor.do(http.MethodPatch, "/api/users/updateUser", map[string]string{"name": "Grace Brewster Hopper", "country": "Germany"}), http.StatusOK)
	a.CatchUp(t)
	if mine := decodeJSON[myTestimonialJSON](t, investor.do(http.MethodGet, "/api/testimonials/mine", nil)); !mine.Eligible || mine.Testimonial != nil {
		t.Errorf("investor before writing: %+v", mine)
	}
	for _, bad := range []string{"", "Too short.", strings.Repeat("x", testimonial.MaxTextRunes+1)} {
		res := investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": bad})
		expect(t, res, http.StatusBadRequest)
		if msg := errorMessage(t, res); msg != "Your testimonial must be 20 to 600 characters." {
			t.Errorf("text %q: %q", bad, msg)
		}
	}

	// Two submissions at once: one is stored, the other is told it has one already.
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience}).status
		}()
	}
	wg.Wait()
	if !(statuses[0] == http.StatusCreated && statuses[1] == http.StatusConflict) && !(statuses[1] == http.StatusCreated && statuses[0] == http.StatusConflict) {
		t.Fatalf("concurrent submissions: %v, want one 201 and one 409", statuses)
	}

	// Nothing public until staff approve; staff see it in the queue, with who wrote it.
	a.staff.position = max(a.staff.position, investor.position)
	queue := decodeJSON[testimonialsJSON](t, a.staff.do(http.MethodGet, "/api/testimonials/pending", nil))
	if len(queue.Testimonials) != 1 || queue.Testimonials[0].Text != experience || queue.Testimonials[0].Email != "grace@example.com" ||
		queue.Testimonials[0].UserID != investorID {
		t.Fatalf("queue: %+v", queue)
	}
	id := queue.Testimonials[0].ID
	expect(t, investor.do(http.MethodGet, "/api/testimonials/pending", nil), http.StatusForbidden)
	expect(t, investor.do(http.MethodPut, "/api/testimonials/"+id+"/approve", nil), http.StatusForbidden)
	if public := decodeJSON[testimonialsJSON](t, anon.do(http.MethodGet, "/api/testimonials", nil)); len(public.Testimonials) != 0 {
		t.Fatalf("public before approval: %+v", public)
	}

	expect(t, a.staff.do(http.MethodPut, "/api/testimonials/"+id+"/approve", nil), http.StatusOK)
	res = admin.do(http.MethodPut, "/api/testimonials/"+id+"/reject", map[string]string{"reason": "Too late"})
	expect(t, res, http.StatusConflict)
	if msg := errorMessage(t, res); msg != "This testimonial was already decided." {
		t.Errorf("second decision: %q", msg)
	}
	expect(t, a.staff.do(http.MethodPut, "/api/testimonials/00000000-0000-7000-8000-000000000000/approve", nil), http.StatusNotFound)
	expect(t, a.staff.do(http.MethodPut, "/api/testimonials/not-an-id/approve", nil), http.StatusNotFound)

	a.CatchUp(t)
	raw := anon.do(http.MethodGet, "/api/testimonials", nil)
	expect(t, raw, http.StatusOK)
	public := decodeJSON[testimonialsJSON](t, raw)
	if len(public.Testimonials) != 1 || public.Testimonials[0].Name != "Grace H." || public.Testimonials[0].Country != "Germany" ||
		public.Testimonials[0].Text != experience || public.Testimonials[0].Date == "" {
		t.Fatalf("public: %+v", public)
	}
	if strings.Contains(string(raw.body), "grace@example.com") || strings.Contains(string(raw.body), investorID) || strings.Contains(string(raw.body), "Brewster") {
		t.Errorf("the public list shows personal data: %s", raw.body)
	}
	// Approved: no second one.
	expect(t, investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience + " Again."}), http.StatusConflict)
}

func TestRejectedTestimonialFreesThePlaceForANewOne(t *testing.T) {
	t.Parallel()
	a := newCommunityApp(t, 1)
	investor, _ := a.investor(t, "grace@example.com", "400")
	a.CatchUp(t)
	res := investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience})
	expect(t, res, http.StatusCreated)
	id := decodeJSON[struct {
		ID string `json:"_id"`
	}](t, res).ID
	expect(t, investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience}), http.StatusConflict)

	a.staff.position = max(a.staff.position, investor.position)
	res = a.staff.do(http.MethodPut, "/api/testimonials/"+id+"/reject", map[string]string{"reason": "  "})
	expect(t, res, http.StatusBadRequest)
	if msg := errorMessage(t, res); msg != "A reason of 1 to 500 characters is required." {
		t.Errorf("empty reason: %q", msg)
	}
	expect(t, a.staff.do(http.MethodPut, "/api/testimonials/"+id+"/reject", map[string]string{"reason": "Please leave out the wallet address."}), http.StatusOK)
	investor.position = max(investor.position, a.staff.position)
	mine := decodeJSON[myTestimonialJSON](t, investor.do(http.MethodGet, "/api/testimonials/mine", nil))
	if mine.Testimonial == nil || mine.Testimonial.Status != "Rejected" || mine.Testimonial.Reason != "Please leave out the wallet address." {
		t.Fatalf("after rejection: %+v", mine)
	}
	expect(t, investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience}), http.StatusCreated)
}

type activityJSON struct {
	Activities []struct {
		ID      string `json:"id"`
		Kind    string `json:"kind"`
		Message string `json:"message"`
		At      string `json:"at"`
	} `json:"activities"`
}

type statsJSON struct {
	Investors *int `json:"investors"`
	Countries *int `json:"countries"`
}

func TestPublicActivityAndCountsAreAnonymised(t *testing.T) {
	t.Parallel()
	a := newCommunityApp(t, 2)
	a.plan(t, "Standard", "300", "500", 1, "0.015")
	anon := a.browser(t)
	if act := decodeJSON[activityJSON](t, anon.do(http.MethodGet, "/api/public/activity", nil)); len(act.Activities) != 0 {
		t.Fatalf("activity before anything happened: %+v", act)
	}

	grace, _ := a.investor(t, "grace@example.com", "400")
	expect(t, grace.do(http.MethodPatch, "/api/users/updateUser", map[string]string{"name": "Grace Hopper", "country": "Germany"}), http.StatusOK)
	inv := a.start(t, grace, "Standard", "300")
	a.staff.position = max(a.staff.position, grace.position)
	expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
	a.CatchUp(t)

	// One investor: below the minimum of 2, so the counts are hidden.
	if st := decodeJSON[statsJSON](t, anon.do(http.MethodGet, "/api/public/stats", nil)); st.Investors != nil || st.Countries != nil {
		t.Fatalf("stats with one investor: %+v", st)
	}
	raw := anon.do(http.MethodGet, "/api/public/activity", nil)
	expect(t, raw, http.StatusOK)
	act := decodeJSON[activityJSON](t, raw)
	var got []string
	for _, x := range act.Activities {
		got = append(got, x.Kind+": "+x.Message)
	}
	want := []string{
		"investment_started: An investor from Germany started a Standard plan",
		"deposit_confirmed: An investor from Germany funded their wallet",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("activity:\n got %q\nwant %q", got, want)
	}
	// Ids and times are digits that may hold "400" or "300" by chance; the rest of the body may not.
	rest := string(raw.body)
	for _, x := range act.Activities {
		rest = strings.ReplaceAll(strings.ReplaceAll(rest, `"`+x.ID+`"`, `""`), `"`+x.At+`"`, `""`)
	}
	for _, secret := range []string{"Grace", "grace@", "400", "300"} {
		if strings.Contains(rest, secret) {
			t.Errorf("the activity shows %q: %s", secret, raw.body)
		}
	}

	// A second investor, without a known country.
	a.investor(t, "alan@example.com", "100")
	a.CatchUp(t)
	st := decodeJSON[statsJSON](t, anon.do(http.MethodGet, "/api/public/stats", nil))
	if st.Investors == nil || *st.Investors != 2 || st.Countries != nil {
		t.Fatalf("stats with two investors in one known country: %+v", st)
	}
	act = decodeJSON[activityJSON](t, anon.do(http.MethodGet, "/api/public/activity", nil))
	if len(act.Activities) != 3 || act.Activities[0].Message != "An investor funded their wallet" {
		t.Fatalf("activity after the second investor: %+v", act)
	}
}

type badgeJSON struct {
	Current string `json:"current"`
	Next    *struct {
		Name         string `json:"name"`
		MinInvested  string `json:"minInvested"`
		MinReferrals int    `json:"minReferrals"`
	} `json:"next"`
	Invested  string `json:"invested"`
	Referrals int    `json:"referrals"`
	Percent   int    `json:"percent"`
}

func TestBadgesFollowTheReadModels(t *testing.T) {
	t.Parallel()
	a := newCommunityApp(t, 1)
	a.plan(t, "Standard", "300", "500", 1, "0.015")
	anon := a.browser(t)
	levels := decodeJSON[struct {
		Levels []struct {
			Name         string `json:"name"`
			MinInvested  string `json:"minInvested"`
			MinReferrals int    `json:"minReferrals"`
		} `json:"levels"`
	}](t, anon.do(http.MethodGet, "/api/badges", nil))
	if len(levels.Levels) != 4 || levels.Levels[0].Name != dcommunity.Member || levels.Levels[1].MinInvested != "1000.00" || levels.Levels[3].Name != dcommunity.Master {
		t.Fatalf("levels: %+v", levels)
	}
	expect(t, anon.do(http.MethodGet, "/api/users/badge", nil), http.StatusUnauthorized)

	grace, _ := a.investor(t, "grace@example.com", "500")
	a.CatchUp(t)
	b := decodeJSON[badgeJSON](t, grace.do(http.MethodGet, "/api/users/badge", nil))
	if b.Current != dcommunity.Member || b.Next == nil || b.Next.Name != dcommunity.Leader || b.Invested != "0.00" || b.Percent != 0 {
		t.Fatalf("before investing: %+v", b)
	}
	inv := a.start(t, grace, "Standard", "500")
	a.staff.position = max(a.staff.position, grace.position)
	expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
	grace.position = max(grace.position, a.staff.position)
	b = decodeJSON[badgeJSON](t, grace.do(http.MethodGet, "/api/users/badge", nil))
	// $500 of $1,000 and 0 of 1 referral: a quarter of the way.
	if b.Current != dcommunity.Member || b.Invested != "500.00" || b.Referrals != 0 || b.Percent != 25 {
		t.Fatalf("after investing: %+v", b)
	}
}

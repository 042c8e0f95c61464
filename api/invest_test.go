package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/api/middleware"
	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/app/plans"
	"clearvest/domain/clock"
	"clearvest/domain/plan"
	"clearvest/domain/reference"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/investments"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// investApp is the API with the identity checks, the plan catalogue and the money service. The
// money service reads its own manual clock, so a test moves an investment to its end date
// without ageing anyone's session.
type investApp struct {
	*app
	money *money.Service
	plans *plans.Service
	clock *clock.Manual
	staff *client
}

func newInvestApp(t *testing.T) *investApp {
	t.Helper()
	return newInvestAppOf(t, false)
}

// newInvestAppWithHistory is newInvestApp with the withdrawals and the history read models too, so
// a test can set what staff see beside what the investor sees.
func newInvestAppWithHistory(t *testing.T) *investApp {
	t.Helper()
	return newInvestAppOf(t, true)
}

func newInvestAppOf(t *testing.T, withHistory bool) *investApp {
	t.Helper()
	var svc *money.Service
	env := kyctest.New(t, closeChecked(&svc), accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		plan.RegisterEvents(codec)
		models := []projections.Projection{ledger.New(codec), wallets.New(codec), investments.New(codec)}
		if withHistory {
			models = append(models, withdrawals.New(codec), history.New(codec))
		}
		return models
	}, money.Migrations, plans.Migrations))
	planSvc, err := plans.New(plans.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Now())
	svc = newMoneyService(t, env.Env, env.Commands, planSvc, clk)
	a := serve(t, env.Env, func(d *api.Deps) { d.Money, d.KYC, d.Plans = svc, env.KYC, planSvc })
	ia := &investApp{app: a, money: svc, plans: planSvc, clock: clk}
	ia.staff, _ = a.member(t, "sam@example.com", "author")
	return ia
}

func (a *investApp) plan(t *testing.T, name, min, max string, days int, rate string) {
	t.Helper()
	if _, err := a.plans.Create(context.Background(), eventstore.Metadata{}, plans.CreateInput{Name: name, Terms: planTerms(min, max, days, rate), Active: true}); err != nil {
		t.Fatal(err)
	}
}

// kycApproved uploads identity documents as c and has staff approve them.
func (a *investApp) kycApproved(t *testing.T, c *client, userID string) {
	t.Helper()
	jpg := jpegFile(t)
	expect(t, uploadKYC(t, c, nil, front(jpg), back(jpg)), http.StatusOK)
	a.staff.position = max(a.staff.position, c.position)
	expect(t, a.staff.do(http.MethodPatch, "/api/users/kyc/"+userID+"/approve", map[string]any{}), http.StatusOK)
}

// investor is a verified, identity-checked investor with balance confirmed from a deposit.
func (a *investApp) investor(t *testing.T, email, balance string) (*client, string) {
	t.Helper()
	c, u := a.member(t, email, "subscriber")
	a.kycApproved(t, c, u.ID)
	if balance != "" {
		d := createUSDT(t, c, balance, "")
		expect(t, a.staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": balance}), http.StatusOK)
		c.position = max(c.position, a.staff.position)
	}
	return c, u.ID
}

type investmentJSON struct {
	ID             string     `json:"_id"`
	Reference      string     `json:"reference"`
	Plan           string     `json:"plan"`
	PlanVersion    int        `json:"planVersion"`
	Amount         string     `json:"amount"`
	Status         string     `json:"status"`
	TermDays       int        `json:"termDays"`
	TermRate       string     `json:"termRate"`
	APR            string     `json:"apr"`
	MaturityAmount string     `json:"maturityAmount"`
	Payout         string     `json:"payout"`
	Forfeited      string     `json:"forfeited"`
	Instruction    string     `json:"instruction"`
	ClosedEarly    bool       `json:"closedEarly"`
	ReinvestedAs   string     `json:"reinvestedAs"`
	ReinvestedFrom string     `json:"reinvestedFrom"`
	StartDate      *time.Time `json:"startDate"`
	EndDate        *time.Time `json:"endDate"`
	Reason         string     `json:"reason"`
	User           *struct {
		Email string `json:"email"`
	} `json:"user"`
}

// start invests as the invest page does: the quote first, then the request with the plan
// version the quote showed.
func (a *investApp) start(t *testing.T, c *client, plan, amount string) investmentJSON {
	t.Helper()
	res := c.do(http.MethodGet, "/api/invest/quote?planName="+url.QueryEscape(plan)+"&amount="+url.QueryEscape(amount), nil)
	expect(t, res, http.StatusOK)
	q := decodeJSON[struct{ PlanVersion int }](t, res)
	res = c.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": plan, "amount": amount, "planVersion": q.PlanVersion})
	expect(t, res, http.StatusOK)
	return decodeJSON[investmentJSON](t, res)
}

// atVersion is a start request's body with the plan version the investor saw.
func atVersion(body map[string]string, version int) map[string]any {
	out := map[string]any{"planVersion": version}
	for k, v := range body {
		out[k] = v
	}
	return out
}

func getInvestment(t *testing.T, c *client, id string) investmentJSON {
	t.Helper()
	res := c.do(http.MethodGet, "/api/invest/investment/"+id, nil)
	expect(t, res, http.StatusOK)
	inv := decodeJSON[investmentJSON](t, res)
	// The investor knows it by its reference, the same as its rows in the history.
	if want := reference.For(reference.Investment, inv.ID); inv.Reference != want {
		t.Errorf("investment %s: reference %q, want %q", inv.ID, inv.Reference, want)
	}
	return inv
}

type settledJSON struct {
	Settled []investmentJSON `json:"settled"`
}

func TestInvestmentFlowFromQuoteToMaturity(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "500")
	oscar, _ := a.member(t, "oscar@example.com", "subscriber")

	// The confirmation step's figures come from the server: 200.05 × 0.015 = 3.00075 → 3.00.
	res := ivy.do(http.MethodGet, "/api/invest/quote?planName=basic&amount=200.05", nil)
	expect(t, res, http.StatusOK)
	q := decodeJSON[struct {
		Plan, Amount, TermRate, APR, Return, Payout, Available string
		TermDays                                               int
		MaturesAt                                              time.Time
	}](t, res)
	if q.Plan != "Basic" || q.Amount != "200.05" || q.TermRate != "0.0150" || q.APR != "18.25" || q.Return != "3.00" ||
		q.Payout != "203.05" || q.Available != "500.00" || q.TermDays != 30 || !q.MaturesAt.Equal(a.clock.Now().Add(30*24*time.Hour)) {
		t.Fatalf("quote: %s", res.body)
	}

	inv := a.start(t, ivy, "Basic", "200.05")
	if inv.Status != "Pending" || inv.Plan != "Basic" || inv.Amount != "200.05" || inv.MaturityAmount != "3.00" || inv.Payout != "203.05" ||
		inv.APR != "18.25" || inv.Instruction != "payout" || inv.StartDate != nil || inv.User != nil {
		t.Fatalf("started: %+v", inv)
	}
	if m := a.MailsTo(t, "ivy@example.com", "We received your investment request"); len(m) != 1 || !strings.Contains(m[0].Text, "$200.05") ||
		!strings.Contains(m[0].Text, "1.50% for the term, 18.25% a year") {
		t.Fatalf("request mails: %+v", m)
	}
	if b := balances(t, ivy); b.Balance != "299.95" {
		t.Fatalf("balance while pending: %+v", b)
	}
	res = ivy.do(http.MethodGet, "/api/invest/investment-history", nil)
	expect(t, res, http.StatusOK)
	if h := decodeJSON[struct{ Investments []investmentJSON }](t, res); len(h.Investments) != 1 || h.Investments[0].ID != inv.ID {
		t.Fatalf("history: %s", res.body)
	}

	// Another investor learns nothing; a subscriber may not decide.
	expect(t, oscar.do(http.MethodGet, "/api/invest/investment/"+inv.ID, nil), http.StatusNotFound)
	expect(t, oscar.do(http.MethodGet, "/api/invest/investment/not-an-id", nil), http.StatusNotFound)
	expect(t, oscar.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusForbidden)
	expect(t, oscar.do(http.MethodGet, "/api/invest/adminPendingInvestment", nil), http.StatusForbidden)
	expect(t, oscar.do(http.MethodPut, "/api/invest/"+inv.ID+"/instruction", map[string]string{"instruction": "reinvest"}), http.StatusNotFound)

	a.staff.position = max(a.staff.position, ivy.position)
	res = a.staff.do(http.MethodGet, "/api/invest/adminPendingInvestment", nil)
	expect(t, res, http.StatusOK)
	queue := decodeJSON[struct {
		PendingInvestments []struct {
			Investment investmentJSON
			AgeSeconds int64
		}
	}](t, res)
	if len(queue.PendingInvestments) != 1 || queue.PendingInvestments[0].Investment.ID != inv.ID ||
		queue.PendingInvestments[0].Investment.User == nil || queue.PendingInvestments[0].Investment.User.Email != "ivy@example.com" {
		t.Fatalf("queue: %s", res.body)
	}

	approvedAt := a.clock.Now().Truncate(time.Microsecond) // as PostgreSQL keeps it
	res = a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil)
	expect(t, res, http.StatusOK)
	if e := decodeJSON[struct{ Message string }](t, res); e.Message != "Investment approved successfully!" {
		t.Fatalf("approve: %s", res.body)
	}
	for _, second := range []response{
		a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil),
		a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/reject", map[string]string{"reason": "late"}),
	} {
		expect(t, second, http.StatusConflict)
		if e := decodeError(t, second); e.Message != "This investment was already decided" {
			t.Fatalf("second decision: %+v", e)
		}
	}
	ivy.position = max(ivy.position, a.staff.position)
	got := getInvestment(t, ivy, inv.ID)
	wantEnd := approvedAt.UTC().AddDate(0, 0, 30)
	if got.Status != "Active" || got.MaturityAmount != "3.00" || got.Payout != "203.05" || got.StartDate == nil ||
		!got.StartDate.Equal(approvedAt) || got.EndDate == nil || !got.EndDate.Equal(wantEnd) {
		t.Fatalf("approved: %+v", got)
	}
	if m := a.MailsTo(t, "ivy@example.com", "Your investment in the Basic plan is active"); len(m) != 1 ||
		!strings.Contains(m[0].Text, "$203.05") || !strings.Contains(m[0].Text, wantEnd.Format("2 January 2006")) {
		t.Fatalf("approval mails: %+v", m)
	}
	if b := balances(t, ivy); b.Balance != "299.95" || b.InvestmentBalance != "200.05" {
		t.Fatalf("balances while active: %+v", b)
	}

	// Half way: the estimate is half the return, labelled an estimate by the UI.
	a.clock.Advance(15 * 24 * time.Hour)
	res = ivy.do(http.MethodGet, "/api/invest/investment/"+inv.ID, nil)
	if e := decodeJSON[struct {
		ProgressPercent int
		AccruedEstimate string
	}](t, res); e.ProgressPercent != 50 || e.AccruedEstimate != "1.50" {
		t.Fatalf("half way: %s", res.body)
	}
	// Not due yet: settling now changes nothing.
	res = ivy.do(http.MethodPost, "/api/invest/deposit-maturity", nil)
	expect(t, res, http.StatusOK)
	if s := decodeJSON[settledJSON](t, res); len(s.Settled) != 0 {
		t.Fatalf("settled before the end: %s", res.body)
	}
	a.clock.Advance(15 * 24 * time.Hour)
	// Due now, but a GET settles nothing: it is not a way to move money (a link or an image of
	// another site could send one).
	expect(t, ivy.do(http.MethodGet, "/api/invest/deposit-maturity", nil), http.StatusMethodNotAllowed)
	if got := getInvestment(t, ivy, inv.ID); got.Status != "Active" {
		t.Fatalf("a GET of the settlement route ended the investment: %+v", got)
	}
	res = ivy.do(http.MethodPost, "/api/invest/deposit-maturity", nil)
	expect(t, res, http.StatusOK)
	if s := decodeJSON[settledJSON](t, res); len(s.Settled) != 1 || s.Settled[0].ID != inv.ID || s.Settled[0].Status != "Ended" {
		t.Fatalf("settled: %s", res.body)
	}
	res = ivy.do(http.MethodPost, "/api/invest/deposit-maturity", nil)
	expect(t, res, http.StatusOK)
	if s := decodeJSON[settledJSON](t, res); len(s.Settled) != 0 {
		t.Fatalf("settled twice: %s", res.body)
	}
	if b := balances(t, ivy); b.Balance != "503.00" || b.InvestmentBalance != "0.00" {
		t.Fatalf("balances after maturity: %+v", b)
	}
	if got := getInvestment(t, ivy, inv.ID); got.Status != "Ended" {
		t.Fatalf("after maturity: %+v", got)
	}
	if m := a.MailsTo(t, "ivy@example.com", "matured"); len(m) != 1 || !strings.Contains(m[0].Text, "$203.05 was paid") {
		t.Fatalf("maturity mails: %+v", m)
	}
}

func TestStartInvestmentInputIsChecked(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "500")
	cases := []struct {
		body    map[string]string
		status  int
		message string
	}{
		{map[string]string{"planName": "", "amount": "200"}, http.StatusBadRequest, "Please select an investment plan."},
		{map[string]string{"planName": "Gold", "amount": "200"}, http.StatusUnprocessableEntity, "This plan is not available. Please select another plan."},
		{map[string]string{"planName": "Basic", "amount": "abc"}, http.StatusBadRequest, "Please enter a valid amount"},
		{map[string]string{"planName": "Basic", "amount": "0"}, http.StatusBadRequest, "Amount must be greater than zero"},
		{map[string]string{"planName": "Basic", "amount": "99.99"}, http.StatusUnprocessableEntity, "Amount must be between $100.00 and $1,000.00 for the Basic plan"},
		{map[string]string{"planName": "Basic", "amount": "1000.01"}, http.StatusUnprocessableEntity, "Amount must be between $100.00 and $1,000.00 for the Basic plan"},
		{map[string]string{"planName": "Basic", "amount": "500.01"}, http.StatusUnprocessableEntity, "Insufficient balance: $500.00 is available"},
	}
	for _, tc := range cases {
		for _, res := range []response{
			ivy.do(http.MethodPost, "/api/invest/start-invest", atVersion(tc.body, 1)),
			ivy.do(http.MethodGet, "/api/invest/quote?planName="+tc.body["planName"]+"&amount="+tc.body["amount"], nil),
		} {
			if res.status != tc.status {
				t.Errorf("%v: status %d, want %d; %s", tc.body, res.status, tc.status, res.body)
				continue
			}
			if e := decodeError(t, res); e.Message != tc.message {
				t.Errorf("%v: message %q, want %q", tc.body, e.Message, tc.message)
			}
		}
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.investment_requested'`); n != 0 {
		t.Fatalf("%d investments recorded by refused requests", n)
	}
}

func TestStartInvestmentNeedsAVerifiedEmailAndAnApprovedIdentity(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	if _, err := a.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: "Una", Email: "una@example.com", Password: testPassword, Role: "subscriber",
	}); err != nil {
		t.Fatal(err)
	}
	una := a.browser(t)
	expect(t, una.do(http.MethodPost, "/api/users/login", map[string]string{"email": "una@example.com", "password": testPassword}), http.StatusAccepted)
	expect(t, una.do(http.MethodPost, "/api/users/loginWithCode/una@example.com",
		map[string]string{"loginCode": a.LatestCode(t, "una@example.com", "sign-in code")}), http.StatusOK)
	expectMessage(t, una.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Basic", "amount": "100", "planVersion": 1}),
		http.StatusForbidden, "Please verify your email before investing.")

	vic, _ := a.member(t, "vic@example.com", "subscriber")
	expectMessage(t, vic.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Basic", "amount": "100", "planVersion": 1}),
		http.StatusForbidden, "Please upload your identity documents before investing.")
	expect(t, uploadKYC(t, vic, nil, front(jpegFile(t)), back(jpegFile(t))), http.StatusOK)
	expectMessage(t, vic.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Basic", "amount": "100", "planVersion": 1}),
		http.StatusForbidden, "Your identity documents are being reviewed. You can invest once they are approved.")
}

func TestRejectedInvestmentReleasesTheHoldAndAnyStaffMayDecide(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "500")
	ada, _ := a.member(t, "ada@example.com", "admin")
	first := a.start(t, ivy, "Basic", "300")
	second := a.start(t, ivy, "Basic", "150")

	expectMessage(t, a.staff.do(http.MethodPut, "/api/invest/"+first.ID+"/reject", map[string]string{"reason": "  "}),
		http.StatusBadRequest, "Please enter a reason")
	expect(t, a.staff.do(http.MethodPut, "/api/invest/"+first.ID+"/reject", map[string]string{"reason": "Source of funds unclear"}), http.StatusOK)
	expect(t, ada.do(http.MethodPut, "/api/invest/"+second.ID+"/approve", nil), http.StatusOK)
	expect(t, ada.do(http.MethodPut, "/api/invest/00000000-0000-0000-0000-000000000000/approve", nil), http.StatusNotFound)

	ivy.position = max(ivy.position, a.staff.position, ada.position)
	if got := getInvestment(t, ivy, first.ID); got.Status != "Rejected" || got.Reason != "Source of funds unclear" {
		t.Fatalf("rejected: %+v", got)
	}
	if b := balances(t, ivy); b.Balance != "350.00" || b.InvestmentBalance != "150.00" {
		t.Fatalf("balances: %+v", b)
	}
	if m := a.MailsTo(t, "ivy@example.com", "not approved"); len(m) != 1 || !strings.Contains(m[0].Text, "Source of funds unclear") ||
		!strings.Contains(m[0].Text, "$300.00 is back") {
		t.Fatalf("rejection mails: %+v", m)
	}
}

func TestConcurrentInvestmentDecisionsDecideOnce(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, ivyID := a.investor(t, "ivy@example.com", "500")
	ada, _ := a.member(t, "ada@example.com", "admin")
	inv := a.start(t, ivy, "Basic", "100")
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i, c := range []*client{a.staff, ada} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				statuses[i] = c.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil).status
			} else {
				statuses[i] = c.do(http.MethodPut, "/api/invest/"+inv.ID+"/reject", map[string]string{"reason": "no"}).status
			}
		}()
	}
	wg.Wait()
	if !(statuses[0] == http.StatusOK && statuses[1] == http.StatusConflict) && !(statuses[0] == http.StatusConflict && statuses[1] == http.StatusOK) {
		t.Fatalf("statuses %v, want one 200 and one 409", statuses)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type IN ('account.investment_activated', 'account.investment_rejected')`,
		"account-"+ivyID); n != 1 {
		t.Fatalf("%d decision events, want 1", n)
	}
}

// TestMaturityJobsSettleOnceWhenRunTogether runs the maturity job of two "processes" (two
// services, each with its own command runner, as two serve processes have) at the same time.
func TestMaturityJobsSettleOnceWhenRunTogether(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 7, "0.01")
	var ids []string
	for _, email := range []string{"ivy@example.com", "ian@example.com", "iris@example.com"} {
		c, id := a.investor(t, email, "400")
		inv := a.start(t, c, "Basic", "333.33")
		expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
		ids = append(ids, id)
	}
	a.clock.Advance(7 * 24 * time.Hour)
	a.CatchUp(t)

	other := newMoneyService(t, a.Env, command.NewRunner(a.Store, a.Codec), a.plans, a.clock)
	jobs := []*money.MaturityJob{a.money.MaturityJob(time.Hour), other.MaturityJob(time.Hour)}
	counts := make([]int, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := j.RunOnce(context.Background())
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		}()
	}
	wg.Wait()
	if counts[0]+counts[1] != 3 {
		t.Fatalf("the jobs settled %v investments, want 3 in all", counts)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.investment_matured'`); n != 3 {
		t.Fatalf("%d maturity events, want 3", n)
	}
	// The read model catches up and nothing is due any more; a further pass does nothing.
	a.CatchUp(t)
	if n, err := jobs[0].RunOnce(context.Background()); err != nil || n != 0 {
		t.Fatalf("a pass after settling: %d, %v", n, err)
	}
	for _, id := range ids {
		var bal string
		if err := a.Pool.QueryRow(context.Background(), `SELECT available::text FROM rm_ledger.figures WHERE user_id = $1`, id).Scan(&bal); err != nil {
			t.Fatal(err)
		}
		if bal != "403.33" {
			t.Errorf("available of %s = %s, want 403.33 (400 + 333.33 × 0.01 = 3.3333 → 3.33)", id, bal)
		}
	}
	if m := a.MailsTo(t, "ian@example.com", "matured"); len(m) != 1 {
		t.Fatalf("%d maturity mails, want 1", len(m))
	}
}

func TestEarlyRedemptionReturnsThePrincipalAndForfeitsTheReturn(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "500")
	ada, _ := a.member(t, "ada@example.com", "admin")
	inv := a.start(t, ivy, "Basic", "400")

	// Nothing to redeem while it waits for staff.
	expect(t, ivy.do(http.MethodGet, "/api/invest/"+inv.ID+"/early-redemption", nil), http.StatusConflict)
	expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
	a.clock.Advance(10 * 24 * time.Hour)

	// Only the owner may redeem, staff included.
	expect(t, ada.do(http.MethodGet, "/api/invest/"+inv.ID+"/early-redemption", nil), http.StatusNotFound)
	expect(t, ada.do(http.MethodPost, "/api/invest/"+inv.ID+"/early-redemption", nil), http.StatusNotFound)

	res := ivy.do(http.MethodGet, "/api/invest/"+inv.ID+"/early-redemption", nil)
	expect(t, res, http.StatusOK)
	type redemption struct{ InvestmentID, Principal, Forfeited string }
	if p := decodeJSON[redemption](t, res); p.InvestmentID != inv.ID || p.Principal != "400.00" || p.Forfeited != "6.00" {
		t.Fatalf("preview: %s", res.body)
	}
	res = ivy.do(http.MethodPost, "/api/invest/"+inv.ID+"/early-redemption", nil)
	expect(t, res, http.StatusOK)
	if p := decodeJSON[redemption](t, res); p.Principal != "400.00" || p.Forfeited != "6.00" {
		t.Fatalf("redeemed: %s", res.body)
	}
	expect(t, ivy.do(http.MethodPost, "/api/invest/"+inv.ID+"/early-redemption", nil), http.StatusConflict)
	got := getInvestment(t, ivy, inv.ID)
	if got.Status != "Ended" || !got.ClosedEarly || got.Forfeited != "6.00" {
		t.Fatalf("after redemption: %+v", got)
	}
	if b := balances(t, ivy); b.Balance != "500.00" || b.InvestmentBalance != "0.00" {
		t.Fatalf("balances: %+v", b)
	}
	// An ended investment takes no instruction.
	expect(t, ivy.do(http.MethodPut, "/api/invest/"+inv.ID+"/instruction", map[string]string{"instruction": "reinvest"}), http.StatusConflict)
}

func TestReinvestInstructionStartsANewInvestmentOnTheSameTerms(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "500")
	inv := a.start(t, ivy, "Basic", "200")

	expectMessage(t, ivy.do(http.MethodPut, "/api/invest/"+inv.ID+"/instruction", map[string]string{"instruction": "later"}),
		http.StatusBadRequest, "Please choose what happens at maturity: pay out or reinvest")
	res := ivy.do(http.MethodPut, "/api/invest/"+inv.ID+"/instruction", map[string]string{"instruction": "reinvest"})
	expect(t, res, http.StatusOK)
	if got := decodeJSON[investmentJSON](t, res); got.Instruction != "reinvest" {
		t.Fatalf("instruction: %s", res.body)
	}
	expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
	// The plan's terms change afterwards: the reinvestment keeps the captured ones.
	if _, err := a.plans.Create(context.Background(), eventstore.Metadata{}, plans.CreateInput{Name: "Other", Terms: planTerms("1", "2", 1, "0.5"), Active: true}); err != nil {
		t.Fatal(err)
	}
	ivy.position = max(ivy.position, a.staff.position)
	end := *getInvestment(t, ivy, inv.ID).EndDate

	a.clock.Advance(31 * 24 * time.Hour)
	res = ivy.do(http.MethodPost, "/api/invest/deposit-maturity", nil)
	expect(t, res, http.StatusOK)
	settled := decodeJSON[settledJSON](t, res)
	if len(settled.Settled) != 1 || settled.Settled[0].ReinvestedAs == "" {
		t.Fatalf("settled: %s", res.body)
	}
	if m := a.MailsTo(t, "ivy@example.com", "matured"); len(m) != 1 || !strings.Contains(m[0].Text, "$203.00 was reinvested") {
		t.Fatalf("maturity mails: %+v", m)
	}
	next := getInvestment(t, ivy, settled.Settled[0].ReinvestedAs)
	// 203.00 × 0.015 = 3.045 → 3.04 (half-even).
	if next.Status != "Active" || next.Amount != "203.00" || next.MaturityAmount != "3.04" || next.Payout != "206.04" ||
		next.ReinvestedFrom != inv.ID || next.TermDays != 30 || next.TermRate != "0.0150" || next.Instruction != "payout" ||
		!next.StartDate.Equal(end) || !next.EndDate.Equal(end.AddDate(0, 0, 30)) {
		t.Fatalf("reinvestment: %+v", next)
	}
	if old := getInvestment(t, ivy, inv.ID); old.Status != "Ended" || old.ReinvestedAs != next.ID {
		t.Fatalf("old investment: %+v", old)
	}
	if b := balances(t, ivy); b.Balance != "300.00" || b.InvestmentBalance != "203.00" {
		t.Fatalf("balances: %+v", b)
	}
	// The new investment is the investor's to redeem, like any other.
	expect(t, ivy.do(http.MethodGet, "/api/invest/"+next.ID+"/early-redemption", nil), http.StatusOK)
}

// TestSignInAnswerCarriesTheFigures: the client keeps the sign-in answer as the signed-in user,
// so a dashboard opened right after signing in shows the balance, not zeros.
func TestSignInAnswerCarriesTheFigures(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	// Signed in again at once, from a new browser: its requests carry no position, so the answer
	// itself must wait for the deposit confirmed a moment ago to reach the read models.
	a.investor(t, "ivy@example.com", "123.45")
	b := a.browser(t)
	expect(t, b.do(http.MethodPost, "/api/users/login", map[string]string{"email": "ivy@example.com", "password": testPassword}), http.StatusAccepted)
	res := b.do(http.MethodPost, "/api/users/loginWithCode/ivy@example.com", map[string]string{"loginCode": a.LatestCode(t, "ivy@example.com", "sign-in code")})
	expect(t, res, http.StatusOK)
	if got := decodeJSON[balancesJSON](t, res); got.Balance != "123.45" {
		t.Fatalf("sign-in answer: %s", res.body)
	}
	if res.header.Get(middleware.HeaderStale) != "" {
		t.Fatalf("sign-in answer marked stale: %v", res.header)
	}
}

// A request's Idempotency-Key is claimed by its command: a repeat, even once staff approved the
// investment, gets the request's own answer (Pending), and holds and mails nothing more.
func TestStartInvestmentRepeatGetsTheFirstAnswer(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, id := a.investor(t, "ivy@example.com", "500")
	body := map[string]any{"planName": "Basic", "amount": "200", "planVersion": 1}

	first := ivy.withKey("inv-1", http.MethodPost, "/api/invest/start-invest", body)
	expect(t, first, http.StatusOK)
	inv := decodeJSON[investmentJSON](t, first)
	expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
	again := ivy.withKey("inv-1", http.MethodPost, "/api/invest/start-invest", body)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) {
		t.Fatalf("repeat = %v %s, want the first answer %s", again.header, again.body, first.body)
	}
	expect(t, ivy.withKey("inv-1", http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Basic", "amount": "300", "planVersion": 1}),
		http.StatusUnprocessableEntity)
	if n := a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'account.investment_requested'`, "account-"+id); n != 1 {
		t.Fatalf("%d investment requests stored, want 1", n)
	}
	if m := a.MailsTo(t, "ivy@example.com", "We received your investment request"); len(m) != 1 {
		t.Fatalf("%d request e-mails, want 1", len(m))
	}
	if b := balances(t, ivy); b.Balance != "300.00" {
		t.Fatalf("balance %+v, want 300.00: one investment of 200 held", b)
	}
}

// TestReinvestmentBreakingAPlanRuleIsPaidOut: a reinvestment is a new investment, so at maturity
// it must fit the plan as it is then. One plan's maximum is lowered below the payout, another
// plan is withdrawn: each payout goes to the available balance instead, and the e-mail says
// why. Nothing is lost.
func TestReinvestmentBreakingAPlanRuleIsPaidOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	a.plan(t, "Gold", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "500")
	basic := a.start(t, ivy, "Basic", "200")
	gold := a.start(t, ivy, "Gold", "100")
	for _, inv := range []investmentJSON{basic, gold} {
		expect(t, ivy.do(http.MethodPut, "/api/invest/"+inv.ID+"/instruction", map[string]string{"instruction": "reinvest"}), http.StatusOK)
		a.staff.position = max(a.staff.position, ivy.position)
		expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
	}
	p, err := a.plans.ByName(ctx, "Basic")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.plans.ChangeTerms(ctx, eventstore.Metadata{}, p.ID(), planTerms("100", "150", 30, "0.015")); err != nil {
		t.Fatal(err)
	}
	if p, err = a.plans.ByName(ctx, "Gold"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.plans.SetActive(ctx, eventstore.Metadata{}, p.ID(), false); err != nil {
		t.Fatal(err)
	}

	a.clock.Advance(31 * 24 * time.Hour)
	ivy.position = max(ivy.position, a.staff.position)
	res := ivy.do(http.MethodPost, "/api/invest/deposit-maturity", nil)
	expect(t, res, http.StatusOK)
	settled := decodeJSON[settledJSON](t, res)
	if len(settled.Settled) != 2 || settled.Settled[0].ReinvestedAs != "" || settled.Settled[1].ReinvestedAs != "" {
		t.Fatalf("settled: %s", res.body)
	}
	mails := a.MailsTo(t, "ivy@example.com", "matured")
	var texts []string
	for _, m := range mails {
		texts = append(texts, m.Text)
	}
	all := strings.Join(texts, "\n")
	if len(mails) != 2 ||
		!strings.Contains(all, "$203.00 was paid into your available balance. It was not reinvested as you asked: $203.00 is above the maximum of the Basic plan ($150.00).") ||
		!strings.Contains(all, "$101.50 was paid into your available balance. It was not reinvested as you asked: the Gold plan is no longer offered.") {
		t.Fatalf("maturity mails: %s", all)
	}
	if b := balances(t, ivy); b.Balance != "504.50" || b.InvestmentBalance != "0.00" {
		t.Fatalf("balances: %+v", b)
	}
}

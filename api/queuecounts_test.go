package api_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/approvals"
	"clearvest/app/community"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/app/plans"
	appsupport "clearvest/app/support"
	"clearvest/domain/clock"
	dm "clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/activity"
	"clearvest/projections/history"
	"clearvest/projections/investments"
	"clearvest/projections/ledger"
	"clearvest/projections/proposals"
	"clearvest/projections/referrals"
	"clearvest/projections/testimonials"
	"clearvest/projections/tickets"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// queueCountsJSON is GET /api/staff/queue-counts; a nil field is a queue the server does not run.
type queueCountsJSON struct {
	Deposits       *int `json:"deposits"`
	Withdrawals    *int `json:"withdrawals"`
	Investments    *int `json:"investments"`
	IdentityChecks *int `json:"identityChecks"`
	Approvals      *int `json:"approvals"`
	SupportTickets *int `json:"supportTickets"`
	Testimonials   *int `json:"testimonials"`
}

func queueCounts(t *testing.T, staff *client) queueCountsJSON {
	t.Helper()
	res := staff.do(http.MethodGet, "/api/staff/queue-counts", nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[queueCountsJSON](t, res)
}

func expectCount(t *testing.T, queue string, got *int, want int) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: absent, want %d", queue, want)
	} else if *got != want {
		t.Errorf("%s: %d, want %d", queue, *got, want)
	}
}

// newStaffQueuesApp is the API with every staff queue: money (deposits, withdrawals,
// investments), identity checks, plans, testimonials, support tickets and four-eyes proposals,
// with every read model they read. The four-eyes rule is on at the default thresholds
// (newFourEyesApp).
func newStaffQueuesApp(t *testing.T) *investApp {
	t.Helper()
	env := kyctest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		plan.RegisterEvents(codec)
		testimonial.RegisterEvents(codec)
		return []projections.Projection{ledger.New(codec), wallets.New(codec), investments.New(codec), withdrawals.New(codec),
			history.New(codec), referrals.New(codec), testimonials.New(codec), activity.New(codec), proposals.New(codec), tickets.New(codec)}
	}, money.Migrations, plans.Migrations, community.Migrations, approvals.Migrations))
	planSvc, err := plans.New(plans.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Now())
	svc := newMoneyService(t, env.Env, env.Commands, planSvc, clk, func(c *money.Config) {
		c.Thresholds = money.Thresholds{DepositTolerance: decimal.RequireFromString("0.01"), DepositThreshold: dm.MustParse("10000"),
			WithdrawalThreshold: dm.MustParse("10000"), MaxAmount: dm.MustParse("10000000")}
	})
	comm, err := community.New(community.Config{MinInvestors: 1, MinCountries: 1}, community.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	ap, err := approvals.New(approvals.Deps{Pool: env.Pool, Commands: env.Commands, Clock: env.Clock})
	if err != nil {
		t.Fatal(err)
	}
	svc.RegisterExecutors(ap)
	sup, err := appsupport.New(appsupport.Config{PublicURL: accountstest.PublicURL}, appsupport.Deps{
		Pool: env.Pool, Commands: env.Commands, Sender: env.Sender, Clock: env.Clock, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	a := serve(t, env.Env, func(d *api.Deps) {
		d.Money, d.KYC, d.Plans, d.Community, d.Approvals, d.Support = svc, env.KYC, planSvc, comm, ap, sup
	})
	ia := &investApp{app: a, money: svc, plans: planSvc, clock: clk}
	ia.staff, _ = a.member(t, "sam@example.com", "author")
	return ia
}

// TestQueueCountsSayWhatWaitsInEachQueue: staff see how many items wait in every queue, as the
// queues themselves would list them, and investors and visitors are refused.
func TestQueueCountsSayWhatWaitsInEachQueue(t *testing.T) {
	t.Parallel()
	a := newStaffQueuesApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")

	empty := queueCounts(t, a.staff)
	for name, got := range map[string]*int{"deposits": empty.Deposits, "withdrawals": empty.Withdrawals,
		"investments": empty.Investments, "identity checks": empty.IdentityChecks, "approvals": empty.Approvals,
		"support tickets": empty.SupportTickets, "testimonials": empty.Testimonials} {
		expectCount(t, name, got, 0)
	}

	// An investor with a confirmed deposit starts an investment, asks for another deposit and
	// writes a testimonial; a newcomer sends identity documents; a visitor writes to support
	// twice; a deposit confirmation above the threshold waits for a second admin.
	investor, _ := a.investor(t, "ivy@example.com", "400")
	a.start(t, investor, "Basic", "150")
	createUSDT(t, investor, "50", "")
	expect(t, investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience}), http.StatusCreated)
	newcomer, _ := a.member(t, "new@example.com", "subscriber")
	jpg := jpegFile(t)
	expect(t, uploadKYC(t, newcomer, nil, front(jpg), back(jpg)), http.StatusOK)
	visitor := a.browser(t)
	for _, msg := range []string{"First question", "Second question"} {
		expect(t, visitor.do(http.MethodPost, "/api/support/tickets",
			map[string]string{"user_name": "Ada Visitor", "user_email": "ada@example.com", "message": msg}), http.StatusOK)
	}
	large := createUSDT(t, newcomer, "20000", "")
	a.staff.position = max(a.staff.position, investor.position, newcomer.position)
	proposed(t, confirm(a.staff, large.TransactionID, "20000", "Seen on the explorer"))
	a.CatchUp(t)

	got := queueCounts(t, a.staff)
	expectCount(t, "withdrawals", got.Withdrawals, 0)
	expectCount(t, "investments", got.Investments, 1)
	expectCount(t, "identity checks", got.IdentityChecks, 1)
	expectCount(t, "approvals", got.Approvals, 1)
	expectCount(t, "support tickets", got.SupportTickets, 2)
	expectCount(t, "testimonials", got.Testimonials, 1)
	pendingDeposits := decodeJSON[queuePage](t, a.staff.do(http.MethodGet, "/api/payments/pending-deposit", nil))
	expectCount(t, "deposits (as the deposit queue counts them)", got.Deposits, pendingDeposits.Total)

	// A ticket counts until staff answer it.
	q := decodeJSON[ticketQueueJSON](t, a.staff.do(http.MethodGet, "/api/support/tickets", nil))
	expect(t, a.staff.do(http.MethodPost, "/api/support/tickets/"+q.Tickets[0].ID+"/reply", map[string]string{"message": "Answered."}), http.StatusOK)
	expectCount(t, "support tickets after an answer", queueCounts(t, a.staff).SupportTickets, 1)

	expect(t, investor.do(http.MethodGet, "/api/staff/queue-counts", nil), http.StatusForbidden)
	expect(t, a.browser(t).do(http.MethodGet, "/api/staff/queue-counts", nil), http.StatusUnauthorized)
}

// TestQueueCountsLeaveOutQueuesTheServerDoesNotRun: a server without the money service counts
// its support tickets and says nothing of deposits.
func TestQueueCountsLeaveOutQueuesTheServerDoesNotRun(t *testing.T) {
	t.Parallel()
	a := newSupportApp(t)
	staff, _ := a.member(t, "author@example.com", "author")
	got := queueCounts(t, staff)
	expectCount(t, "support tickets", got.SupportTickets, 0)
	if got.Deposits != nil || got.Withdrawals != nil || got.Investments != nil || got.IdentityChecks != nil ||
		got.Approvals != nil || got.Testimonials != nil {
		t.Errorf("queues this server does not run are counted: %+v", got)
	}
}

package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/shopspring/decimal"

	"clearvest/api"
	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/approvals"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/identity"
	dm "clearvest/domain/money"
	"clearvest/domain/proposal"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/ledger"
	"clearvest/projections/proposals"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// newFourEyesApp is the money API with the four-eyes rule on, at the default thresholds: 1 %
// tolerance, $10,000.00 for deposits and withdrawals, a $10,000,000.00 ceiling.
func newFourEyesApp(t *testing.T) *app {
	t.Helper()
	env := kyctest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		return []projections.Projection{ledger.New(codec), wallets.New(codec), withdrawals.New(codec), history.New(codec), proposals.New(codec)}
	}, money.Migrations, approvals.Migrations))
	svc := newMoneyService(t, env.Env, env.Commands, nil, env.Clock, func(c *money.Config) {
		c.Thresholds = money.Thresholds{DepositTolerance: decimal.RequireFromString("0.01"), DepositThreshold: dm.MustParse("10000"),
			WithdrawalThreshold: dm.MustParse("10000"), MaxAmount: dm.MustParse("10000000")}
	})
	ap, err := approvals.New(approvals.Deps{Pool: env.Pool, Commands: env.Commands, Clock: env.Clock})
	if err != nil {
		t.Fatal(err)
	}
	svc.RegisterExecutors(ap)
	env.Accounts.RegisterExecutors(ap)
	return serve(t, env.Env, func(d *api.Deps) { d.Money, d.Approvals, d.KYC = svc, ap, env.KYC })
}

type proposalCreatedJSON struct {
	Message    string `json:"message"`
	ProposalID string `json:"proposalId"`
}

type proposalListJSON struct {
	Pending []struct {
		ID       string            `json:"id"`
		Kind     string            `json:"kind"`
		Amount   string            `json:"amount"`
		Why      string            `json:"why"`
		Reason   string            `json:"reason"`
		Params   map[string]string `json:"params"`
		Proposer struct {
			ID string `json:"_id"`
		} `json:"proposer"`
	} `json:"pending"`
	Recent []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"recent"`
	Thresholds struct {
		DepositTolerancePercent string `json:"depositTolerancePercent"`
		DepositThreshold        string `json:"depositThreshold"`
		WithdrawalThreshold     string `json:"withdrawalThreshold"`
		MaxAmount               string `json:"maxAmount"`
	} `json:"thresholds"`
}

func proposed(t *testing.T, res response) string {
	t.Helper()
	expect(t, res, http.StatusAccepted)
	p := decodeJSON[proposalCreatedJSON](t, res)
	if p.ProposalID == "" || p.Message == "" {
		t.Fatalf("202 without a proposal: %s", res.body)
	}
	return p.ProposalID
}

func confirm(c *client, txID, amount, notes string) response {
	return c.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": txID, "amount": amount, "notes": notes})
}

func TestALargeDepositConfirmationWaitsForASecondAdmin(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, investorUser := a.member(t, "ivy@example.com", "subscriber")
	author, authorUser := a.member(t, "ann@example.com", "author")
	admin, adminUser := a.member(t, "ada@example.com", "admin")
	investorID, authorID, adminID := investorUser.ID, authorUser.ID, adminUser.ID
	d := createUSDT(t, investor, "20000", "")
	author.position = investor.position

	id := proposed(t, confirm(author, d.TransactionID, "20000", "Seen on the explorer"))
	admin.position = author.position
	if got := balances(t, investor).Balance; got != "0.00" {
		t.Fatalf("balance before the approval = %s, want 0.00", got)
	}

	// The queue shows it, with the rule that asked for a second person and the thresholds.
	res := admin.do(http.MethodGet, "/api/proposals", nil)
	expect(t, res, http.StatusOK)
	q := decodeJSON[proposalListJSON](t, res)
	if len(q.Pending) != 1 || q.Pending[0].ID != id || q.Pending[0].Kind != "deposit_confirmation" || q.Pending[0].Amount != "20000.00" ||
		q.Pending[0].Reason != "Seen on the explorer" || q.Pending[0].Why == "" {
		t.Fatalf("pending = %+v", q.Pending)
	}
	if th := q.Thresholds; th.DepositTolerancePercent != "1" || th.DepositThreshold != "10000.00" || th.WithdrawalThreshold != "10000.00" || th.MaxAmount != "10000000.00" {
		t.Fatalf("thresholds = %+v", th)
	}

	// A second proposal, or a single person's decision, waits for the first.
	expect(t, confirm(author, d.TransactionID, "20000", "again"), http.StatusConflict)
	expect(t, admin.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d.TransactionID, "notes": "no"}), http.StatusConflict)

	// The proposer can neither approve nor reject: an author may not decide proposals at all,
	// and an admin who proposed gets the same 403 (below).
	expect(t, steppedUp(t, author).do(http.MethodPost, "/api/proposals/"+id+"/approve", map[string]string{}), http.StatusForbidden)
	expect(t, steppedUp(t, author).do(http.MethodPost, "/api/proposals/"+id+"/reject", map[string]string{"reason": "x"}), http.StatusForbidden)

	res = steppedUp(t, admin).do(http.MethodPost, "/api/proposals/"+id+"/approve", map[string]string{"reason": "Matches the chain"})
	expect(t, res, http.StatusOK)
	investor.position = admin.position
	if got := balances(t, investor).Balance; got != "20000.00" {
		t.Fatalf("balance after the approval = %s, want 20000.00", got)
	}
	expect(t, steppedUp(t, admin).do(http.MethodPost, "/api/proposals/"+id+"/approve", map[string]string{}), http.StatusConflict)

	// The event names both people.
	e := lastEvent[account.DepositConfirmed](t, a, eventstore.NewStreamID(account.StreamCategory, investorID))
	if e.StaffID != authorID || e.ApprovedBy != adminID || e.ProposalID != id {
		t.Fatalf("deposit_confirmed = %+v, want proposed by %s and approved by %s", e, authorID, adminID)
	}
}

// lastEvent decodes the last event of type E on stream.
func lastEvent[E any](t *testing.T, a *app, stream eventstore.StreamID) E {
	t.Helper()
	envs, err := a.Store.ReadStream(context.Background(), stream, 1, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var zero E
	for i := len(envs) - 1; i >= 0; i-- {
		ev, err := a.Codec.Decode(envs[i])
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(E); ok {
			return e
		}
	}
	t.Fatalf("no %T on %s", zero, stream)
	return zero
}

// hasEvent reports whether stream holds an event of type E.
func hasEvent[E any](t *testing.T, a *app, stream eventstore.StreamID) bool {
	t.Helper()
	envs, err := a.Store.ReadStream(context.Background(), stream, 1, 10000)
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range envs {
		ev, err := a.Codec.Decode(env)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(E); ok {
			return true
		}
	}
	return false
}

// userByID reads a user as the accounts service has it now.
func (a *app) userByID(t *testing.T, id string) accounts.User {
	t.Helper()
	u, err := a.Accounts.User(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestTheProposerOfAnyKindGets403(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	admin, _ := a.member(t, "ada@example.com", "admin")
	second, _ := a.member(t, "bea@example.com", "admin")
	_, target := a.member(t, "tom@example.com", "author")

	expect(t, admin.do(http.MethodPost, "/api/users/upgradeUser", map[string]string{"id": target.ID, "role": "admin"}), http.StatusBadRequest)
	id := proposed(t, admin.do(http.MethodPost, "/api/users/upgradeUser", map[string]string{"id": target.ID, "role": "admin", "reason": "Runs support now"}))
	second.position = admin.position
	expect(t, steppedUp(t, admin).do(http.MethodPost, "/api/proposals/"+id+"/approve", nil), http.StatusForbidden)
	expect(t, steppedUp(t, admin).do(http.MethodPost, "/api/proposals/"+id+"/reject", map[string]string{"reason": "changed my mind"}), http.StatusForbidden)
	expect(t, steppedUp(t, second).do(http.MethodPost, "/api/proposals/"+id+"/approve", map[string]string{}), http.StatusOK)
	if e := lastEvent[identity.RoleChanged](t, a, eventstore.NewStreamID(identity.StreamCategory, target.ID)); e.To != identity.RoleAdmin {
		t.Fatalf("role change after the approval = %+v, want to admin", e)
	}
}

func TestClosingAnAccountNeedsASecondAdmin(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	admin, _ := a.member(t, "ada@example.com", "admin")
	second, _ := a.member(t, "bea@example.com", "admin")
	_, target := a.member(t, "tom@example.com", "subscriber")

	expect(t, admin.do(http.MethodDelete, "/api/users/"+target.ID, nil), http.StatusBadRequest)
	id := proposed(t, admin.do(http.MethodDelete, "/api/users/"+target.ID, map[string]string{"reason": "Asked by the user in ticket 42"}))
	if u := a.userByID(t, target.ID); u.Status == "closed" {
		t.Fatal("the account closed before a second admin approved")
	}
	closedBefore := hasEvent[identity.Closed](t, a, eventstore.NewStreamID(identity.StreamCategory, target.ID))
	second.position = admin.position
	res := steppedUp(t, second).do(http.MethodPost, "/api/proposals/"+id+"/reject", map[string]string{"reason": ""})
	expect(t, res, http.StatusBadRequest)
	expect(t, steppedUp(t, second).do(http.MethodPost, "/api/proposals/"+id+"/approve", nil), http.StatusOK)
	if closedBefore || !hasEvent[identity.Closed](t, a, eventstore.NewStreamID(identity.StreamCategory, target.ID)) {
		t.Fatalf("closed before the approval: %v; the approval must close it", closedBefore)
	}
	res = second.do(http.MethodGet, "/api/proposals", nil)
	expect(t, res, http.StatusOK)
	if q := decodeJSON[proposalListJSON](t, res); len(q.Pending) != 0 || len(q.Recent) != 1 || q.Recent[0].Status != string(proposal.StatusApproved) {
		t.Fatalf("queue after the approval = %+v", q)
	}
}

func TestDepositConfirmationsThatDifferFromTheDeclaredAmount(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	author, _ := a.member(t, "ann@example.com", "author")

	small := createUSDT(t, investor, "10", "")
	author.position = investor.position
	// $1,000,000.00 confirmed on a $10.00 deposit, with no reason: refused; with one: a proposal.
	res := confirm(author, small.TransactionID, "1000000", "")
	expect(t, res, http.StatusBadRequest)
	proposed(t, confirm(author, small.TransactionID, "1000000", "Investor sent more"))

	// Within the 1 % tolerance and below the threshold, one person decides.
	near := createUSDT(t, investor, "1000", "")
	author.position = investor.position
	expect(t, confirm(author, near.TransactionID, "1009.99", ""), http.StatusOK)

	// Above the ceiling: 422, whoever asks.
	other := createUSDT(t, investor, "50", "")
	author.position = investor.position
	expect(t, confirm(author, other.TransactionID, "10000000.01", "typo"), http.StatusUnprocessableEntity)
	res = investor.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "10000000.01", "asset": "USDT", "network": "TRC20"})
	expect(t, res, http.StatusUnprocessableEntity)
}

func TestStaffNeverDecideOnAccountsTiedByAReferral(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	staffBrowser, _ := a.member(t, "sam@example.com", "author")
	res := staffBrowser.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusOK)
	code := decodeJSON[struct {
		ReferralCode string `json:"referralCode"`
	}](t, res).ReferralCode
	investor, _ := (&referralApp{app: a}).referred(t, "Rita", "rita@example.com", code)
	d := createUSDT(t, investor, "100", "")
	staffBrowser.position = investor.position
	res = confirm(staffBrowser, d.TransactionID, "100", "")
	expect(t, res, http.StatusUnprocessableEntity)
	if e := decodeError(t, res); e.Message != money.ErrTied.Error() {
		t.Fatalf("message = %q", e.Message)
	}
}

func TestALargePayoutIsSentByTheSecondAdmin(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, investorUser := a.member(t, "ivy@example.com", "subscriber")
	investorID := investorUser.ID
	author, _ := a.member(t, "ann@example.com", "author")
	admin, _ := a.member(t, "ada@example.com", "admin")
	d := createUSDT(t, investor, "15000", "")
	author.position = investor.position
	id := proposed(t, confirm(author, d.TransactionID, "15000", "Arrived in one transfer"))
	admin.position = author.position
	expect(t, steppedUp(t, admin).do(http.MethodPost, "/api/proposals/"+id+"/approve", nil), http.StatusOK)
	investor.position = admin.position

	clearedToWithdraw(t, a, investor, author)
	w := withdraw(t, investor, "12000", "TRC20", testTRONAddress)
	author.position = investor.position
	path := "/api/withDraw/approve/" + w.ID
	// Above the threshold the proposer does not pay out: a hash from them is refused.
	expect(t, author.do(http.MethodPut, path, map[string]string{"txHash": testHash("paid by the proposer"), "reason": "ok"}), http.StatusBadRequest)
	expect(t, author.do(http.MethodPut, path, map[string]string{}), http.StatusBadRequest)
	pid := proposed(t, author.do(http.MethodPut, path, map[string]string{"reason": "Verified the address with the investor"}))
	admin.position = author.position
	// The approver pays out and records the hash; without one nothing is approved.
	expect(t, steppedUp(t, admin).do(http.MethodPost, "/api/proposals/"+pid+"/approve", map[string]string{}), http.StatusBadRequest)
	payout := testHash("paid by the approver")
	expect(t, steppedUp(t, admin).do(http.MethodPost, "/api/proposals/"+pid+"/approve", map[string]string{"txHash": payout}), http.StatusOK)
	e := lastEvent[account.WithdrawalApproved](t, a, eventstore.NewStreamID(account.StreamCategory, investorID))
	if e.TxHash != payout || e.ApprovedBy == "" || e.ApprovedBy == e.StaffID || e.ProposalID != pid {
		t.Fatalf("withdrawal_approved = %+v", e)
	}
}

func TestTwoAdminsApprovingAtOnceDecideOnce(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, investorUser := a.member(t, "ivy@example.com", "subscriber")
	author, _ := a.member(t, "ann@example.com", "author")
	admins := []*client{}
	for _, email := range []string{"ada@example.com", "bea@example.com", "cy@example.com"} {
		c, _ := a.member(t, email, "admin")
		admins = append(admins, c)
	}
	d := createUSDT(t, investor, "25000", "")
	author.position = investor.position
	id := proposed(t, confirm(author, d.TransactionID, "25000", "Large but matches"))
	statuses := make(chan int, len(admins))
	for _, c := range admins {
		c.position = author.position
		go func() {
			statuses <- steppedUp(t, c).do(http.MethodPost, "/api/proposals/"+id+"/approve", map[string]string{}).status
		}()
	}
	count := map[int]int{}
	for range admins {
		count[<-statuses]++
	}
	if count[http.StatusOK] != 1 || count[http.StatusConflict] != len(admins)-1 {
		t.Fatalf("statuses = %v, want one 200 and the rest 409", count)
	}
	credits := 0
	envs, err := a.Store.ReadStream(context.Background(), eventstore.NewStreamID(account.StreamCategory, investorUser.ID), 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range envs {
		if e.Type == account.TypeDepositConfirmed {
			credits++
		}
	}
	if credits != 1 {
		t.Fatalf("%d confirmations, want 1", credits)
	}
}

// steppedUp confirms it's the person (their password) before a proposal's decision, which needs
// a fresh step-up.
func steppedUp(t *testing.T, c *client) *client {
	t.Helper()
	expect(t, c.do(http.MethodPost, "/api/users/step-up", map[string]string{"password": testPassword}), http.StatusOK)
	return c
}

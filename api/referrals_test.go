package api_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/app/referrals"
	"clearvest/domain/account"
	dm "clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/platform/config"
	"clearvest/projections"
	"clearvest/projections/ledger"
	rmreferrals "clearvest/projections/referrals"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// referralApp is the API with the money service, the referrals service and the read models they
// need. The reactor does not run in the background: tests step it, so they decide when it
// reacts, how many run at once and where one crashes.
type referralApp struct {
	*app
	reactor *referrals.Reactor
}

func newReferralApp(t *testing.T) *referralApp {
	t.Helper()
	env := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		return []projections.Projection{ledger.New(codec), wallets.New(codec), withdrawals.New(codec), rmreferrals.New(codec)}
	}, money.Migrations))
	svc := newMoneyService(t, env, env.Commands, nil, env.Clock)
	bonus, err := config.ParseReferralBonus("")
	if err != nil {
		t.Fatal(err)
	}
	limits, err := config.LoadLimits(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	reactor, err := referrals.New(referrals.Config{Bonus: bonus, MinDeposit: limits.ReferralMinDeposit, PublicURL: accountstest.PublicURL}, referrals.Deps{
		Pool: env.Pool, Store: env.Store, Commands: env.Commands, Sender: env.Sender, Clock: env.Clock, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	a := serve(t, env, func(d *api.Deps) { d.Money = svc; d.Referrals = reactor })
	return &referralApp{app: a, reactor: reactor}
}

// runner is one process's reactor runner (each test may start several on the same database).
func (a *referralApp) runner(t *testing.T) *projections.ReactorRunner {
	t.Helper()
	r, err := projections.NewReactorRunner(a.Pool, a.Store, a.reactor, projections.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (a *referralApp) react(t *testing.T) {
	t.Helper()
	if err := a.runner(t).CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

type referralsJSON struct {
	ReferralCode string `json:"referralCode"`
	ReferralLink string `json:"referralLink"`
	Bonus        string `json:"bonus"`
	TotalEarned  string `json:"totalEarned"`
	Message      string `json:"message"`
	Referrals    []struct {
		ID        string  `json:"_id"`
		Name      string  `json:"name"`
		Photo     string  `json:"photo"`
		JoinedAt  string  `json:"joinedAt"`
		Qualified bool    `json:"qualified"`
		Closed    bool    `json:"closed"`
		Bonus     *string `json:"bonus"`
	} `json:"referrals"`
}

func (a *referralApp) referrals(t *testing.T, c *client) referralsJSON {
	t.Helper()
	a.CatchUp(t)
	res := c.do(http.MethodGet, "/api/users/referrals", nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[referralsJSON](t, res)
}

// referred registers a new investor through the API with a referral code, verifies their e-mail
// and returns them signed in.
func (a *referralApp) referred(t *testing.T, name, email, code string) (*client, string) {
	t.Helper()
	b := a.browser(t)
	res := b.do(http.MethodPost, "/api/users/register", map[string]any{
		"name": name, "email": email, "password": testPassword, "confirmPassword": testPassword,
		"phone": "+44 20 7946 0018", "country": "United Kingdom", "referralCode": code, "acceptTerms": true,
	})
	expect(t, res, http.StatusCreated)
	u := decodeUser(t, res)
	token := a.LatestLink(t, email, "/verify/")
	expect(t, b.do(http.MethodPatch, "/api/users/verifyUser/"+token, nil), http.StatusOK)
	return b, u.ID
}

// depositConfirmed has the investor declare a deposit and staff confirm it.
func depositConfirmed(t *testing.T, investor, staff *client, amount string) {
	t.Helper()
	d := createUSDT(t, investor, amount, "")
	staff.position = max(staff.position, investor.position)
	expect(t, staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": amount}), http.StatusOK)
}

// bonuses lists the referral bonus events on userID's money stream.
func (a *referralApp) bonuses(t *testing.T, userID string) []eventstore.Envelope {
	t.Helper()
	envs, err := a.Store.ReadStream(context.Background(), eventstore.NewStreamID(account.StreamCategory, userID), 1, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []eventstore.Envelope
	for _, e := range envs {
		if e.Type == account.TypeReferralBonusCredited {
			out = append(out, e)
		}
	}
	return out
}

// confirmations lists the deposit confirmations on userID's money stream.
func (a *referralApp) confirmations(t *testing.T, userID string) []eventstore.Envelope {
	t.Helper()
	envs, err := a.Store.ReadStream(context.Background(), eventstore.NewStreamID(account.StreamCategory, userID), 1, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []eventstore.Envelope
	for _, e := range envs {
		if e.Type == account.TypeDepositConfirmed {
			out = append(out, e)
		}
	}
	return out
}

func (a *referralApp) balanced(t *testing.T) {
	t.Helper()
	a.CatchUp(t)
	tb, err := ledger.ReadTrialBalance(context.Background(), a.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if !tb.Balanced() {
		t.Fatalf("the books do not balance: %+v", tb)
	}
}

func TestReferralBonusIsCreditedOnceOnTheFirstConfirmedDeposit(t *testing.T) {
	t.Parallel()
	a := newReferralApp(t)
	referrer, referrerUser := a.member(t, "rita@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	stranger, _ := a.member(t, "oscar@example.com", "subscriber")

	mine := a.referrals(t, referrer)
	if mine.Message != "No referrals" || len(mine.Referrals) != 0 || mine.ReferralCode == "" || mine.Bonus != "5.00" || mine.TotalEarned != "0.00" ||
		mine.ReferralLink != accountstest.PublicURL+"/register?ref="+mine.ReferralCode {
		t.Fatalf("before any referral: %+v", mine)
	}

	friend, friendID := a.referred(t, "Bea Friend", "bea@example.com", mine.ReferralCode)
	mine = a.referrals(t, referrer)
	if mine.Message != "" || len(mine.Referrals) != 1 || mine.Referrals[0].ID != friendID || mine.Referrals[0].Name != "Bea Friend" ||
		mine.Referrals[0].Qualified || mine.Referrals[0].Bonus != nil || mine.Referrals[0].JoinedAt == "" {
		t.Fatalf("after the registration: %+v", mine)
	}

	// A rejected deposit qualifies nobody.
	d := createUSDT(t, friend, "50", "")
	staff.position = max(staff.position, friend.position)
	expect(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d.TransactionID, "notes": "Nothing arrived"}), http.StatusOK)
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 0 {
		t.Fatalf("a rejected deposit credited %d bonuses", n)
	}

	// The first confirmed deposit: two processes react at once, and the bonus is credited once.
	depositConfirmed(t, friend, staff, "100")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		r := a.runner(t)
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.CatchUp(context.Background()) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	got := a.bonuses(t, referrerUser.ID)
	if len(got) != 1 {
		t.Fatalf("%d bonus events, want 1", len(got))
	}
	cause := a.confirmations(t, friendID)[0]
	if got[0].Metadata.CausationID != cause.ID.String() {
		t.Fatalf("bonus causation %q, want the confirmation's id %s", got[0].Metadata.CausationID, cause.ID)
	}
	if mails := a.MailsTo(t, "rita@example.com", "You earned a $5.00 referral bonus"); len(mails) != 1 {
		t.Fatalf("%d bonus e-mails, want 1", len(mails))
	}

	// A later deposit credits nothing.
	depositConfirmed(t, friend, staff, "30")
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 1 {
		t.Fatalf("after a second deposit: %d bonus events, want 1", n)
	}

	mine = a.referrals(t, referrer)
	if len(mine.Referrals) != 1 || !mine.Referrals[0].Qualified || mine.Referrals[0].Bonus == nil || *mine.Referrals[0].Bonus != "5.00" ||
		mine.TotalEarned != "5.00" || mine.Message != "" {
		t.Fatalf("after the bonus: %+v", mine)
	}
	res := referrer.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusOK)
	if b := decodeJSON[balancesJSON](t, res); b.Balance != "5.00" {
		t.Fatalf("referrer's balance %s, want 5.00", b.Balance)
	}

	// Nobody sees another user's referrals: the friend and a stranger see only their own.
	for _, c := range []*client{friend, stranger} {
		if other := a.referrals(t, c); len(other.Referrals) != 0 || other.Message != "No referrals" || other.ReferralCode == mine.ReferralCode {
			t.Fatalf("another user's view: %+v", other)
		}
	}
	expect(t, a.browser(t).do(http.MethodGet, "/api/users/referrals", nil), http.StatusUnauthorized)
	a.balanced(t)
}

func TestReferralBonusIsNotCreditedTwiceAfterACrashBeforeTheCheckpoint(t *testing.T) {
	t.Parallel()
	a := newReferralApp(t)
	referrer, referrerUser := a.member(t, "rita@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	code := a.referrals(t, referrer).ReferralCode
	friend, friendID := a.referred(t, "Bea Friend", "bea@example.com", code)
	depositConfirmed(t, friend, staff, "100")

	// The process dies after the credit committed and before its checkpoint did.
	crash := errors.New("killed before the checkpoint")
	crashing := a.runner(t)
	crashing.SetAfterReact(func(e eventstore.Envelope) error {
		if e.Type == account.TypeDepositConfirmed {
			return crash
		}
		return nil
	})
	if err := crashing.CatchUp(context.Background()); !errors.Is(err, crash) {
		t.Fatalf("crashing run: %v", err)
	}
	if n := len(a.bonuses(t, referrerUser.ID)); n != 1 {
		t.Fatalf("after the crash: %d bonus events, want 1 (the credit committed)", n)
	}
	before, err := projections.ReactorPosition(context.Background(), a.Pool, referrals.Name)
	if err != nil {
		t.Fatal(err)
	}
	if cause := a.confirmations(t, friendID)[0]; before >= cause.Position {
		t.Fatalf("checkpoint %d already past the confirmation at %d", before, cause.Position)
	}

	// The next run replays the confirmation: the aggregate refuses a second bonus, which the
	// reactor takes as done, and moves on.
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 1 {
		t.Fatalf("after the replay: %d bonus events, want 1", n)
	}
	after, err := projections.ReactorPosition(context.Background(), a.Pool, referrals.Name)
	if err != nil {
		t.Fatal(err)
	}
	if cause := a.confirmations(t, friendID)[0]; after < cause.Position {
		t.Fatalf("checkpoint %d is still before the confirmation at %d", after, cause.Position)
	}
	if mails := a.MailsTo(t, "rita@example.com", "referral bonus"); len(mails) != 1 {
		t.Fatalf("%d bonus e-mails, want 1", len(mails))
	}
	a.balanced(t)
}

func TestAClosedReferrerEarnsNothingAndTheReactorGoesOn(t *testing.T) {
	t.Parallel()
	a := newReferralApp(t)
	referrer, referrerUser := a.member(t, "rita@example.com", "subscriber")
	admin, _ := a.member(t, "ada@example.com", "admin")
	code := a.referrals(t, referrer).ReferralCode
	friend, friendID := a.referred(t, "Bea Friend", "bea@example.com", code)

	expect(t, admin.do(http.MethodDelete, "/api/users/"+referrerUser.ID, nil), http.StatusOK)
	admin.position = max(admin.position, friend.position)
	depositConfirmed(t, friend, admin, "100")
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 0 {
		t.Fatalf("a closed referrer was credited %d bonuses", n)
	}
	pos, err := projections.ReactorPosition(context.Background(), a.Pool, referrals.Name)
	if err != nil {
		t.Fatal(err)
	}
	if cause := a.confirmations(t, friendID)[0]; pos < cause.Position {
		t.Fatalf("the reactor stalled at %d, before the confirmation at %d", pos, cause.Position)
	}
	a.balanced(t)

	// Closing the referred user's account blanks their name and photo in the read model.
	expect(t, admin.do(http.MethodDelete, "/api/users/"+friendID, nil), http.StatusOK)
	a.CatchUp(t)
	list, err := rmreferrals.List(context.Background(), a.Pool, referrerUser.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "" || list[0].Photo != "" || !list[0].Closed || !list[0].Qualified() {
		t.Fatalf("after the referred user closed: %+v", list)
	}
}

func TestReferralBonusWaitsForTheFirstDepositOfAtLeastTheMinimum(t *testing.T) {
	t.Parallel()
	a := newReferralApp(t)
	referrer, referrerUser := a.member(t, "rita@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	code := a.referrals(t, referrer).ReferralCode
	friend, _ := a.referred(t, "Bea Friend", "bea@example.com", code)

	// $99.99 received is a cent short of the $100.00 minimum: no bonus, and it does not use up
	// the bonus either.
	depositConfirmed(t, friend, staff, "99.99")
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 0 {
		t.Fatalf("a deposit below the minimum credited %d bonuses", n)
	}
	// The first deposit that reaches it earns the bonus.
	depositConfirmed(t, friend, staff, "100.00")
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 1 {
		t.Fatalf("the first deposit of the minimum: %d bonus events, want 1", n)
	}
	// Later ones, large or small, earn nothing more.
	depositConfirmed(t, friend, staff, "500")
	depositConfirmed(t, friend, staff, "20")
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 1 {
		t.Fatalf("after later deposits: %d bonus events, want 1", n)
	}
	a.balanced(t)
}

func TestAReferrerWhoConfirmsTheQualifyingDepositEarnsNothing(t *testing.T) {
	t.Parallel()
	a := newReferralApp(t)
	// The referrer is on the staff. They may not confirm their friend's deposit at all
	// (docs/security.md, "Separation of duties")...
	referrer, referrerUser := a.member(t, "rita@example.com", "author")
	colleague, _ := a.member(t, "sam@example.com", "author")
	code := a.referrals(t, referrer).ReferralCode
	friend, friendID := a.referred(t, "Bea Friend", "bea@example.com", code)
	d := createUSDT(t, friend, "150", "")
	referrer.position = max(referrer.position, friend.position)
	res := referrer.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "150"})
	expect(t, res, http.StatusUnprocessableEntity)

	// ...and a confirmation by the referrer that reached the log anyway (written before that
	// rule, or by a path that skipped it) earns nothing: the reactor checks it again.
	stream := eventstore.NewStreamID(account.StreamCategory, friendID)
	var depositID string
	written, err := command.Execute(context.Background(), a.Commands, stream, account.NewFor(friendID), eventstore.Metadata{},
		func(acc *account.Account) error {
			for _, dep := range acc.Deposits() {
				if dep.TransactionID == d.TransactionID {
					depositID = dep.ID
				}
			}
			return acc.ConfirmDeposit(depositID, dm.MustParse("150"), "", referrerUser.ID, time.Now())
		})
	if err != nil {
		t.Fatal(err)
	}
	colleague.position = max(colleague.position, written.Position)
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 0 {
		t.Fatalf("a deposit the referrer confirmed credited %d bonuses", n)
	}
	// The bonus is gone for good: a colleague confirming the next deposit does not pay it.
	depositConfirmed(t, friend, colleague, "200")
	a.react(t)
	if n := len(a.bonuses(t, referrerUser.ID)); n != 0 {
		t.Fatalf("a later deposit confirmed by a colleague credited %d bonuses", n)
	}
	if mails := a.MailsTo(t, "rita@example.com", "referral bonus"); len(mails) != 0 {
		t.Fatalf("%d bonus e-mails, want none", len(mails))
	}
	a.balanced(t)
}

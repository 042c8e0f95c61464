package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	books "clearvest/domain/ledger"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/projections"
	"clearvest/projections/ledger"
)

// seedMoney writes two users' money histories through the command runner and brings the ledger
// read model up to date.
func seedMoney(t *testing.T) (app *apptest.MoneyApp, alice, bob string) {
	t.Helper()
	app = apptest.NewMoneyApp(t)
	alice, bob, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	m := money.MustParse
	at := time.Now().UTC().Add(-time.Hour)
	terms := account.Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Basic", TermDays: 10, TermRate: "0.0125", Min: m("100"), Max: m("1000")}
	deposit := func(id, amount string) func(*account.Account) error {
		return func(a *account.Account) error {
			return a.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: "T" + id, Amount: m(amount), Asset: "USDT",
				Network: "TRC20", OnChainAmount: amount, USDRate: "1"}, at)
		}
	}
	app.Do(t, alice, deposit("d1", "500"))
	app.Do(t, alice, func(a *account.Account) error { return a.ConfirmDeposit("d1", m("500"), "", staff, at) })
	app.Do(t, bob, deposit("d2", "100"))
	app.Do(t, bob, func(a *account.Account) error { return a.ConfirmDeposit("d2", m("100"), "", staff, at) })
	app.Do(t, alice, func(a *account.Account) error { return a.RequestInvestment("i1", terms, m("250"), at) })
	app.Do(t, alice, func(a *account.Account) error { return a.ActivateInvestment("i1", staff, at) })
	app.Do(t, alice, func(a *account.Account) error { return a.MatureDue(at.AddDate(0, 0, 10)) })
	app.Do(t, alice, func(a *account.Account) error {
		return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: "w1", Amount: m("100"), Fee: m("3"),
			Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT"}, at)
	})
	app.Do(t, alice, func(a *account.Account) error {
		return a.ApproveWithdrawal("w1", account.Payout{TxHash: strings.Repeat("ab", 32)}, staff, at)
	})
	app.Do(t, alice, func(a *account.Account) error { return a.CreditReferralBonus(bob, m("20"), at) })
	app.CatchUp(t, app.Runner(t, []projections.Projection{ledger.New(app.Codec)}))
	return app, alice, bob
}

func verifyMoney(t *testing.T, app *apptest.MoneyApp, lv *ledgerVerifier) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := verifyEvents(testCtx(t), app.Store, newRegistry(), &out, verifyOptions{Now: time.Now(), Verifiers: []logVerifier{lv}})
	return out.String(), err
}

func newTestLedgerVerifier(t *testing.T, app *apptest.MoneyApp) *ledgerVerifier {
	t.Helper()
	lv, err := newLedgerVerifier(testCtx(t), app.Pool, app.Codec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lv.Close)
	return lv
}

func TestVerifyLedgerClean(t *testing.T) {
	t.Parallel()
	app, _, _ := seedMoney(t)
	lv := newTestLedgerVerifier(t, app)
	if lv.model == nil {
		t.Fatal("the verifier did not open the ledger read model")
	}
	out, err := verifyMoney(t, app, lv)
	if err != nil || !strings.HasSuffix(out, "; OK\n") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	if lv.compared != 2 {
		t.Errorf("the read model's figures of %d users were compared with their replay, want 2", lv.compared)
	}

	// Without the read model, the log alone is checked, and passes.
	lv, err = newLedgerVerifier(testCtx(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := verifyMoney(t, app, lv); err != nil {
		t.Fatalf("verify without a read model: %v\n%s", err, out)
	}
}

// TestVerifyLedgerCatchesCorruption writes, around the store, a money event the aggregate would
// never raise (an investment maturing that was never made), and edits the read model by hand.
// The maturity is refused by the rules as well as by the books.
func TestVerifyLedgerCatchesCorruption(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	app, alice, _ := seedMoney(t)
	carol := uuid.NewString()
	data, err := json.Marshal(account.InvestmentMatured{InvestmentID: "ghost", Principal: money.MustParse("1000"),
		Return: money.MustParse("10"), At: time.Now().UTC().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// A low position: below every snapshot's xmin, so read-all sees it at once.
	if _, err := app.Pool.Exec(ctx, `INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
		VALUES (10, $1, $2, 1, 'account.investment_matured', 1, $3, '{}', now())`, uuid.New(), account.Stream(carol), data); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Pool.Exec(ctx, `UPDATE rm_ledger.figures SET available = available + 1 WHERE user_id = $1`, alice); err != nil {
		t.Fatal(err)
	}
	lv := newTestLedgerVerifier(t, app)
	out, err := verifyMoney(t, app, lv)
	if err == nil {
		t.Fatalf("verify passed a corrupt log:\n%s", out)
	}
	for _, want := range []string{
		fmt.Sprintf("position 10 (account-%s v1, account.investment_matured): ledger: account user:%s:invested went below zero: -1000.00 after this event", carol, carol),
		fmt.Sprintf("ledger: stream account-%s: rm_ledger has no figures for the user; the replay up to position %d says available replay 1010.00, rm_ledger 0.00; invested replay -1000.00, rm_ledger 0.00; returns replay 10.00, rm_ledger 0.00",
			carol, lv.modelAt),
		fmt.Sprintf("ledger: stream account-%s: the figures in rm_ledger (as of position %d) differ from a replay of the stream: available expected 423.12, found 424.12",
			alice, lv.modelAt),
		fmt.Sprintf("position 10 (account-%s v1, account.investment_matured): ledger: stream account-%s version 1, account.investment_matured breaks the rule: an investment is decided, matured or redeemed only after it was requested", carol, carol),
		"; 4 failed:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// Figures of the read model for users without a money stream are reported wherever they fall in
// the order the streams are replayed in: before the first, between two, after the last.
func TestVerifyLedgerReportsFiguresWithoutAStream(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	app, alice, bob := seedMoney(t)
	strays := []string{"00000000-0000-7000-8000-000000000000", "ffffffff-0000-7000-8000-000000000000", min(alice, bob) + "0"}
	for _, id := range strays {
		if _, err := app.Pool.Exec(ctx, `INSERT INTO rm_ledger.figures SELECT $1, 5, 0, 0, 0, 0, 0, 0`, id); err != nil {
			t.Fatal(err)
		}
	}
	lv := newTestLedgerVerifier(t, app)
	out, err := verifyMoney(t, app, lv)
	if err == nil {
		t.Fatalf("verify passed figures without a stream:\n%s", out)
	}
	for _, id := range strays {
		if want := fmt.Sprintf("ledger: rm_ledger holds figures for user %s, whose stream account-%s has no events", id, id); !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "; 3 failed:") || lv.compared != 2 {
		t.Errorf("want 3 failures and both users compared (%d):\n%s", lv.compared, out)
	}
}

// TestVerifyLedgerCatchesUnbalancedPostings runs the checks with a posting map that loses a
// posting: every such event and the trial balance must be reported.
func TestVerifyLedgerCatchesUnbalancedPostings(t *testing.T) {
	t.Parallel()
	app, _, _ := seedMoney(t)
	lv := newTestLedgerVerifier(t, app)
	lv.postings = func(userID string, e aggregate.Event) []books.Posting {
		ps := books.Postings(userID, e)
		if _, ok := e.(account.WithdrawalApproved); ok {
			ps = ps[:len(ps)-1] // the fee income is lost
		}
		return ps
	}
	out, err := verifyMoney(t, app, lv)
	if err == nil {
		t.Fatalf("verify passed unbalanced books:\n%s", out)
	}
	for _, want := range []string{
		"account.withdrawal_approved): ledger: the event's postings sum to -3.00, not zero",
		"ledger: the trial balance of all account events sums to -3.00, not zero (platform:custody -600.00, ",
		"the books and the aggregate disagree after this event: fees books 0.00, aggregate 3.00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestVerifyRefusesHistoriesTheRulesForbid appends money histories straight to the store,
// around the aggregate, and runs the real command line: a history the commands could have
// written verifies; one whose books add up but that the rules forbid (a deposit confirmed twice,
// a deposit confirmed by the account's own user) fails, naming the stream, the version and the
// rule. It sets environment variables, so it cannot run in parallel.
func TestVerifyRefusesHistoriesTheRulesForbid(t *testing.T) {
	url, cli := operatorShell(t)
	if out, err := cli("migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	ctx := testCtx(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	t.Cleanup(store.Close)

	m := money.MustParse
	at := time.Now().UTC().Add(-time.Hour)
	staff := uuid.NewString()
	requested := func(id string) account.DepositRequested {
		return account.DepositRequested{DepositID: id, TransactionID: "T" + id, Amount: m("100"), Asset: "USDT", Network: "TRC20",
			OnChainAmount: "100", USDRate: "1", At: at}
	}
	confirmed := func(id, by string) account.DepositConfirmed {
		return account.DepositConfirmed{DepositID: id, Received: m("100"), StaffID: by, At: at}
	}
	write := func(userID string, events ...aggregate.Event) {
		t.Helper()
		var news []eventstore.NewEvent
		for _, e := range events {
			news = append(news, newEvent(t, e.EventName(), e, eventstore.Metadata{}))
		}
		appendVisible(t, store, eventstore.StreamAppend{Stream: eventstore.StreamID(account.Stream(userID)), ExpectedVersion: eventstore.AnyVersion, Events: news})
	}

	alice, bob, carol := uuid.NewString(), uuid.NewString(), uuid.NewString()
	terms := account.Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Basic", TermDays: 10, TermRate: "0.0125", Min: m("10"), Max: m("100")}
	write(alice, requested("d1"), confirmed("d1", staff),
		account.InvestmentRequested{InvestmentID: "i1", Terms: terms, Amount: m("50"), At: at},
		account.InvestmentActivated{InvestmentID: "i1", Amount: m("50"), Return: m("0.62"), Start: at, End: at.AddDate(0, 0, 10), StaffID: staff})
	if out, err := cli("events", "verify"); err != nil || !strings.HasSuffix(out, "; OK\n") {
		t.Fatalf("verify of a history the rules allow: %v\n%s", err, out)
	}

	write(bob, requested("d2"), confirmed("d2", staff), confirmed("d2", staff))
	write(carol, requested("d3"), confirmed("d3", carol))
	out, err := cli("events", "verify")
	if err == nil {
		t.Fatalf("verify passed histories the rules forbid:\n%s", out)
	}
	for _, want := range []string{
		fmt.Sprintf("ledger: stream account-%s version 3, account.deposit_confirmed breaks the rule: a deposit is confirmed or rejected once", bob),
		fmt.Sprintf("ledger: stream account-%s version 2, account.deposit_confirmed breaks the rule: staff never decide or correct money on their own account", carol),
		// The books add up: nothing but the rules sees these.
		"; 2 failed:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// appendAfterRead is a store that appends an event once the read in position order has reached
// the end of the log, as a live system would while verify runs.
type appendAfterRead struct {
	eventstore.Store
	late     eventstore.StreamAppend
	appended bool
	err      error
}

func (s *appendAfterRead) ReadAll(ctx context.Context, after int64, limit int) ([]eventstore.Envelope, error) {
	page, err := s.Store.ReadAll(ctx, after, limit)
	if err == nil && len(page) < limit && !s.appended {
		s.appended = true
		_, s.err = s.Store.Append(ctx, s.late)
	}
	return page, err
}

// TestVerifyLedgerIgnoresEventsAfterTheRead: an event appended after the read in position order
// has passed is not replayed when its stream is read again. Here it is one the rules forbid (a
// deposit confirmed that was never requested), so replaying it would fail the run.
func TestVerifyLedgerIgnoresEventsAfterTheRead(t *testing.T) {
	t.Parallel()
	app, alice, _ := seedMoney(t)
	late := account.DepositConfirmed{DepositID: "ghost", Received: money.MustParse("5"), StaffID: uuid.NewString(), At: time.Now().UTC()}
	store := &appendAfterRead{Store: app.Store, late: eventstore.StreamAppend{Stream: eventstore.StreamID(account.Stream(alice)),
		ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{newEvent(t, late.EventName(), late, eventstore.Metadata{})}}}
	lv := newTestLedgerVerifier(t, app)
	var out bytes.Buffer
	err := verifyEvents(testCtx(t), store, newRegistry(), &out, verifyOptions{Now: time.Now(), Verifiers: []logVerifier{lv}})
	if store.err != nil || !store.appended {
		t.Fatalf("the late event was not appended: %v", store.err)
	}
	if err != nil || !strings.HasSuffix(out.String(), "; OK\n") {
		t.Fatalf("verify: %v\n%s", err, out.String())
	}
	if lv.compared != 2 {
		t.Errorf("%d users' figures were compared with their replay, want 2", lv.compared)
	}
}

// TestVerifyComparesSnapshotsWithTheReplay saves a snapshot of Alice's account as the runner
// would, which verify finds equal to the replay; then puts Bob's state in its place, which it
// reports.
func TestVerifyComparesSnapshotsWithTheReplay(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	app, alice, bob := seedMoney(t)
	state := func(user string) (*account.Account, []byte) {
		envs, err := app.Store.ReadStream(ctx, eventstore.StreamID(account.Stream(user)), 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		acc := account.New(user)
		for _, env := range envs {
			e, err := app.Codec.Decode(env)
			if err != nil {
				t.Fatal(err)
			}
			acc.Apply(e)
		}
		aggregate.Load(acc, int64(len(envs)))
		b, err := acc.MarshalState()
		if err != nil {
			t.Fatal(err)
		}
		kept, err := app.Codec.SealState(eventstore.StreamID(account.Stream(user)), b)
		if err != nil {
			t.Fatal(err)
		}
		return acc, kept
	}
	acc, kept := state(alice)
	stream := eventstore.StreamID(account.Stream(alice))
	if err := app.Store.SaveSnapshot(ctx, eventstore.Snapshot{Stream: stream, Version: acc.Version(), Position: 1, Kind: account.SnapshotKind,
		Started: time.Now(), State: kept}); err != nil {
		t.Fatal(err)
	}
	lv := newTestLedgerVerifier(t, app)
	if out, err := verifyMoney(t, app, lv); err != nil {
		t.Fatalf("verify with a true snapshot: %v\n%s", err, out)
	}
	if lv.snapshots.checked != 1 {
		t.Fatalf("verify compared %d snapshots, want Alice's", lv.snapshots.checked)
	}

	_, bobs := state(bob)
	if _, err := app.Pool.Exec(ctx, `UPDATE snapshots SET state = $2 WHERE stream_id = $1`, string(stream), bobs); err != nil {
		t.Fatal(err)
	}
	out, err := verifyMoney(t, app, newTestLedgerVerifier(t, app))
	want := fmt.Sprintf("stream %s: the snapshot at version %d differs from a replay of the events up to it", stream, acc.Version())
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("verify with a false snapshot: %v\n%s\nwant it to report: %s", err, out, want)
	}
}

package history_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/domain/reference"
	"clearvest/eventstore"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/keyset"
	"clearvest/projections/ledger"
)

func m(s string) money.Money { return money.MustParse(s) }

func ref(k reference.Kind, id string) string { return reference.For(k, id) }

const address = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"

// every runs every kind of money event on alice's stream, and a little on bob's.
func every(t *testing.T, e *apptest.MoneyApp, alice, bob, staff string, at time.Time) {
	deposit := func(id, tx, amount string, when time.Time) func(*account.Account) error {
		return func(a *account.Account) error {
			return a.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: tx, Amount: m(amount), Asset: "USDT",
				Network: "TRC20", OnChainAmount: amount, USDRate: "1"}, when)
		}
	}
	terms := account.Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Basic", TermDays: 10, TermRate: "0.0125", Min: m("100"), Max: m("1000")}
	day := 24 * time.Hour
	e.Do(t, alice, deposit("d1", "DEP-AAAA-0001", "500", at))
	e.Do(t, alice, func(a *account.Account) error { return a.ConfirmDeposit("d1", m("499.50"), "fee on chain", staff, at) })
	e.Do(t, bob, deposit("d2", "DEP-BBBB-0002", "75", at))
	e.Do(t, bob, func(a *account.Account) error {
		return a.LinkDepositToChain("d2", account.ChainLink{ChainDepositID: "c2", TxHash: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33c",
			Address: address, Asset: "USDT", OnChainAmount: "75"}, at)
	})
	e.Do(t, alice, deposit("d3", "DEP-AAAA-0003", "40", at.Add(time.Hour)))
	e.Do(t, alice, func(a *account.Account) error {
		return a.RejectDeposit("d3", "nothing arrived", staff, at.Add(time.Hour))
	})
	e.Do(t, alice, func(a *account.Account) error { return a.RequestInvestment("i1", terms, m("200"), at.Add(day)) })
	e.Do(t, alice, func(a *account.Account) error { return a.ActivateInvestment("i1", staff, at.Add(day)) })
	e.Do(t, alice, func(a *account.Account) error { return a.RequestInvestment("i2", terms, m("100"), at.Add(day)) })
	e.Do(t, alice, func(a *account.Account) error { return a.RejectInvestment("i2", "plan closed", staff, at.Add(day)) })
	e.Do(t, alice, func(a *account.Account) error { return a.MatureInvestment("i1", at.Add(11*day)) })
	e.Do(t, alice, func(a *account.Account) error {
		return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: "w1", Amount: m("100"), Fee: m("3"), Address: address,
			Network: "TRC20", Asset: "USDT"}, at.Add(12*day))
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.ApproveWithdrawal("w1", account.Payout{TxHash: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"}, staff, at.Add(12*day))
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.WaiveFee("w1", m("3"), "first withdrawal", staff, at.Add(12*day))
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: "w2", Amount: m("50"), Fee: m("3"), Address: address,
			Network: "TRC20", Asset: "USDT"}, at.Add(13*day))
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.RejectWithdrawal("w2", "address on hold", staff, at.Add(13*day))
	})
	e.Do(t, alice, func(a *account.Account) error { return a.CreditReferralBonus(bob, m("10"), at.Add(14*day)) })
	e.Do(t, alice, func(a *account.Account) error { return a.SetFeeExemption(true, "partner", staff, at.Add(14*day)) })
	e.Do(t, alice, func(a *account.Account) error {
		return a.PostAdjustment(account.Adjustment{AdjustmentID: "a1", Amount: m("-1.25"), Category: account.CategoryCorrection,
			Reason: "double credit"}, staff, at.Add(15*day))
	})
	e.Do(t, alice, func(a *account.Account) error { return a.RequestInvestment("i3", terms, m("100"), at.Add(16*day)) })
	// i4 is reinvested at maturity, and the reinvestment is closed early.
	e.Do(t, alice, func(a *account.Account) error { return a.RequestInvestment("i4", terms, m("100"), at.Add(16*day)) })
	e.Do(t, alice, func(a *account.Account) error { return a.ActivateInvestment("i4", staff, at.Add(16*day)) })
	e.Do(t, alice, func(a *account.Account) error {
		return a.SetMaturityInstruction("i4", account.InstructionReinvest, at.Add(17*day))
	})
	e.Do(t, alice, func(a *account.Account) error { return a.MatureDue(at.Add(26 * day)) })
	e.Do(t, alice, func(a *account.Account) error { return a.RedeemEarly(account.ReinvestmentID("i4"), at.Add(27*day)) })
}

// TestHistoryReadModel folds two users' money in small batches and checks that every money
// event type gives an item, that each item's balance equals the books' available balance after
// its event, that requests carry their decisions' status, and that a rebuild gives the same rows.
func TestHistoryReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, bob, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	every(t, e, alice, bob, staff, at)

	r := e.Runner(t, []projections.Projection{ledger.New(e.Codec), history.New(e.Codec)}, projections.WithBatchSize(3))
	e.CatchUp(t, r)

	kinds := map[string]bool{}
	for _, k := range pgtest.Texts(t, e.Pool, `SELECT DISTINCT kind FROM rm_history.items`) {
		kinds[k] = true
	}
	for _, ev := range account.Events() {
		if !kinds[ev.EventName()] {
			t.Errorf("no history item for %s", ev.EventName())
		}
	}

	// The books' available balance after each event, from the postings, beside the item's.
	mismatched := pgtest.Texts(t, e.Pool, `
		SELECT i.position || ': item ' || i.balance_after || ', books ' || coalesce((SELECT sum(p.amount) FROM rm_ledger.postings p
			WHERE p.account = 'user:' || i.user_id || ':available' AND p.position <= i.position), 0)
		FROM rm_history.items i
		WHERE i.balance_after <> coalesce((SELECT sum(p.amount) FROM rm_ledger.postings p
			WHERE p.account = 'user:' || i.user_id || ':available' AND p.position <= i.position), 0)
		ORDER BY i.position`)
	if len(mismatched) > 0 {
		t.Errorf("balances after items differ from the books: %v", mismatched)
	}
	for _, u := range []string{alice, bob} {
		fig, err := ledger.Figures(ctx, e.Pool, u)
		if errors.Is(err, ledger.ErrNotFound) {
			err = nil // bob's deposit is still pending: nothing was posted
		}
		if err != nil {
			t.Fatal(err)
		}
		items, err := history.List(ctx, e.Pool, u, history.Filter{Limit: 1})
		if err != nil || len(items) != 1 {
			t.Fatalf("newest item of %s: %v, %v", u, items, err)
		}
		if !items[0].Balance.Equal(fig.Available) {
			t.Errorf("%s: last balance %s, books say %s available", u, items[0].Balance, fig.Available)
		}
	}

	// A bonus has no id but its event's: its reference is BON- and eight characters.
	got := pgtest.Texts(t, e.Pool, `SELECT type || ' ' || status || ' ' || title || ' ' || effect || ' ' || balance_after || ' ' ||
		CASE WHEN type = 'Bonus' AND reference ~ '^BON-[0-9A-Z]{8}$' THEN 'BON-' ELSE reference END
		FROM rm_history.items WHERE user_id = '`+alice+`' ORDER BY position`)
	want := []string{
		"Transaction Confirmed Deposit requested 0.00 0.00 " + "DEP-AAAA-0001",
		"Transaction Confirmed Deposit confirmed 499.50 499.50 " + "DEP-AAAA-0001",
		"Transaction Rejected Deposit requested 0.00 499.50 " + "DEP-AAAA-0003",
		"Transaction Rejected Deposit rejected 0.00 499.50 " + "DEP-AAAA-0003",
		"Investment Ended Investment requested: Basic -200.00 299.50 " + ref(reference.Investment, "i1"),
		"Investment Active Investment activated 0.00 299.50 " + ref(reference.Investment, "i1"),
		"Investment Rejected Investment requested: Basic -100.00 199.50 " + ref(reference.Investment, "i2"),
		"Investment Rejected Investment rejected 100.00 299.50 " + ref(reference.Investment, "i2"),
		"Investment Ended Investment matured 202.50 502.00 " + ref(reference.Investment, "i1"),
		"Withdrawal Approved Withdrawal requested -100.00 402.00 " + ref(reference.Withdrawal, "w1"),
		"Withdrawal Approved Withdrawal approved 0.00 402.00 " + ref(reference.Withdrawal, "w1"),
		"Fee Completed Withdrawal fee waived 3.00 405.00 " + ref(reference.Withdrawal, "w1"),
		"Withdrawal Rejected Withdrawal requested -50.00 355.00 " + ref(reference.Withdrawal, "w2"),
		"Withdrawal Rejected Withdrawal rejected 50.00 405.00 " + ref(reference.Withdrawal, "w2"),
		"Bonus Completed Referral bonus 10.00 415.00 BON-",
		"Fee Completed No withdrawal fees from now on 0.00 415.00 ",
		"Adjustment Completed Adjustment -1.25 413.75 " + ref(reference.Adjustment, "a1"),
		"Investment Pending Investment requested: Basic -100.00 313.75 " + ref(reference.Investment, "i3"),
		"Investment Ended Investment requested: Basic -100.00 213.75 " + ref(reference.Investment, "i4"),
		"Investment Active Investment activated 0.00 213.75 " + ref(reference.Investment, "i4"),
		"Investment Completed At maturity: reinvest in the same plan 0.00 213.75 " + ref(reference.Investment, "i4"),
		"Investment Ended Investment matured 101.25 315.00 " + ref(reference.Investment, "i4"),
		"Investment Ended Payout reinvested: Basic -101.25 213.75 " + ref(reference.Investment, account.ReinvestmentID("i4")),
		"Investment Ended Investment closed early 101.25 315.00 " + ref(reference.Investment, account.ReinvestmentID("i4")),
	}
	if len(got) != len(want) {
		t.Fatalf("alice's items:\n%v\nwant\n%v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: %q, want %q", i, got[i], want[i])
		}
	}
	// Decisions carry what the request said, and what was decided.
	if d := pgtest.Texts(t, e.Pool, `SELECT details->>'plan' || ' ' || (details->>'return') || ' ' || (details->>'principal')
		FROM rm_history.items WHERE kind = 'account.investment_matured' ORDER BY position`); len(d) != 2 || d[0] != "Basic 2.50 200.00" {
		t.Errorf("matured details: %v", d)
	}
	if d := pgtest.Texts(t, e.Pool, `SELECT (details->>'reason') || ' ' || (details->>'category') FROM rm_history.items
		WHERE kind = 'account.adjustment_posted'`); len(d) != 1 || d[0] != "double credit correction" {
		t.Errorf("adjustment details: %v", d)
	}
	pending, err := history.Pending(ctx, e.Pool, alice)
	if err != nil || len(pending) != 1 || pending[0].Reference != ref(reference.Investment, "i3") {
		t.Errorf("pending: %+v, %v", pending, err)
	}
	returns, err := history.MonthlyReturns(ctx, e.Pool, alice)
	if err != nil || len(returns) != 1 || returns[0].Month != "2026-03" || returns[0].Returns.String() != "3.75" {
		t.Errorf("monthly returns: %+v, %v", returns, err)
	}
	points, err := history.DailyBalances(ctx, e.Pool, alice)
	if err != nil || len(points) == 0 || points[0].Balance.String() != "499.50" || points[len(points)-1].Balance.String() != "315.00" {
		t.Errorf("daily balances: %+v, %v", points, err)
	}

	// One row per money movement, changed in place: d1 asked for 500 and was credited 499.50,
	// one row with the real amount; d3 is one rejected row; w1's fee is a row of its own under
	// the withdrawal's reference, and so is its refund; each maturity pays out under its
	// investment's reference.
	moves := pgtest.Texts(t, e.Pool, `SELECT kind || ' ' || status || ' ' || amount || ' ' ||
		CASE WHEN kind = 'bonus' AND reference ~ '^BON-[0-9A-Z]{8}$' THEN 'BON-' ELSE reference END || ' ' ||
		coalesce(details->>'plan', details->>'reason', details->>'network', '') || ' ' || (settled_at IS NOT NULL)
		FROM rm_history.movements WHERE user_id = '`+alice+`' ORDER BY created_at, kind, id`)
	inv := func(id string) string { return ref(reference.Investment, id) }
	reinvested := account.ReinvestmentID("i4")
	wantMoves := []string{
		"deposit confirmed 499.50 " + "DEP-AAAA-0001" + " TRC20 true",
		"deposit rejected 40.00 " + "DEP-AAAA-0003" + " nothing arrived true",
		"investment matured -200.00 " + inv("i1") + " Basic true",
		"investment rejected -100.00 " + inv("i2") + " Basic true",
		"return completed 202.50 " + inv("i1") + " Basic true",
		"fee completed 3.00 " + ref(reference.Withdrawal, "w1") + " first withdrawal true",
		"fee completed -3.00 " + ref(reference.Withdrawal, "w1") + "  true",
		"withdrawal completed -97.00 " + ref(reference.Withdrawal, "w1") + " TRC20 true",
		"fee rejected -3.00 " + ref(reference.Withdrawal, "w2") + " address on hold true",
		"withdrawal rejected -47.00 " + ref(reference.Withdrawal, "w2") + " address on hold true",
		"bonus completed 10.00 BON-  true",
		"adjustment completed -1.25 " + ref(reference.Adjustment, "a1") + " double credit true",
		"investment pending -100.00 " + inv("i3") + " Basic false",
		"investment matured -100.00 " + inv("i4") + " Basic true",
		"investment closed -101.25 " + inv(reinvested) + " Basic true",
		"return completed 101.25 " + inv("i4") + " Basic true",
		"return completed 101.25 " + inv(reinvested) + " Basic true",
	}
	if len(moves) != len(wantMoves) {
		t.Fatalf("alice's movements:\n%v\nwant\n%v", moves, wantMoves)
	}
	for i := range wantMoves {
		if moves[i] != wantMoves[i] {
			t.Errorf("movement %d: %q, want %q", i, moves[i], wantMoves[i])
		}
	}
	pm, err := history.PendingMovements(ctx, e.Pool, alice)
	if err != nil || len(pm) != 1 || pm[0].Reference != inv("i3") || pm[0].Amount.String() != "-100.00" {
		t.Errorf("pending movements: %+v, %v", pm, err)
	}
	if d := pgtest.Texts(t, e.Pool, `SELECT (details->>'principal') || ' + ' || (details->>'return') FROM rm_history.movements
		WHERE user_id = '`+alice+`' AND id = 'return:i1'`); len(d) != 1 || d[0] != "200.00 + 2.50" {
		t.Errorf("i1's payout details: %v", d)
	}

	before := rows(t, e.Pool)
	if _, err := r.Rebuild(ctx, history.Name); err != nil {
		t.Fatal(err)
	}
	after := rows(t, e.Pool)
	if len(after) != len(before) || len(before) == 0 {
		t.Fatalf("rebuild: %d rows, before %d", len(after), len(before))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("row %d after the rebuild: %s, before: %s", i, after[i], before[i])
		}
	}
}

func rows(t *testing.T, pool *pgxpool.Pool) []string {
	return append(pgtest.Texts(t, pool, `SELECT to_jsonb(i)::text FROM rm_history.items i ORDER BY position`),
		pgtest.Texts(t, pool, `SELECT to_jsonb(m)::text FROM rm_history.movements m ORDER BY user_id, id`)...)
}

// TestMovementsPendingThenSettledAndPaged follows a deposit from pending to confirmed (one row,
// its amount the one credited) and pages settled movements that share a time, two by two,
// newest first: every one exactly once, ties in a fixed order.
func TestMovementsPendingThenSettledAndPaged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String()
	r := e.Runner(t, []projections.Projection{history.New(e.Codec)})
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	e.Do(t, alice, func(a *account.Account) error {
		return a.RequestDeposit(account.DepositRequest{DepositID: "d1", TransactionID: "T1", Amount: m("250"), Asset: "USDT",
			Network: "TRC20", OnChainAmount: "250", USDRate: "1"}, at)
	})
	e.CatchUp(t, r)
	pending, err := history.PendingMovements(ctx, e.Pool, alice)
	if err != nil || len(pending) != 1 || pending[0].Amount.String() != "250.00" || pending[0].Status != history.MovementPending {
		t.Fatalf("pending: %+v, %v", pending, err)
	}
	if list, _, _, err := history.SettledMovements(ctx, e.Pool, alice, nil, 10); err != nil || len(list) != 0 {
		t.Fatalf("settled before the decision: %+v, %v", list, err)
	}
	e.Do(t, alice, func(a *account.Account) error { return a.ConfirmDeposit("d1", m("250"), "", staff, at.Add(time.Hour)) })
	for i := range 5 {
		e.Do(t, alice, func(a *account.Account) error {
			return a.PostAdjustment(account.Adjustment{AdjustmentID: fmt.Sprintf("a%d", i), Amount: m("1"),
				Category: account.CategoryCorrection, Reason: "tie"}, staff, at.Add(2*time.Hour))
		})
	}
	e.CatchUp(t, r)
	if pending, err := history.PendingMovements(ctx, e.Pool, alice); err != nil || len(pending) != 0 {
		t.Fatalf("pending after the decision: %+v, %v", pending, err)
	}
	var seen []string
	var after *keyset.Cursor
	for page := 0; ; page++ {
		list, total, more, err := history.SettledMovements(ctx, e.Pool, alice, after, 2)
		if err != nil || total != 6 {
			t.Fatalf("page %d: %v, total %d", page, err, total)
		}
		for _, mv := range list {
			seen = append(seen, mv.ID+" "+mv.Amount.String()+" "+string(mv.Status))
		}
		if !more {
			break
		}
		c := history.SettledKey(list[len(list)-1])
		after = &c
	}
	want := []string{"adjustment:a4 1.00 completed", "adjustment:a3 1.00 completed", "adjustment:a2 1.00 completed",
		"adjustment:a1 1.00 completed", "adjustment:a0 1.00 completed", "deposit:d1 250.00 confirmed"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("pages: %v, want %v", seen, want)
	}
}

// TestFeeWaivedInPartsIsOneRowPerWaiver waives a withdrawal's fee in two parts: the fee stays
// one row, and each waiver is a refund row of its own under the withdrawal's reference.
func TestFeeWaivedInPartsIsOneRowPerWaiver(t *testing.T) {
	t.Parallel()
	e := apptest.NewMoneyApp(t)
	alice, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String()
	r := e.Runner(t, []projections.Projection{history.New(e.Codec)})
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	e.Do(t, alice, func(a *account.Account) error {
		return a.RequestDeposit(account.DepositRequest{DepositID: "d1", TransactionID: "T1", Amount: m("250"), Asset: "USDT",
			Network: "TRC20", OnChainAmount: "250", USDRate: "1"}, at)
	})
	e.Do(t, alice, func(a *account.Account) error { return a.ConfirmDeposit("d1", m("250"), "", staff, at) })
	e.Do(t, alice, func(a *account.Account) error {
		return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: "w1", Amount: m("100"), Fee: m("3"), Address: address,
			Network: "TRC20", Asset: "USDT"}, at)
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.ApproveWithdrawal("w1", account.Payout{TxHash: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"}, staff, at)
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.WaiveFee("w1", m("1"), "first part", staff, at.Add(time.Hour))
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.WaiveFee("w1", m("2"), "second part", staff, at.Add(2*time.Hour))
	})
	e.CatchUp(t, r)
	got := pgtest.Texts(t, e.Pool, `SELECT kind || ' ' || amount || ' ' || status || ' ' || reference || ' ' || coalesce(details->>'reason', '')
		FROM rm_history.movements WHERE user_id = '`+alice+`' AND kind = 'fee' ORDER BY created_at`)
	w := ref(reference.Withdrawal, "w1")
	want := []string{"fee -3.00 completed " + w + " ", "fee 1.00 completed " + w + " first part", "fee 2.00 completed " + w + " second part"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fee rows: %v, want %v", got, want)
	}
}

// TestFeedAnnouncesNewItemsToTheirOwner subscribes two users, lands an item for one, and checks
// that only its owner hears of it, with its position; closing the feed closes every
// subscription and refuses new ones.
func TestFeedAnnouncesNewItemsToTheirOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, bob := eventstore.NewEventID().String(), eventstore.NewEventID().String()
	r := e.Runner(t, []projections.Projection{history.New(e.Codec)})
	feed := history.NewFeed(e.Pool, 20*time.Millisecond, nil)
	mine, stopMine, err := feed.Subscribe(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	defer stopMine()
	theirs, stopTheirs, err := feed.Subscribe(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	defer stopTheirs()

	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	e.Do(t, alice, func(a *account.Account) error {
		return a.RequestDeposit(account.DepositRequest{DepositID: "d1", TransactionID: "DEP-AAAA-0001", Amount: m("5"), Asset: "USDT",
			Network: "TRC20", OnChainAmount: "5", USDRate: "1"}, at)
	})
	e.CatchUp(t, r)
	select {
	case p := <-mine:
		if p != e.Last {
			t.Errorf("announced position %d, the item is at %d", p, e.Last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the owner heard nothing within 10 s")
	}
	e.Do(t, bob, func(a *account.Account) error {
		return a.RequestDeposit(account.DepositRequest{DepositID: "d2", TransactionID: "DEP-BBBB-0002", Amount: m("5"), Asset: "USDT",
			Network: "TRC20", OnChainAmount: "5", USDRate: "1"}, at)
	})
	e.CatchUp(t, r)
	// Bob's first announcement is his own item: alice's never reached him.
	select {
	case p := <-theirs:
		if p != e.Last {
			t.Errorf("bob was announced position %d, his item is at %d", p, e.Last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("bob heard nothing within 10 s")
	}

	feed.Close()
	if _, open := <-mine; open {
		t.Error("a subscription is still open after Close")
	}
	if _, _, err := feed.Subscribe(ctx, alice); !errors.Is(err, history.ErrFeedClosed) {
		t.Errorf("Subscribe after Close: %v, want ErrFeedClosed", err)
	}
}

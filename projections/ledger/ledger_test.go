package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	books "clearvest/domain/ledger"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/ledger"
)

func m(s string) money.Money { return money.MustParse(s) }

// Realistic histories for two users: Alice deposits, invests until maturity, withdraws with a
// fee that is partly waived, has a withdrawal rejected, a correction and a referral bonus; Bob
// deposits, has an investment and a deposit rejected.
func seed(t *testing.T, e *apptest.MoneyApp, alice, bob, staff string) {
	t.Helper()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	terms := account.Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Basic", TermDays: 10, TermRate: "0.0125", Min: m("100"), Max: m("1000")}
	deposit := func(id, tx, amount string) func(*account.Account) error {
		return func(a *account.Account) error {
			return a.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: tx, Amount: m(amount), Asset: "USDT", Network: "TRC20",
				OnChainAmount: amount, USDRate: "1"}, at)
		}
	}
	withdraw := func(id, amount, fee string) func(*account.Account) error {
		return func(a *account.Account) error {
			return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: id, Amount: m(amount), Fee: m(fee),
				Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT"}, at)
		}
	}
	e.Do(t, alice, deposit("d1", "TX1", "500"))
	e.Do(t, bob, deposit("d2", "TX2", "1000"))
	e.Do(t, alice, func(a *account.Account) error { return a.ConfirmDeposit("d1", m("500"), "", staff, at) })
	e.Do(t, bob, func(a *account.Account) error { return a.ConfirmDeposit("d2", m("1000"), "", staff, at) })
	e.Do(t, alice, func(a *account.Account) error { return a.RequestInvestment("i1", terms, m("250"), at) })
	e.Do(t, bob, func(a *account.Account) error { return a.RequestInvestment("i2", terms, m("200"), at) })
	e.Do(t, alice, func(a *account.Account) error { return a.ActivateInvestment("i1", staff, at) })
	e.Do(t, bob, func(a *account.Account) error { return a.RejectInvestment("i2", "not eligible", staff, at) })
	e.Do(t, bob, deposit("d3", "TX3", "75"))
	e.Do(t, bob, func(a *account.Account) error { return a.RejectDeposit("d3", "nothing arrived", staff, at) })
	e.Do(t, alice, func(a *account.Account) error { return a.MatureDue(at.AddDate(0, 0, 10)) })
	e.Do(t, alice, withdraw("w1", "100", "3"))
	e.Do(t, alice, func(a *account.Account) error {
		return a.ApproveWithdrawal("w1", account.Payout{TxHash: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"}, staff, at)
	})
	e.Do(t, alice, func(a *account.Account) error { return a.WaiveFee("w1", m("1"), "goodwill", staff, at) })
	e.Do(t, alice, withdraw("w2", "10", "0"))
	e.Do(t, alice, func(a *account.Account) error { return a.RejectWithdrawal("w2", "address on hold", staff, at) })
	e.Do(t, alice, func(a *account.Account) error {
		return a.PostAdjustment(account.Adjustment{AdjustmentID: "a1", Amount: m("-5"), Category: "correction", Reason: "double credit"}, staff, at)
	})
	e.Do(t, alice, func(a *account.Account) error { return a.CreditReferralBonus(bob, m("20"), at) })
	e.Do(t, bob, func(a *account.Account) error { return a.RequestInvestment("i3", terms, m("300"), at) })
	e.Do(t, alice, func(a *account.Account) error { return a.CreditReferralBonus(staff, m("5"), at) })
}

func snapshot(t *testing.T, pool *pgxpool.Pool) []string {
	return pgtest.Texts(t, pool,
		`SELECT to_jsonb(p)::text FROM rm_ledger.postings p ORDER BY position, line`,
		`SELECT to_jsonb(b)::text FROM rm_ledger.balances b ORDER BY account`,
		`SELECT to_jsonb(f)::text FROM rm_ledger.figures f ORDER BY user_id`)
}

func TestLedgerReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, bob, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	seed(t, e, alice, bob, staff)

	// Small batches, so balances and figures are folded across batches as well as within one.
	r := e.Runner(t, []projections.Projection{ledger.New(e.Codec)}, projections.WithBatchSize(3))
	e.CatchUp(t, r)

	// Every posting of every event is a row, and the rows are exactly what the posting map says.
	var wantRows int
	for _, u := range []string{alice, bob} {
		envs, err := e.Store.ReadStream(ctx, eventstore.StreamID(account.Stream(u)), 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range envs {
			ev, err := e.Codec.Decode(env)
			if err != nil {
				t.Fatal(err)
			}
			ps := books.Postings(u, ev)
			wantRows += len(ps)
			for i, p := range ps {
				var stream, acct, amount, user string
				err := e.Pool.QueryRow(ctx, `SELECT stream_id, account, amount::text, user_id FROM rm_ledger.postings WHERE position = $1 AND line = $2`,
					env.Position, i).Scan(&stream, &acct, &amount, &user)
				if err != nil {
					t.Fatalf("posting %d of %s at %d: %v", i, env.Type, env.Position, err)
				}
				if stream != string(env.StreamID) || acct != string(p.Account) || amount != p.Amount.String() || user != u {
					t.Errorf("%s line %d: row (%s, %s, %s, %s), want (%s, %s, %s, %s)", env.Type, i, stream, acct, amount, user,
						env.StreamID, p.Account, p.Amount, u)
				}
			}
		}
	}
	var rows int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM rm_ledger.postings`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != wantRows || wantRows == 0 {
		t.Errorf("%d posting rows, want %d", rows, wantRows)
	}

	tb, err := ledger.ReadTrialBalance(ctx, e.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if !tb.Balanced() || !tb.Total.IsZero() || len(tb.Unbalanced) != 0 {
		t.Errorf("trial balance %+v does not balance", tb)
	}
	want := map[books.Account]string{
		books.Custody:         "-1500.00",
		books.Payouts:         "97.00",
		books.FeeIncome:       "2.00",
		books.ReturnsExpense:  "-3.12",
		books.ReferralExpense: "-25.00",
		books.Adjustments:     "5.00",
		books.UserAccount(alice, books.BookAvailable): "424.12",
		books.UserAccount(alice, books.BookHeld):      "0.00",
		books.UserAccount(alice, books.BookInvested):  "0.00",
		books.UserAccount(bob, books.BookAvailable):   "700.00",
		books.UserAccount(bob, books.BookHeld):        "300.00",
	}
	for _, b := range tb.Accounts {
		if w, ok := want[b.Account]; !ok || b.Balance.String() != w {
			t.Errorf("balance of %s = %s, want %q", b.Account, b.Balance, w)
		}
		delete(want, b.Account)
	}
	if len(want) > 0 {
		t.Errorf("accounts missing from the books: %v", want)
	}

	if neg, err := ledger.WentNegative(ctx, e.Pool); err != nil || len(neg) != 0 {
		t.Errorf("WentNegative = %v, %v; want none", neg, err)
	}
	for _, u := range []string{alice, bob} {
		got, err := ledger.Figures(ctx, e.Pool, u)
		if err != nil {
			t.Fatal(err)
		}
		if agg := e.Replay(t, u).Balances(); !got.Equal(agg) {
			t.Errorf("figures of %s = %+v, the aggregate says %+v", u, got, agg)
		}
	}
	if got, _ := ledger.Figures(ctx, e.Pool, alice); got.Available.String() != "424.12" || got.Returns.String() != "3.12" ||
		got.Fees.String() != "2.00" || got.Adjustments.String() != "-5.00" || got.Referrals.String() != "25.00" {
		t.Errorf("Alice's figures = %+v", got)
	}
	if _, err := ledger.Figures(ctx, e.Pool, staff); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("Figures(staff) = %v, want ErrNotFound", err)
	}
	if got := allFigures(t, e.Pool); len(got) != 2 || got[0].UserID > got[1].UserID {
		t.Errorf("the figures cursor read %v, want two users in order", got)
	}

	// A rebuild from the log yields the same rows.
	before := snapshot(t, e.Pool)
	if _, err := r.Rebuild(ctx, ledger.Name); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, e.Pool); !slices.Equal(before, after) {
		t.Errorf("rebuild differs:\n before %v\n after  %v", before, after)
	}
}

// TestLedgerShowsANegativeAccount appends, around the aggregate, an adjustment it would never
// raise: the read model must show the account that went below zero and the event that did it.
func TestLedgerShowsANegativeAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, bob, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	seed(t, e, alice, bob, staff)
	data, err := json.Marshal(account.AdjustmentPosted{AdjustmentID: "bad", Amount: m("-1200"), Category: "correction", Reason: "x",
		StaffID: staff, At: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	envs, err := e.Store.Append(ctx, eventstore.StreamAppend{Stream: eventstore.StreamID(account.Stream(bob)), ExpectedVersion: 7,
		Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: "account.adjustment_posted", SchemaVersion: 1, Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	e.Last = envs[0].Position
	r := e.Runner(t, []projections.Projection{ledger.New(e.Codec)})
	e.CatchUp(t, r)

	neg, err := ledger.WentNegative(ctx, e.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(neg) != 1 || neg[0].Account != books.UserAccount(bob, books.BookAvailable) || neg[0].Lowest.String() != "-500.00" ||
		neg[0].Position != envs[0].Position {
		t.Errorf("WentNegative = %+v, want bob's available at -500.00 from position %d", neg, envs[0].Position)
	}
	// The event's own postings still balance, so the trial balance does too.
	if tb, err := ledger.ReadTrialBalance(ctx, e.Pool); err != nil || !tb.Balanced() {
		t.Errorf("trial balance %+v, %v", tb, err)
	}
}

// allFigures reads the figures through the cursor, Peek and Next in turn.
func allFigures(t *testing.T, pool *pgxpool.Pool) []ledger.UserFigures {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	c, err := ledger.OpenFigures(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	var out []ledger.UserFigures
	for {
		f, ok, err := c.Peek(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		if again, _, _ := c.Peek(ctx); again.UserID != f.UserID {
			t.Fatalf("Peek moved from %s to %s", f.UserID, again.UserID)
		}
		out = append(out, f)
		c.Next()
	}
}

// The cursor reads the figures in Go's string order, which events verify merges them in, a page
// at a time: ids whose order depends on the collation, and more than a page of them.
func TestTheFiguresCursorReadsInByteOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	e.Runner(t, []projections.Projection{ledger.New(e.Codec)}) // prepares the read model's tables
	ids := []string{"Zed", "abc", "a-b", "a_b", "ab", "Ab", "é", "e", "10", "9"}
	for i := range 2_500 {
		ids = append(ids, fmt.Sprintf("user-%05d", (i*7919)%2_500))
	}
	if _, err := e.Pool.Exec(ctx, `INSERT INTO rm_ledger.figures
		SELECT id, n, 0, 0, 0, 0, 0, 0 FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`, ids); err != nil {
		t.Fatal(err)
	}
	got := allFigures(t, e.Pool)
	var read []string
	for _, f := range got {
		read = append(read, f.UserID)
	}
	slices.Sort(ids)
	if !slices.Equal(read, ids) {
		t.Errorf("read %d ids, want %d; first %q, want %q", len(read), len(ids), read[:min(10, len(read))], ids[:10])
	}
	if got[0].Figures.Available.IsZero() {
		t.Errorf("the figures of %s were not read: %+v", got[0].UserID, got[0].Figures)
	}
}

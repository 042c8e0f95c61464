package investments_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/investments"
	"clearvest/projections/keyset"
	"clearvest/projections/users"
)

func m(s string) money.Money { return money.MustParse(s) }

// TestInvestmentsReadModel folds two users' investments in small batches and checks each status
// with its decision, the reinvestment links and an early redemption, the queue (oldest first),
// the accounts with something due, and that a rebuild gives the same rows.
func TestInvestmentsReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, bob, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	terms := account.Terms{PlanID: "p1", PlanVersion: 2, PlanName: "Basic", TermDays: 10, TermRate: "0.0125", Min: m("100"), Max: m("1000")}
	fund := func(u, id, tx string) func(*account.Account) error {
		return func(a *account.Account) error {
			if err := a.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: tx, Amount: m("1000"), Asset: "USDT",
				Network: "TRC20", OnChainAmount: "1000", USDRate: "1"}, at); err != nil {
				return err
			}
			return a.ConfirmDeposit(id, m("1000"), "", staff, at)
		}
	}
	e.Do(t, alice, fund(alice, "d1", "DEP-AAAA-0001"))
	e.Do(t, bob, fund(bob, "d2", "DEP-BBBB-0002"))
	do := func(u string, f func(*account.Account) error) { e.Do(t, u, f) }
	do(alice, func(a *account.Account) error { return a.RequestInvestment("i1", terms, m("200"), at) })
	do(alice, func(a *account.Account) error { return a.SetMaturityInstruction("i1", account.InstructionReinvest, at) })
	do(alice, func(a *account.Account) error { return a.ActivateInvestment("i1", staff, at) })
	do(alice, func(a *account.Account) error { return a.RequestInvestment("i2", terms, m("300"), at.Add(time.Minute)) })
	do(bob, func(a *account.Account) error {
		return a.RequestInvestment("i3", terms, m("150"), at.Add(-time.Minute))
	})
	do(bob, func(a *account.Account) error { return a.RequestInvestment("i4", terms, m("100"), at) })
	do(bob, func(a *account.Account) error { return a.RejectInvestment("i4", "unclear", staff, at) })
	do(bob, func(a *account.Account) error { return a.RequestInvestment("i5", terms, m("400"), at) })
	do(bob, func(a *account.Account) error { return a.ActivateInvestment("i5", staff, at) })
	do(bob, func(a *account.Account) error { return a.RedeemEarly("i5", at.AddDate(0, 0, 3)) })
	do(alice, func(a *account.Account) error { return a.MatureDue(at.AddDate(0, 0, 10)) })

	r := e.Runner(t, []projections.Projection{users.New(e.Codec), investments.New(e.Codec)}, projections.WithBatchSize(3))
	e.CatchUp(t, r)

	i1, err := investments.ByID(ctx, e.Pool, "i1")
	if err != nil || i1.Status != account.StatusEnded || i1.Instruction != "reinvest" || i1.Return.String() != "2.50" || i1.ReinvestedAs == "" ||
		!sameTerms(i1.Terms, terms) || i1.ClosedAt == nil {
		t.Fatalf("i1: %+v, %v", i1, err)
	}
	next, err := investments.ByID(ctx, e.Pool, i1.ReinvestedAs)
	if err != nil || next.Status != account.StatusActive || next.Amount.String() != "202.50" || next.Return.String() != "2.53" ||
		next.ReinvestedFrom != "i1" || !next.Start.Equal(*i1.End) || !sameTerms(next.Terms, terms) || next.Instruction != "payout" {
		t.Fatalf("reinvestment: %+v, %v", next, err)
	}
	if i4, err := investments.ByID(ctx, e.Pool, "i4"); err != nil || i4.Status != account.StatusRejected || i4.Reason != "unclear" {
		t.Errorf("i4: %+v, %v", i4, err)
	}
	if i5, err := investments.ByID(ctx, e.Pool, "i5"); err != nil || i5.Status != account.StatusEnded || !i5.ClosedEarly ||
		i5.Forfeited.String() != "5.00" || !i5.AccruedEstimate(at.AddDate(0, 0, 5)).IsZero() {
		t.Errorf("i5: %+v, %v", i5, err)
	}
	if _, err := investments.ByID(ctx, e.Pool, "none"); !errors.Is(err, investments.ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	// Half way through the reinvestment's term: half its return, as an estimate.
	if got := next.AccruedEstimate(next.Start.AddDate(0, 0, 5)); got.String() != "1.26" {
		t.Errorf("estimate half way = %s, want 1.26 (2.53 / 2, half-even)", got)
	}

	// The queue a page of one at a time: the pending ones, oldest first, then an empty page past
	// the last that still counts them.
	var from *keyset.Cursor
	for _, want := range []string{"i3", "i2", ""} {
		page, total, more, err := investments.PendingPage(ctx, e.Pool, from, 1)
		if err != nil || total != 2 || more != (want == "i3") || (want == "") != (len(page) == 0) || (want != "" && page[0].ID != want) {
			t.Fatalf("queue page for %q: %+v, %d, %v, %v", want, page, total, more, err)
		}
		if want != "" {
			from = &keyset.Cursor{At: page[0].RequestedAt, ID: page[0].ID}
		}
	}
	// Lifetime invested: what was activated, whatever became of it; reinvestments, requests and
	// rejections left out.
	for user, want := range map[string]string{alice: "200.00", bob: "400.00", staff: "0.00"} {
		if got, err := investments.LifetimeInvested(ctx, e.Pool, user); err != nil || got.String() != want {
			t.Errorf("LifetimeInvested(%s) = %v, %v; want %s", user, got, err, want)
		}
	}
	list, err := investments.ByUser(ctx, e.Pool, alice)
	if err != nil || len(list) != 3 || list[len(list)-1].ID != "i1" {
		t.Fatalf("alice's list: %+v, %v", list, err)
	}
	due, err := investments.DueAccounts(ctx, e.Pool, next.End.Add(-time.Second), 10)
	if err != nil || len(due) != 0 {
		t.Fatalf("due before the end: %v, %v", due, err)
	}
	if due, err = investments.DueAccounts(ctx, e.Pool, *next.End, 10); err != nil || len(due) != 1 || due[0] != alice {
		t.Fatalf("due at the end: %v, %v", due, err)
	}

	before := pgtest.Texts(t, e.Pool, `SELECT to_jsonb(i)::text FROM rm_investments.investments i ORDER BY investment_id`)
	if _, err := r.Rebuild(ctx, investments.Name); err != nil {
		t.Fatal(err)
	}
	after := pgtest.Texts(t, e.Pool, `SELECT to_jsonb(i)::text FROM rm_investments.investments i ORDER BY investment_id`)
	if len(after) != len(before) || len(before) != 6 {
		t.Fatalf("rebuild: %d rows, before %d", len(after), len(before))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("row %d after the rebuild: %s, before: %s", i, after[i], before[i])
		}
	}
}

func sameTerms(a, b account.Terms) bool {
	return a.PlanID == b.PlanID && a.PlanVersion == b.PlanVersion && a.PlanName == b.PlanName && a.TermDays == b.TermDays &&
		a.TermRate == b.TermRate && a.Min.Equal(b.Min) && a.Max.Equal(b.Max)
}

package wallets_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/ledger"
	"clearvest/projections/users"
	"clearvest/projections/wallets"
)

func m(s string) money.Money { return money.MustParse(s) }

// TestWalletsReadModel folds two users' money histories in small batches and checks that the
// figures equal a replay of each stream, that deposits carry their decisions, that the staff
// queue holds only what waits, oldest first, and that a rebuild gives the same rows.
func TestWalletsReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, bob, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	deposit := func(id, tx, amount string, when time.Time) func(*account.Account) error {
		return func(a *account.Account) error {
			return a.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: tx, Amount: m(amount), Asset: "USDT",
				Network: "TRC20", OnChainAmount: amount, USDRate: "1"}, when)
		}
	}
	terms := account.Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Basic", TermDays: 10, TermRate: "0.0125", Min: m("100"), Max: m("1000")}
	e.Do(t, alice, deposit("d1", "DEP-AAAA-0001", "500", at))
	e.Do(t, alice, func(a *account.Account) error { return a.ConfirmDeposit("d1", m("499.50"), "fee on chain", staff, at) })
	e.Do(t, alice, func(a *account.Account) error { return a.RequestInvestment("i1", terms, m("200"), at) })
	e.Do(t, alice, func(a *account.Account) error { return a.ActivateInvestment("i1", staff, at) })
	e.Do(t, bob, deposit("d2", "DEP-BBBB-0002", "75", at.Add(time.Hour)))
	e.Do(t, bob, func(a *account.Account) error { return a.RejectDeposit("d2", "nothing arrived", staff, at) })
	e.Do(t, bob, deposit("d3", "DEP-BBBB-0003", "40", at.Add(2*time.Hour)))
	e.Do(t, alice, deposit("d4", "DEP-AAAA-0004", "60", at.Add(time.Minute)))

	// The users read model is there because deposits show their owner's name from it, the
	// books because the figures are theirs.
	r := e.Runner(t, []projections.Projection{users.New(e.Codec), ledger.New(e.Codec), wallets.New(e.Codec)}, projections.WithBatchSize(3))
	e.CatchUp(t, r)

	for _, u := range []string{alice, bob} {
		got, err := wallets.Balances(ctx, e.Pool, u)
		if err != nil {
			t.Fatal(err)
		}
		if want := e.Replay(t, u).Balances(); !got.Equal(want) {
			t.Errorf("figures of %s = %+v, the aggregate says %+v", u, got, want)
		}
	}
	if got, _ := wallets.Balances(ctx, e.Pool, alice); got.Available.String() != "299.50" || got.Invested.String() != "200.00" {
		t.Errorf("Alice: %+v, want 299.50 available and 200.00 invested", got)
	}
	if got, err := wallets.Balances(ctx, e.Pool, staff); err != nil || !got.Equal(account.Balances{}) {
		t.Errorf("a user without money events: %+v, %v; want zeros", got, err)
	}

	d1, err := wallets.ByTransactionID(ctx, e.Pool, "DEP-AAAA-0001")
	if err != nil || d1.Status != account.StatusConfirmed || d1.Received.String() != "499.50" || d1.Notes != "fee on chain" ||
		d1.DecidedAt == nil || d1.UserID != alice {
		t.Errorf("confirmed deposit: %+v, %v", d1, err)
	}
	if d2, err := wallets.ByTransactionID(ctx, e.Pool, "DEP-BBBB-0002"); err != nil || d2.Status != account.StatusRejected ||
		d2.Notes != "nothing arrived" {
		t.Errorf("rejected deposit: %+v, %v", d2, err)
	}
	if _, err := wallets.ByTransactionID(ctx, e.Pool, "DEP-NONE-0000"); !errors.Is(err, wallets.ErrNotFound) {
		t.Errorf("unknown deposit: %v, want ErrNotFound", err)
	}

	queue, total, more, err := wallets.PendingPage(ctx, e.Pool, nil, 10)
	if err != nil || total != 2 || more {
		t.Fatalf("queue: %d waiting, more %v, %v", total, more, err)
	}
	var ids []string
	for _, d := range queue {
		ids = append(ids, d.TransactionID)
	}
	if len(ids) != 2 || ids[0] != "DEP-AAAA-0004" || ids[1] != "DEP-BBBB-0003" {
		t.Errorf("queue = %v, want the two pending deposits oldest first", ids)
	}

	before := rows(t, e.Pool)
	if _, err := r.Rebuild(ctx, wallets.Name); err != nil {
		t.Fatal(err)
	}
	if after := rows(t, e.Pool); len(after) != len(before) || len(before) == 0 {
		t.Fatalf("rebuild: %d rows, before %d", len(after), len(before))
	} else {
		for i := range before {
			if before[i] != after[i] {
				t.Errorf("row %d after the rebuild: %s, before: %s", i, after[i], before[i])
			}
		}
	}
}

func rows(t *testing.T, pool *pgxpool.Pool) []string {
	return pgtest.Texts(t, pool, `SELECT to_jsonb(d)::text FROM rm_wallets.deposits d ORDER BY transaction_id`)
}

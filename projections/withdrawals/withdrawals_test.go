package withdrawals_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	"clearvest/domain/chain"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/users"
	"clearvest/projections/withdrawals"
)

const (
	tron    = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
	bitcoin = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
)

func m(s string) money.Money { return money.MustParse(s) }

// TestWithdrawalsReadModel folds two users' withdrawals in small batches and checks each row
// against the aggregate's view, the decisions and a waiver, the staff queue (only what waits,
// oldest first), each user's history (newest first) and that a rebuild gives the same rows.
func TestWithdrawalsReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, bob, staff := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	fund := func(user, id string) {
		e.Do(t, user, func(a *account.Account) error {
			return a.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: "DEP-" + id, Amount: m("1000"), Asset: "USDT",
				Network: "TRC20", OnChainAmount: "1000", USDRate: "1"}, at)
		})
		e.Do(t, user, func(a *account.Account) error { return a.ConfirmDeposit(id, m("1000"), "", staff, at) })
	}
	withdraw := func(user, id, amount, fee, network, address string, when time.Time) {
		asset := "USDT"
		if network == "BTC" {
			asset = "BTC"
		}
		e.Do(t, user, func(a *account.Account) error {
			return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: id, Amount: m(amount), Fee: m(fee), Address: address,
				Network: network, Asset: asset}, when)
		})
	}
	fund(alice, "da")
	fund(bob, "db")
	withdraw(alice, "w1", "100", "2.00", "TRC20", tron, at.Add(time.Minute))
	e.Do(t, alice, func(a *account.Account) error {
		return a.ApproveWithdrawal("w1", account.Payout{TxHash: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b", OnChainAmount: "98"}, staff, at.Add(time.Hour))
	})
	e.Do(t, alice, func(a *account.Account) error {
		return a.WaiveFee("w1", m("0.50"), "goodwill", staff, at.Add(2*time.Hour))
	})
	withdraw(bob, "w2", "50", "1.50", "BTC", bitcoin, at.Add(2*time.Minute))
	e.Do(t, bob, func(a *account.Account) error {
		return a.RejectWithdrawal("w2", "address unclear", staff, at.Add(time.Hour))
	})
	withdraw(bob, "w3", "20", "1.20", "TRC20", tron, at.Add(4*time.Minute))
	withdraw(alice, "w4", "30", "1.30", "TRC20", tron, at.Add(3*time.Minute))

	// The chain watcher saw w1's payout in a block, then with its confirmations.
	chain.RegisterEvents(e.Codec)
	for _, tip := range []uint64{800, 801} {
		apptest.DoOn(t, e, chain.PayoutStream("w1"), chain.NewPayoutState, func(p *chain.PayoutState) error {
			p.Observe("w1", "TRC20", "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
				chain.TxState{Found: true, Height: 800}, tip, 2, at.Add(2*time.Hour))
			return nil
		})
	}

	r := e.Runner(t, []projections.Projection{users.New(e.Codec), withdrawals.New(e.Codec)}, projections.WithBatchSize(3))
	e.CatchUp(t, r)

	for _, u := range []string{alice, bob} {
		for _, want := range e.Replay(t, u).Withdrawals() {
			got, err := withdrawals.ByID(ctx, e.Pool, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.UserID != u || !got.Amount.Equal(want.Amount) || !got.Fee.Equal(want.Fee) || !got.Receives.Equal(want.Receives()) ||
				!got.FeeWaived.Equal(want.FeeWaived) || got.Status != want.Status || got.Address != want.Address ||
				got.Network != want.Network || got.Asset != want.Asset || got.TxHash != want.TxHash || got.Reason != want.Reason ||
				!got.RequestedAt.Equal(want.RequestedAt) || (got.DecidedAt != nil) != !want.DecidedAt.IsZero() {
				t.Errorf("withdrawal %s: read model %+v, aggregate %+v", want.ID, got, want)
			}
		}
	}
	if w1, _ := withdrawals.ByID(ctx, e.Pool, "w1"); w1.Status != account.StatusApproved || w1.Receives.String() != "98.00" ||
		w1.FeeWaived.String() != "0.50" || w1.OnChainAmount != "98" {
		t.Errorf("approved withdrawal: %+v", w1)
	}
	if w1, _ := withdrawals.ByID(ctx, e.Pool, "w1"); w1.OnChain.Status != chain.PayoutFinal || w1.OnChain.Height != 800 ||
		w1.OnChain.Confirmations != 2 || w1.OnChain.SeenAt == nil || !w1.OnChain.SeenAt.Equal(at.Add(2*time.Hour)) {
		t.Errorf("payout on chain: %+v, want final at 800 with 2 confirmations", w1.OnChain)
	}
	if w4, _ := withdrawals.ByID(ctx, e.Pool, "w4"); w4.OnChain != (withdrawals.OnChain{}) {
		t.Errorf("pending withdrawal on chain: %+v, want nothing seen", w4.OnChain)
	}
	if _, err := withdrawals.ByID(ctx, e.Pool, "none"); !errors.Is(err, withdrawals.ErrNotFound) {
		t.Errorf("unknown withdrawal: %v, want ErrNotFound", err)
	}

	ids := func(list []withdrawals.Withdrawal, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range list {
			out = append(out, w.ID)
		}
		return out
	}
	pending, total, more, err := withdrawals.PendingPage(ctx, e.Pool, nil, 10)
	if total != 2 || more {
		t.Errorf("queue: %d waiting, more %v", total, more)
	}
	if got := ids(pending, err); len(got) != 2 || got[0] != "w4" || got[1] != "w3" {
		t.Errorf("queue = %v, want [w4 w3]: the pending ones, oldest first", got)
	}
	if got := ids(withdrawals.ByUser(ctx, e.Pool, alice, 0)); len(got) != 2 || got[0] != "w4" || got[1] != "w1" {
		t.Errorf("Alice's history = %v, want [w4 w1]: newest first", got)
	}

	query := `SELECT to_jsonb(w)::text FROM rm_withdrawals.withdrawals w ORDER BY withdrawal_id`
	before := pgtest.Texts(t, e.Pool, query)
	if _, err := r.Rebuild(ctx, withdrawals.Name); err != nil {
		t.Fatal(err)
	}
	after := pgtest.Texts(t, e.Pool, query)
	if len(before) != 4 || len(after) != len(before) {
		t.Fatalf("rebuild: %d rows, before %d", len(after), len(before))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("row %d after the rebuild: %s, before: %s", i, after[i], before[i])
		}
	}
}

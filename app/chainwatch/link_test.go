package chainwatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/chainwatch"
	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/eventstore"
	"clearvest/platform/config"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
)

// newLinkEnv is newEnv with the books, the deposits and the history read models, and USDT
// deposits on Ethereum that investors may declare by hand.
func newLinkEnv(t *testing.T) *env {
	t.Helper()
	e := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		chain.RegisterEvents(codec)
		return []projections.Projection{ledger.New(codec), wallets.New(codec), history.New(codec)}
	}, money.Migrations, chainwatch.Migrations))
	fee, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := money.New(money.Config{PublicURL: accountstest.PublicURL, WithdrawalFee: fee,
		Addresses: []money.Address{{Asset: "USDT", Network: payout.Ethereum, Address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"}}},
		money.Deps{Pool: e.Pool, Commands: e.Commands, Sender: e.Sender, Clock: e.Clock})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, env: e, money: svc, commands: e.Commands}
}

func (e *env) user(email, role string) string {
	e.t.Helper()
	u, err := e.env.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{Name: "Test " + role, Email: email,
		Password: "quiet-harbour-lantern-42", Role: role, Verified: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

// declare is the investor's deposit form: amount USD of USDT on Ethereum, sent in tx.
func (e *env) declare(userID, amount, tx string) money.Deposit {
	e.t.Helper()
	c, err := e.money.CreateDeposit(context.Background(), money.Actor{UserID: userID, Role: "subscriber"},
		money.DepositInput{Amount: amount, Asset: "USDT", Network: string(payout.Ethereum), TxHash: tx})
	if err != nil {
		e.t.Fatal(err)
	}
	return c.Deposit
}

func (e *env) confirmByHand(staffID, transactionID, received string) error {
	_, err := e.money.ConfirmDeposit(context.Background(), money.Actor{UserID: staffID, Role: "admin"},
		money.DecisionInput{TransactionID: transactionID, Received: received})
	return err
}

// wantBooks checks the double-entry books once the read models caught up: balanced, and no
// account below zero.
func (e *env) wantBooks() {
	e.t.Helper()
	e.env.CatchUp(e.t)
	ctx := context.Background()
	tb, err := ledger.ReadTrialBalance(ctx, e.env.Pool)
	if err != nil {
		e.t.Fatal(err)
	}
	if !tb.Balanced() {
		e.t.Errorf("trial balance: total %s, unbalanced events %v", tb.Total, tb.Unbalanced)
	}
	if neg, err := ledger.WentNegative(ctx, e.env.Pool); err != nil || len(neg) > 0 {
		e.t.Errorf("accounts below zero: %v %v", neg, err)
	}
}

func (e *env) transferRow(tr chain.Transfer) (depositID, status string) {
	e.t.Helper()
	if err := e.env.Pool.QueryRow(context.Background(), `SELECT deposit_id, status FROM chain_transfers WHERE key = $1`,
		tr.Key(payout.Ethereum)).Scan(&depositID, &status); err != nil {
		e.t.Fatal(err)
	}
	return depositID, status
}

// TestDeclaredThenSeenIsOneDeposit: an investor declares a transfer by hand, then the watcher
// sees it arrive at their own address. It stays one deposit, which staff can no longer decide
// and the watcher credits once, at what arrived.
func TestDeclaredThenSeenIsOneDeposit(t *testing.T) {
	t.Parallel()
	e := newLinkEnv(t)
	u, staff := e.user("ivy@example.com", "subscriber"), e.user("ada@example.com", "admin")
	tr := usdt(txh(21), addrA, "99.500000")
	declared := e.declare(u, "100", tr.TxHash)
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	src.mine(tr)
	e.pass(w, src)

	deps := e.account(u).Deposits()
	if len(deps) != 1 || deps[0].ID != declared.ID || deps[0].Source != account.SourceChain || deps[0].Status != account.StatusPending {
		t.Fatalf("deposits after the sighting: %+v, want the declared one, now a pending chain deposit", deps)
	}
	if id, status := e.transferRow(tr); id != declared.ID || status != string(chain.StatusDetected) {
		t.Fatalf("transfer row: deposit %s status %s, want the declared deposit %s", id, status, declared.ID)
	}
	if err := e.confirmByHand(staff, declared.TransactionID, "100"); !errors.Is(err, account.ErrChainDeposit) {
		t.Fatalf("staff confirmation of a linked deposit: %v, want ErrChainDeposit", err)
	}
	// Read again from the start before it is credited: the row still names the declared deposit.
	if _, err := e.env.Pool.Exec(context.Background(), `UPDATE chain_cursors SET height = 0, hash = ''`); err != nil {
		t.Fatal(err)
	}
	e.pass(e.watcher(src, owners{addrA: u}, 0), src)
	if id, _ := e.transferRow(tr); id != declared.ID {
		t.Fatalf("after a second reading the transfer row names %s, want %s", id, declared.ID)
	}
	src.mine()
	src.mine()
	e.pass(w, src)
	e.wantAvailable(u, "99.50")
	// Read from the start again by a new instance: nothing more is credited, nothing recorded.
	if _, err := e.env.Pool.Exec(context.Background(), `UPDATE chain_cursors SET height = 0, hash = ''`); err != nil {
		t.Fatal(err)
	}
	src.mine()
	e.pass(e.watcher(src, owners{addrA: u}, 0), src)
	e.wantAvailable(u, "99.50")
	if n := len(e.account(u).Deposits()); n != 1 {
		t.Fatalf("%d deposits, want 1", n)
	}
	e.wantBooks()
	// The investor's deposit list reads one deposit, credited, from the network.
	d, err := e.money.Deposit(context.Background(), money.Actor{UserID: u, Role: "subscriber"}, declared.TransactionID)
	if err != nil || d.Status != account.StatusConfirmed || d.Received.String() != "99.50" || d.Source != account.SourceChain {
		t.Fatalf("investor's deposit: %+v, %v", d, err)
	}
}

// TestSeenAfterStaffConfirmedIsNotCreditedAgain: staff confirmed the declared deposit before the
// watcher saw the transfer; the transfer is marked credited by hand and nothing more arrives.
func TestSeenAfterStaffConfirmedIsNotCreditedAgain(t *testing.T) {
	t.Parallel()
	e := newLinkEnv(t)
	u, staff := e.user("ivy@example.com", "subscriber"), e.user("ada@example.com", "admin")
	tr := usdt(txh(22), addrA, "50.000000")
	declared := e.declare(u, "50", tr.TxHash)
	if err := e.confirmByHand(staff, declared.TransactionID, "50"); err != nil {
		t.Fatal(err)
	}
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	src.mine(tr)
	for range 4 {
		src.mine()
	}
	e.pass(w, src)
	e.pass(w, src)
	e.wantAvailable(u, "50.00")
	if n := len(e.account(u).Deposits()); n != 1 {
		t.Fatalf("%d deposits, want the declared one only", n)
	}
	if id, status := e.transferRow(tr); id != declared.ID || status != string(chain.StatusCredited) {
		t.Fatalf("transfer row: deposit %s status %s, want credited on %s", id, status, declared.ID)
	}
	st, err := command.Load(context.Background(), e.commands, eventstore.StreamID(chain.Stream(tr.Key(payout.Ethereum))), chain.NewTransferState)
	if err != nil || st.Status() != chain.StatusCredited {
		t.Fatalf("transfer stream: %v, %v", st.Status(), err)
	}
	e.wantBooks()
}

// TestSeenPayingAnotherInvestor: investor B declared a transfer that paid investor A's own
// address. A is credited by the watcher; staff can no longer confirm B's claim.
func TestSeenPayingAnotherInvestor(t *testing.T) {
	t.Parallel()
	e := newLinkEnv(t)
	ua, ub := e.user("ann@example.com", "subscriber"), e.user("bob@example.com", "subscriber")
	staff := e.user("ada@example.com", "admin")
	tr := usdt(txh(23), addrA, "30.000000")
	claim := e.declare(ub, "30", tr.TxHash)
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: ua}, 0)
	src.mine(tr)
	e.pass(w, src)
	if d, ok := e.deposit(ua, tr); !ok || d.Source != account.SourceChain {
		t.Fatalf("A's deposit: %+v (found %v)", d, ok)
	}
	err := e.confirmByHand(staff, claim.TransactionID, "30")
	if !errors.Is(err, money.ErrPaidAnotherInvestor) {
		t.Fatalf("confirming B's claim: %v, want ErrPaidAnotherInvestor", err)
	}
	src.mine()
	src.mine()
	e.pass(w, src)
	e.wantAvailable(ua, "30.00")
	e.wantAvailable(ub, "0.00")
	// Staff may still reject B's claim, with the reason.
	if _, err := e.money.RejectDeposit(context.Background(), money.Actor{UserID: staff, Role: "admin"},
		money.DecisionInput{TransactionID: claim.TransactionID, Notes: "This transfer paid another account."}); err != nil {
		t.Fatal(err)
	}
	e.wantBooks()
}

// TestSeenAfterStaffRejectedIsItsOwnDeposit: a declared deposit staff rejected does not hold
// the transfer back: it is recorded and credited as a deposit of its own.
func TestSeenAfterStaffRejectedIsItsOwnDeposit(t *testing.T) {
	t.Parallel()
	e := newLinkEnv(t)
	u, staff := e.user("ivy@example.com", "subscriber"), e.user("ada@example.com", "admin")
	tr := usdt(txh(24), addrA, "20.000000")
	declared := e.declare(u, "20", tr.TxHash)
	if _, err := e.money.RejectDeposit(context.Background(), money.Actor{UserID: staff, Role: "admin"},
		money.DecisionInput{TransactionID: declared.TransactionID, Notes: "Not seen yet"}); err != nil {
		t.Fatal(err)
	}
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	src.mine(tr)
	src.mine()
	src.mine()
	e.pass(w, src)
	e.wantAvailable(u, "20.00")
	if d, ok := e.deposit(u, tr); !ok || d.Status != account.StatusConfirmed {
		t.Fatalf("chain deposit: %+v (found %v)", d, ok)
	}
	e.wantBooks()
}

// TestProgressCountsConfirmations: a pending chain deposit reads "n of 3" as blocks arrive,
// and drops out of the progress once credited; a deposit the watcher has no row for is absent.
func TestProgressCountsConfirmations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := uuid.NewString()
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	tr := usdt(txh(31), addrA, "5.000000")
	src.mine(tr)
	e.pass(w, src)
	id := chainwatch.DepositID(tr.Key(payout.Ethereum))
	r := chainwatch.NewProgressReader(e.env.Pool)
	for i, want := range []chainwatch.Progress{{Confirmations: 1, Needed: 3}, {Confirmations: 2, Needed: 3}} {
		got, err := r.Progress(context.Background(), []string{id, "no-such-deposit"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[id] != want {
			t.Fatalf("step %d: progress %+v, want %+v", i, got, want)
		}
		src.mine()
		e.pass(w, src)
	}
	got, err := r.Progress(context.Background(), []string{id})
	if err != nil || len(got) != 0 {
		t.Fatalf("credited deposit's progress: %+v, %v", got, err)
	}
	if n := chainwatch.Needed(string(payout.Bitcoin)); n != 2 {
		t.Fatalf("Bitcoin's default: %d", n)
	}
}

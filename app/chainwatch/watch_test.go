package chainwatch_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/app/accounts/accountstest"
	"clearvest/app/chainwatch"
	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/eventstore"
	"clearvest/platform/config"
	"clearvest/projections"
)

// fakeChain is a node in memory: its best chain, which a test mines on and reorganises, and an
// outage switch.
type fakeChain struct {
	mu     sync.Mutex
	blocks []chain.Block // blocks[i] has height i+1
	fork   int
	down   bool
}

func (f *fakeChain) Network() payout.Network { return payout.Ethereum }

func (f *fakeChain) Tip(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return 0, errors.New("connection refused")
	}
	return uint64(len(f.blocks)), nil
}

func (f *fakeChain) Block(_ context.Context, h uint64) (chain.Block, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return chain.Block{}, errors.New("connection refused")
	}
	if h == 0 || h > uint64(len(f.blocks)) {
		return chain.Block{}, fmt.Errorf("no block %d", h)
	}
	return f.blocks[h-1], nil
}

func (f *fakeChain) TxStatus(_ context.Context, tx string) (chain.TxState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.blocks {
		for _, t := range b.Transfers {
			if t.TxHash == tx {
				return chain.TxState{Found: true, Height: b.Height}, nil
			}
		}
	}
	return chain.TxState{}, nil
}

// mine appends a block with the given transfers.
func (f *fakeChain) mine(ts ...chain.Transfer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := uint64(len(f.blocks)) + 1
	parent := ""
	if h > 1 {
		parent = f.blocks[h-2].Hash
	}
	f.blocks = append(f.blocks, chain.Block{Height: h, Hash: fmt.Sprintf("0x%d-%d", f.fork, h), Parent: parent, Time: time.Now(), Transfers: ts})
}

// reorg removes the blocks above height; the next blocks mined are another branch.
func (f *fakeChain) reorg(height int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blocks = f.blocks[:height]
	f.fork++
}

type owners map[string]string

func (o owners) Owners(_ context.Context, _ payout.Network, addresses []string) (map[string]string, error) {
	out := map[string]string{}
	for _, a := range addresses {
		if u, ok := o[a]; ok {
			out[a] = u
		}
	}
	return out, nil
}

type fixedRates struct{}

func (fixedRates) Rate(_ context.Context, a asset.Asset) (string, time.Time, bool, error) {
	if a == asset.USDT {
		return "1", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), true, nil
	}
	return "", time.Time{}, false, nil
}

type env struct {
	t        *testing.T
	env      *accountstest.Env
	money    *money.Service
	commands *command.Runner
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		chain.RegisterEvents(codec)
		return nil
	}, money.Migrations, chainwatch.Migrations))
	fee, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := money.New(money.Config{PublicURL: accountstest.PublicURL, WithdrawalFee: fee},
		money.Deps{Pool: e.Pool, Commands: e.Commands, Sender: e.Sender, Clock: e.Clock})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, env: e, money: svc, commands: e.Commands}
}

func (e *env) watcher(src *fakeChain, own owners, lease time.Duration) *chainwatch.Watcher {
	e.t.Helper()
	w, err := chainwatch.New(chainwatch.Config{Networks: map[payout.Network]chainwatch.Network{payout.Ethereum: {Confirmations: 3, StartHeight: 1}}, Lease: lease},
		chainwatch.Deps{Pool: e.env.Pool, Commands: e.commands, Money: e.money, Sources: []chainwatch.Source{src}, Owners: own, Rates: fixedRates{}, Clock: e.env.Clock})
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

func (e *env) account(userID string) *account.Account {
	e.t.Helper()
	acc, err := command.Load(context.Background(), e.commands, eventstore.StreamID(account.Stream(userID)), account.NewFor(userID))
	if err != nil {
		e.t.Fatal(err)
	}
	return acc
}

func (e *env) deposit(userID string, tr chain.Transfer) (account.Deposit, bool) {
	return e.account(userID).Deposit(chainwatch.DepositID(tr.Key(payout.Ethereum)))
}

// txh is a well-formed Ethereum transaction hash ending in n.
func txh(n int) string { return fmt.Sprintf("0x%064x", n) }

func usdt(tx, addr, amount string) chain.Transfer {
	return chain.Transfer{TxHash: tx, Index: 0, Address: addr, Asset: asset.USDT, Amount: amount}
}

func (e *env) pass(w *chainwatch.Watcher, src *fakeChain) {
	e.t.Helper()
	if err := w.Pass(context.Background(), src); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) wantAvailable(userID, want string) {
	e.t.Helper()
	if got := e.account(userID).Available().String(); got != want {
		e.t.Fatalf("available of %s = %s, want %s", userID, got, want)
	}
}

const addrA, addrB = "0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa", "0xBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBb"

// TestCreditedAfterConfirmationsNotBefore: a transfer is a pending deposit from the block it is
// in, credited at the third confirmation and never again, however often the chain is read.
func TestCreditedAfterConfirmationsNotBefore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := uuid.NewString()
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	tr := usdt(txh(1), addrA, "250.000000")
	src.mine(tr)
	e.pass(w, src)
	d, ok := e.deposit(u, tr)
	if !ok || d.Status != account.StatusPending || d.Source != account.SourceChain || d.Amount.String() != "250.00" {
		t.Fatalf("after 1 confirmation: deposit %+v (found %v), want a pending chain deposit of 250.00", d, ok)
	}
	src.mine()
	e.pass(w, src)
	e.wantAvailable(u, "0.00")
	src.mine()
	e.pass(w, src)
	e.wantAvailable(u, "250.00")
	if d, _ := e.deposit(u, tr); d.Status != account.StatusConfirmed {
		t.Fatalf("after 3 confirmations: status %s", d.Status)
	}
	// Read again from the start (a new instance, the cursor reset): nothing more is credited.
	src.mine()
	e.pass(w, src)
	if _, err := e.env.Pool.Exec(context.Background(), `UPDATE chain_cursors SET height = 0, hash = ''`); err != nil {
		t.Fatal(err)
	}
	e.pass(e.watcher(src, owners{addrA: u}, 0), src)
	e.wantAvailable(u, "250.00")
}

// TestReorgBeforeConfirmationsRejects: the block of a transfer with 2 confirmations is replaced;
// its deposit is rejected with a reason the investor reads and nothing is credited, even as the
// new chain grows past 3 blocks. When the transfer reappears it is detected again and credited.
func TestReorgBeforeConfirmationsRejects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := uuid.NewString()
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	src.mine()
	tr := usdt(txh(2), addrA, "100.000000")
	src.mine(tr)
	src.mine()
	e.pass(w, src)
	src.reorg(1)
	src.mine()
	src.mine()
	src.mine()
	src.mine()
	e.pass(w, src)
	d, _ := e.deposit(u, tr)
	if d.Status != account.StatusRejected || d.Notes != chainwatch.DroppedReason {
		t.Fatalf("after the reorganisation: deposit %+v, want rejected with the dropped reason", d)
	}
	e.wantAvailable(u, "0.00")
	// The transfer is mined again in the new branch: a new detection on the same stream and a
	// new deposit, credited once it has its confirmations.
	src.mine(tr)
	src.mine()
	src.mine()
	e.pass(w, src)
	st, err := command.Load(context.Background(), e.commands, eventstore.StreamID(chain.Stream(tr.Key(payout.Ethereum))), chain.NewTransferState)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status() != chain.StatusCredited || st.Detections() != 2 {
		t.Fatalf("reappeared transfer: status %s, detections %d", st.Status(), st.Detections())
	}
	e.wantAvailable(u, "100.00")
	if n := len(e.account(u).Deposits()); n != 2 {
		t.Fatalf("%d deposits, want the rejected one and the credited one", n)
	}
}

// TestOrphanedAfterCreditIsFlagged: a credited transfer whose block is then replaced is listed
// for staff, and the balance is unchanged.
func TestOrphanedAfterCreditIsFlagged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := uuid.NewString()
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	src.mine()
	tr := usdt(txh(3), addrA, "40.000000")
	src.mine(tr)
	src.mine()
	src.mine()
	e.pass(w, src)
	e.wantAvailable(u, "40.00")
	src.reorg(1)
	for range 5 {
		src.mine()
	}
	e.pass(w, src)
	e.wantAvailable(u, "40.00")
	orphans, err := w.Orphaned(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(orphans) != 1 || orphans[0].Key != tr.Key(payout.Ethereum) || orphans[0].UserID != u {
		t.Fatalf("orphans = %+v", orphans)
	}
	if d, err := w.Detail(context.Background()); err != nil || d == "" {
		t.Fatalf("readiness detail %q, %v: want the orphan reported", d, err)
	}
}

// TestTwoJobsAndTwoInvestorsCreditOnce: two jobs with no lease read the same chain at once; two
// investors paid in the same block each get exactly their own, once.
func TestTwoJobsAndTwoInvestorsCreditOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ua, ub := uuid.NewString(), uuid.NewString()
	own := owners{addrA: ua, addrB: ub}
	src := &fakeChain{}
	w1, w2 := e.watcher(src, own, -1), e.watcher(src, own, -1)
	src.mine(usdt(txh(4), addrA, "10.000000"), usdt(txh(5), addrB, "20.000000"), usdt(txh(6), "0xCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCc", "5"))
	for range 4 {
		src.mine()
	}
	var wg sync.WaitGroup
	for _, w := range []*chainwatch.Watcher{w1, w2, w1, w2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.RunOnce(context.Background())
		}()
	}
	wg.Wait()
	// Whatever the race left, the next passes finish it.
	e.pass(w1, src)
	e.pass(w2, src)
	e.wantAvailable(ua, "10.00")
	e.wantAvailable(ub, "20.00")
	if n := len(e.account(ua).Deposits()); n != 1 {
		t.Fatalf("investor A has %d deposits, want 1", n)
	}
}

// TestNodeOutageLosesNothing: while the node is down passes fail (health says so) and nothing
// moves; when it returns, the transfer is detected and credited.
func TestNodeOutageLosesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := uuid.NewString()
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: u}, 0)
	tr := usdt(txh(7), addrA, "7.000000")
	src.mine(tr)
	src.mine()
	src.mine()
	src.down = true
	if err := w.Pass(context.Background(), src); err == nil {
		t.Fatal("a pass with the node down succeeded")
	}
	if d, _ := w.Detail(context.Background()); d == "" {
		t.Fatal("readiness detail empty with the node down")
	}
	src.mu.Lock()
	src.down = false
	src.mu.Unlock()
	e.pass(e.watcher(src, owners{addrA: u}, 0), src) // a new instance: the lease of the old one is its own id's
	e.pass(w, src)
	e.wantAvailable(u, "7.00")
}

package chainwatch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"clearvest/app/chainwatch"
	"clearvest/domain/account"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/platform/chain/bitcoin"
	"clearvest/platform/chain/bitcoin/btcdtest"
)

// TestBitcoinEndToEnd runs the watcher against a real btcd (simnet) through the Bitcoin source:
// one node for every scenario, each scenario with its own database from the node's tip on.
func TestBitcoinEndToEnd(t *testing.T) {
	t.Parallel()
	node := btcdtest.Start(t)
	node.Fund(t)
	src, err := bitcoin.New(node.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	const sats, usd = 1_500_000, "750.00" // 0.015 BTC at 50 000

	t.Run("CreditedAtThirdConfirmation", func(t *testing.T) {
		e := newE2E(t, src, node.Tip(t))
		users, addrs, own := bitcoinInvestors(t, btcdtest.Network, 1)
		w := e.watcher(own, 0)
		tx := node.Send(t, addrs[0], sats)
		node.Mine(t, 1)
		e.pass(w)
		if d := e.wantDeposit(users[0], tx, account.StatusPending); d.Amount.String() != usd || d.OnChainAmount != "0.015" || d.Asset != "BTC" {
			t.Fatalf("pending deposit %+v, want %s USD for 0.015 BTC", d, usd)
		}
		node.Mine(t, 1)
		e.pass(w)
		e.wantDeposit(users[0], tx, account.StatusPending)
		e.wantBalance(users[0], "0.00") // N−1 confirmations
		node.Mine(t, 1)
		e.pass(w)
		e.wantDeposit(users[0], tx, account.StatusConfirmed)
		e.wantBalance(users[0], usd)
	})

	t.Run("ReorganisedAwayBeforeCredit", func(t *testing.T) {
		e := newE2E(t, src, node.Tip(t))
		users, addrs, own := bitcoinInvestors(t, btcdtest.Network, 1)
		w := e.watcher(own, 0)
		node.Mine(t, 1) // the fork point, a block the watcher has processed
		tx := node.Send(t, addrs[0], sats)
		node.Mine(t, 1)
		height := node.Tip(t)
		node.Mine(t, 1)
		e.pass(w)
		e.wantDeposit(users[0], tx, account.StatusPending)
		// The payment's block is replaced and the payment double-spent away; the new chain
		// grows well past the confirmations.
		node.ForceReorg(t, height, tx)
		node.Mine(t, e2eConfirmations)
		e.pass(w)
		if d := e.wantDeposit(users[0], tx, account.StatusRejected); d.Notes != chainwatch.DroppedReason {
			t.Fatalf("rejected deposit's reason %q", d.Notes)
		}
		e.wantBalance(users[0], "0.00")
	})

	t.Run("TwoInvestorsOneBlockSeenTwiceCreditedOnce", func(t *testing.T) {
		e := newE2E(t, src, node.Tip(t))
		users, addrs, own := bitcoinInvestors(t, btcdtest.Network, 2)
		txA := node.Send(t, addrs[0], sats)
		txB := node.Send(t, addrs[1], 2*sats)
		node.Mine(t, e2eConfirmations)
		// Two processes without a lease over the same blocks, then everything read again.
		e.race(e.watcher(own, -1), e.watcher(own, -1))
		e.rewind()
		e.pass(e.watcher(own, 0))
		e.wantDeposit(users[0], txA, account.StatusConfirmed)
		e.wantDeposit(users[1], txB, account.StatusConfirmed)
		e.wantBalance(users[0], usd)
		e.wantBalance(users[1], "1500.00")
		if n := len(e.account(users[0]).Deposits()) + len(e.account(users[1]).Deposits()); n != 2 {
			t.Fatalf("%d deposits, want one each", n)
		}
	})

	t.Run("WatcherAndNodeRestartLoseNothing", func(t *testing.T) {
		e := newE2E(t, src, node.Tip(t))
		users, addrs, own := bitcoinInvestors(t, btcdtest.Network, 1)
		tx1 := node.Send(t, addrs[0], sats)
		node.Mine(t, 1)
		e.pass(e.watcher(own, 0))
		e.wantDeposit(users[0], tx1, account.StatusPending)
		tx2 := node.Send(t, addrs[0], 2*sats) // mined before the outage, read after it
		node.Mine(t, 1)
		node.Stop(t)
		// A new watcher (a restarted process, the old one's lease run out) while the node is
		// down: the pass fails and says so.
		e.expireLease()
		w := e.watcher(own, 0)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second) // rpcclient retries a refused connection for ~20 s
		err := w.Pass(ctx, src)
		cancel()
		if err == nil {
			t.Fatal("a pass with the node down succeeded")
		}
		if h := w.Health()[payout.Bitcoin]; h.LastError == "" || !h.LastErrorAt.After(h.LastSuccess) {
			t.Fatalf("health with the node down: %+v", h)
		}
		if d, err := w.Detail(context.Background()); err != nil || !strings.Contains(d, "node failing") {
			t.Fatalf("readiness detail with the node down: %q, %v", d, err)
		}
		node.Restart(t)
		node.Mine(t, 2)
		e.pass(w)
		e.wantDeposit(users[0], tx1, account.StatusConfirmed)
		e.wantDeposit(users[0], tx2, account.StatusConfirmed)
		e.wantBalance(users[0], "2250.00")
		if d, err := w.Detail(context.Background()); err != nil || d != "" {
			t.Fatalf("readiness detail after the node came back: %q, %v", d, err)
		}
	})

	t.Run("PayoutSeenThenFinal", func(t *testing.T) {
		e := newE2E(t, src, node.Tip(t))
		w := e.watcher(owners{}, 0)
		tx := node.Send(t, node.MiningAddress(), 100_000)
		uid, wid := e.recordPayout(tx)
		e.pass(w) // in the mempool: nothing to record
		e.wantSightings(wid, tx)
		node.Mine(t, 1)
		height := node.Tip(t)
		e.pass(w)
		e.wantSightings(wid, tx, chain.PayoutSeen{Status: chain.PayoutConfirming, Height: height, Confirmations: 1})
		e.wantPayoutRead(uid, wid, chain.PayoutConfirming, 1)
		node.Mine(t, 2)
		e.pass(w)
		node.Mine(t, 1)
		e.pass(w) // final: not looked at again
		e.wantSightings(wid, tx, chain.PayoutSeen{Status: chain.PayoutConfirming, Height: height, Confirmations: 1},
			chain.PayoutSeen{Status: chain.PayoutFinal, Height: height, Confirmations: e2eConfirmations})
		e.wantPayoutRead(uid, wid, chain.PayoutFinal, e2eConfirmations)
	})
}

package chainwatch_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"clearvest/app/chainwatch"
	"clearvest/domain/account"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/platform/chain/ethereum"
	"clearvest/platform/chain/ethereum/anviltest"
)

// TestEthereumEndToEnd runs the watcher against a real anvil through the Ethereum source, with
// the six-decimal test token as USDT and plain ether: one node for every scenario, each scenario
// with its own database from the node's tip on.
func TestEthereumEndToEnd(t *testing.T) {
	t.Parallel()
	node := anviltest.Start(t, anviltest.Options{})
	token := node.DeployToken()
	src, err := ethereum.Dial(context.Background(), ethereum.Config{RPCURL: node.URL, Token: token, TokenDecimals: anviltest.TokenDecimals})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	usdt := big.NewInt(250_000_000)                            // 250 USDT
	ether := new(big.Int).Mul(big.NewInt(2), big.NewInt(1e17)) // 0.2 ETH, 500.00 at 2 500

	t.Run("CreditedAtThirdConfirmation", func(t *testing.T) {
		e := newE2E(t, src, node.Height())
		users, addrs, own := ethereumInvestors(t, 2)
		w := e.watcher(own, 0)
		tokenTx := node.SendToken(addrs[0], usdt)
		etherTx := node.SendEther(addrs[1], ether)
		node.Mine(1)
		e.pass(w)
		if d := e.wantDeposit(users[0], tokenTx, account.StatusPending); d.Amount.String() != "250.00" || d.OnChainAmount != "250" || d.Asset != "USDT" {
			t.Fatalf("pending token deposit %+v", d)
		}
		if d := e.wantDeposit(users[1], etherTx, account.StatusPending); d.Amount.String() != "500.00" || d.OnChainAmount != "0.2" || d.Asset != "ETH" {
			t.Fatalf("pending ether deposit %+v", d)
		}
		node.Mine(1)
		e.pass(w)
		e.wantBalance(users[0], "0.00") // N−1 confirmations
		e.wantBalance(users[1], "0.00")
		node.Mine(1)
		e.pass(w)
		e.wantDeposit(users[0], tokenTx, account.StatusConfirmed)
		e.wantDeposit(users[1], etherTx, account.StatusConfirmed)
		e.wantBalance(users[0], "250.00")
		e.wantBalance(users[1], "500.00")
	})

	t.Run("ReorganisedAwayBeforeCredit", func(t *testing.T) {
		e := newE2E(t, src, node.Height())
		users, addrs, own := ethereumInvestors(t, 1)
		w := e.watcher(own, 0)
		node.Mine(1) // the fork point, a block the watcher has processed
		snap := node.Snapshot()
		tx := node.SendToken(addrs[0], usdt)
		node.Mine(2)
		e.pass(w)
		e.wantDeposit(users[0], tx, account.StatusPending)
		node.Revert(snap)
		node.Mine(e2eConfirmations + 2)
		e.pass(w)
		if d := e.wantDeposit(users[0], tx, account.StatusRejected); d.Notes != chainwatch.DroppedReason {
			t.Fatalf("rejected deposit's reason %q", d.Notes)
		}
		e.wantBalance(users[0], "0.00")
	})

	t.Run("TwoInvestorsOneBlockSeenTwiceCreditedOnce", func(t *testing.T) {
		e := newE2E(t, src, node.Height())
		users, addrs, own := ethereumInvestors(t, 2)
		txA := node.SendToken(addrs[0], usdt)
		txB := node.SendToken(addrs[1], new(big.Int).Mul(usdt, big.NewInt(2)))
		node.Mine(e2eConfirmations)
		e.race(e.watcher(own, -1), e.watcher(own, -1))
		e.rewind()
		e.pass(e.watcher(own, 0))
		e.wantDeposit(users[0], txA, account.StatusConfirmed)
		e.wantDeposit(users[1], txB, account.StatusConfirmed)
		e.wantBalance(users[0], "250.00")
		e.wantBalance(users[1], "500.00")
		if n := len(e.account(users[0]).Deposits()) + len(e.account(users[1]).Deposits()); n != 2 {
			t.Fatalf("%d deposits, want one each", n)
		}
	})

	t.Run("WatcherAndNodeRestartLoseNothing", func(t *testing.T) {
		e := newE2E(t, src, node.Height())
		users, addrs, own := ethereumInvestors(t, 1)
		tx1 := node.SendToken(addrs[0], usdt)
		node.Mine(1)
		e.pass(e.watcher(own, 0))
		e.wantDeposit(users[0], tx1, account.StatusPending)
		tx2 := node.SendEther(addrs[0], ether) // mined before the outage, read after it
		node.Mine(1)
		node.Stop()
		e.expireLease()
		w := e.watcher(own, 0)
		if err := w.Pass(context.Background(), src); err == nil {
			t.Fatal("a pass with the node down succeeded")
		}
		if h := w.Health()[payout.Ethereum]; h.LastError == "" || !h.LastErrorAt.After(h.LastSuccess) {
			t.Fatalf("health with the node down: %+v", h)
		}
		if d, err := w.Detail(context.Background()); err != nil || !strings.Contains(d, "node failing") {
			t.Fatalf("readiness detail with the node down: %q, %v", d, err)
		}
		node.Restart()
		node.Mine(2)
		e.pass(w)
		e.wantDeposit(users[0], tx1, account.StatusConfirmed)
		e.wantDeposit(users[0], tx2, account.StatusConfirmed)
		e.wantBalance(users[0], "750.00")
		if d, err := w.Detail(context.Background()); err != nil || d != "" {
			t.Fatalf("readiness detail after the node came back: %q, %v", d, err)
		}
	})

	t.Run("PayoutFinalAndRevertedPayoutFailed", func(t *testing.T) {
		e := newE2E(t, src, node.Height())
		w := e.watcher(owners{}, 0)
		to := node.Accounts()[2].Hex()
		paid := node.SendToken(to, usdt)
		reverted := node.SendTokenFailing(to, usdt)
		paidBy, paidID := e.recordPayout(paid)
		revertedBy, revertedID := e.recordPayout(reverted)
		height := node.Mine(1)
		e.pass(w)
		e.wantSightings(paidID, paid, chain.PayoutSeen{Status: chain.PayoutConfirming, Height: height, Confirmations: 1})
		e.wantSightings(revertedID, reverted, chain.PayoutSeen{Status: chain.PayoutFailed, Height: height, Confirmations: 1})
		if d, err := w.Detail(context.Background()); err != nil || !strings.Contains(d, "1 recorded payouts failed") {
			t.Fatalf("readiness detail with a failed payout: %q, %v", d, err)
		}
		failed, err := chainwatch.FailedPayouts(context.Background(), e.env.env.Pool)
		if err != nil || len(failed) != 1 || failed[0].WithdrawalID != revertedID || failed[0].TxHash != reverted || failed[0].Height != height {
			t.Fatalf("failed payouts %+v, %v", failed, err)
		}
		node.Mine(2)
		e.pass(w)
		node.Mine(1)
		e.pass(w)
		e.wantSightings(paidID, paid, chain.PayoutSeen{Status: chain.PayoutConfirming, Height: height, Confirmations: 1},
			chain.PayoutSeen{Status: chain.PayoutFinal, Height: height, Confirmations: e2eConfirmations})
		e.wantSightings(revertedID, reverted, chain.PayoutSeen{Status: chain.PayoutFailed, Height: height, Confirmations: 1},
			chain.PayoutSeen{Status: chain.PayoutFailed, Height: height, Confirmations: e2eConfirmations})
		e.wantPayoutRead(paidBy, paidID, chain.PayoutFinal, e2eConfirmations)
		e.wantPayoutRead(revertedBy, revertedID, chain.PayoutFailed, e2eConfirmations)
	})

	t.Run("PayoutReorganisedAway", func(t *testing.T) {
		e := newE2E(t, src, node.Height())
		w := e.watcher(owners{}, 0)
		node.Mine(1) // the fork point, a block the watcher has processed
		snap := node.Snapshot()
		tx := node.SendToken(node.Accounts()[2].Hex(), usdt)
		uid, wid := e.recordPayout(tx)
		height := node.Mine(1)
		e.pass(w)
		node.Revert(snap)
		node.Mine(2)
		e.pass(w)
		e.wantSightings(wid, tx, chain.PayoutSeen{Status: chain.PayoutConfirming, Height: height, Confirmations: 1},
			chain.PayoutSeen{Status: chain.PayoutMissing})
		e.wantPayoutRead(uid, wid, chain.PayoutMissing, 0)
	})
}

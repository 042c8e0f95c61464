package chainwatch_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/app/accounts/accountstest"
	"clearvest/app/chainwatch"
	"clearvest/app/command"
	appmoney "clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/eventstore"
	"clearvest/platform/chain/hdaddr"
	"clearvest/platform/chain/hdaddr/hdaddrtest"
	"clearvest/platform/config"
	"clearvest/projections"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// The end-to-end tests run the watcher against real local nodes (btcd in simnet, anvil) through
// the real sources, on a real database, with the deposit addresses derived from the test seed.
// Passes are driven by hand and every block is mined by the test: nothing waits for time.

// e2eConfirmations is what the end-to-end tests credit at; N−1 must not credit.
const e2eConfirmations = 3

// e2eRates prices BTC and ETH at fixed rates, USDT at 1.
type e2eRates struct{}

var e2eRateAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (e2eRates) Rate(_ context.Context, a asset.Asset) (string, time.Time, bool, error) {
	switch a {
	case asset.USDT:
		return "1", e2eRateAt, true, nil
	case asset.BTC:
		return "50000", e2eRateAt, true, nil
	case asset.ETH:
		return "2500", e2eRateAt, true, nil
	}
	return "", time.Time{}, false, nil
}

// e2e is one scenario: its own database, a source of the shared node, and the height its
// watchers start from (the blocks of earlier scenarios are not its business).
type e2e struct {
	*env
	src   chainwatch.Source
	start uint64
}

func newE2E(t *testing.T, src chainwatch.Source, tip uint64) *e2e {
	t.Helper()
	// The read models the investor's and staff's pages read: the books, balances and withdrawals.
	ae := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		chain.RegisterEvents(codec)
		return []projections.Projection{ledger.New(codec), wallets.New(codec), withdrawals.New(codec)}
	}, appmoney.Migrations, chainwatch.Migrations))
	fee, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := appmoney.New(appmoney.Config{PublicURL: accountstest.PublicURL, WithdrawalFee: fee},
		appmoney.Deps{Pool: ae.Pool, Commands: ae.Commands, Sender: ae.Sender, Clock: ae.Clock})
	if err != nil {
		t.Fatal(err)
	}
	return &e2e{env: &env{t: t, env: ae, money: svc, commands: ae.Commands}, src: src, start: tip + 1}
}

func (e *e2e) watcher(own owners, lease time.Duration) *chainwatch.Watcher {
	e.t.Helper()
	n := e.src.Network()
	w, err := chainwatch.New(chainwatch.Config{Networks: map[payout.Network]chainwatch.Network{n: {Confirmations: e2eConfirmations, StartHeight: e.start}}, Lease: lease},
		chainwatch.Deps{Pool: e.env.env.Pool, Commands: e.commands, Money: e.money, Sources: []chainwatch.Source{e.src}, Owners: own, Rates: e2eRates{}, Clock: e.env.env.Clock})
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

func (e *e2e) pass(w *chainwatch.Watcher) {
	e.t.Helper()
	if err := w.Pass(context.Background(), e.src); err != nil {
		e.t.Fatalf("pass: %v", err)
	}
}

// deposits are the investor's deposits of the transaction.
func (e *e2e) deposits(userID, txHash string) []account.Deposit {
	e.t.Helper()
	var out []account.Deposit
	for _, d := range e.account(userID).Deposits() {
		if d.TxHash == txHash {
			out = append(out, d)
		}
	}
	return out
}

// wantDeposit checks that the investor has exactly one deposit of the transaction, in status,
// and returns it.
func (e *e2e) wantDeposit(userID, txHash string, status account.Status) account.Deposit {
	e.t.Helper()
	ds := e.deposits(userID, txHash)
	if len(ds) != 1 || ds[0].Status != status || ds[0].Source != account.SourceChain {
		e.t.Fatalf("deposits of %s for %s: %+v; want one chain deposit, %s", userID, txHash, ds, status)
	}
	return ds[0]
}

// wantBalance checks the investor's available balance on their account and as the money service
// reads it for their pages (the balances read model, once it has caught up).
func (e *e2e) wantBalance(userID, want string) {
	e.t.Helper()
	e.wantAvailable(userID, want)
	e.env.env.CatchUp(e.t)
	b, err := e.money.Balances(context.Background(), userID)
	if err != nil {
		e.t.Fatal(err)
	}
	if b.Available.String() != want {
		e.t.Fatalf("balances read of %s: available %s, want %s", userID, b.Available, want)
	}
}

// wantPayoutRead checks the payout as the investor reads it on their withdrawal.
func (e *e2e) wantPayoutRead(userID, withdrawalID string, status chain.PayoutStatus, confirmations uint64) {
	e.t.Helper()
	e.env.env.CatchUp(e.t)
	w, err := e.money.Withdrawal(context.Background(), appmoney.Actor{UserID: userID}, withdrawalID)
	if err != nil {
		e.t.Fatal(err)
	}
	if w.OnChain.Status != status || w.OnChain.Confirmations != confirmations {
		e.t.Fatalf("withdrawal %s as its owner reads it: on chain %+v, want %s with %d confirmations", withdrawalID, w.OnChain, status, confirmations)
	}
}

// race runs passes of two watchers without a lease at once, then once more each, over the same
// blocks.
func (e *e2e) race(w1, w2 *chainwatch.Watcher) {
	e.t.Helper()
	var wg sync.WaitGroup
	for _, w := range []*chainwatch.Watcher{w1, w2, w1, w2} {
		wg.Go(func() { w.RunOnce(context.Background()) })
	}
	wg.Wait()
	e.pass(w1)
	e.pass(w2)
}

// rewind puts the network's cursor back to before the scenario's first block, as a watcher
// reading everything again.
func (e *e2e) rewind() {
	e.t.Helper()
	if _, err := e.env.env.Pool.Exec(context.Background(), `UPDATE chain_cursors SET height = $1, hash = ''`, int64(e.start-1)); err != nil {
		e.t.Fatal(err)
	}
}

// expireLease ends the lease of the process that worked the network last, as when it stopped
// and its lease ran out.
func (e *e2e) expireLease() {
	e.t.Helper()
	if _, err := e.env.env.Pool.Exec(context.Background(), `UPDATE chain_cursors SET lease_until = 'epoch'`); err != nil {
		e.t.Fatal(err)
	}
}

// recordPayout records, as staff do, that a withdrawal of a new investor was paid out in txHash
// on the network: the account's approval and the payout hash's claim, in one round trip.
func (e *e2e) recordPayout(txHash string) (userID, withdrawalID string) {
	e.t.Helper()
	n := e.src.Network()
	userID, withdrawalID = uuid.NewString(), uuid.NewString()
	staff := uuid.NewString()
	at := e.env.env.Clock.Now()
	to, a := map[payout.Network]string{payout.Bitcoin: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
		payout.Ethereum: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"}[n], asset.USDT
	if n == payout.Bitcoin {
		a = asset.BTC
	}
	_, err := command.Submit(context.Background(), e.commands, eventstore.StreamID(account.Stream(userID)), account.NewFor(userID), eventstore.Metadata{},
		func(acc *account.Account, w *command.Writes) error {
			dep := uuid.NewString()
			if err := acc.RequestDeposit(account.DepositRequest{DepositID: dep, TransactionID: "DEP-" + dep[:8], Amount: money.MustParse("500"),
				Asset: "USDT", Network: "TRC20", OnChainAmount: "500", USDRate: "1"}, at); err != nil {
				return err
			}
			if err := acc.ConfirmDeposit(dep, money.MustParse("500"), "", staff, at); err != nil {
				return err
			}
			if err := acc.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: withdrawalID, Amount: money.MustParse("100"), Fee: money.MustParse("2"),
				Address: to, Network: string(n), Asset: string(a)}, at); err != nil {
				return err
			}
			if err := acc.ApproveWithdrawal(withdrawalID, account.Payout{TxHash: txHash}, staff, at); err != nil {
				return err
			}
			w.Add(`INSERT INTO money_chain_tx_hashes (network, tx_hash, kind, ref, created_at) VALUES ($1, $2, 'payout', $3, $4)`,
				string(n), txHash, withdrawalID, at)
			return nil
		})
	if err != nil {
		e.t.Fatalf("record payout %s: %v", txHash, err)
	}
	return userID, withdrawalID
}

// payoutSightings are the events on the withdrawal's payout stream.
func (e *e2e) payoutSightings(withdrawalID string) []chain.PayoutSeen {
	e.t.Helper()
	envs, err := e.env.env.Store.ReadStream(context.Background(), eventstore.StreamID(chain.PayoutStream(withdrawalID)), 0, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []chain.PayoutSeen
	for _, env := range envs {
		ev, err := e.env.env.Codec.Decode(env)
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ev.(chain.PayoutSeen))
	}
	return out
}

// wantSightings checks the statuses and confirmations recorded on a payout's stream.
func (e *e2e) wantSightings(withdrawalID, txHash string, want ...chain.PayoutSeen) {
	e.t.Helper()
	got := e.payoutSightings(withdrawalID)
	same := slices.EqualFunc(got, want, func(g, w chain.PayoutSeen) bool {
		return g.Status == w.Status && g.Confirmations == w.Confirmations && g.Height == w.Height &&
			g.WithdrawalID == withdrawalID && g.TxHash == txHash && g.Network == string(e.src.Network())
	})
	if !same {
		e.t.Fatalf("payout sightings of %s:\n got %+v\nwant %+v", withdrawalID, got, want)
	}
}

// bitcoinInvestors are n new investors, their Bitcoin deposit addresses derived from the test
// seed (index i for investor i), and the owners a watcher asks.
func bitcoinInvestors(t *testing.T, network string, n int) ([]string, []string, owners) {
	t.Helper()
	d, err := hdaddr.NewBitcoin(hdaddrtest.BitcoinAccount(network), network)
	if err != nil {
		t.Fatal(err)
	}
	return investors(t, n, d.Address)
}

// ethereumInvestors is bitcoinInvestors on Ethereum.
func ethereumInvestors(t *testing.T, n int) ([]string, []string, owners) {
	t.Helper()
	d, err := hdaddr.NewEthereum(hdaddrtest.EthereumAccount())
	if err != nil {
		t.Fatal(err)
	}
	return investors(t, n, d.Address)
}

func investors(t *testing.T, n int, address func(uint32) (string, error)) ([]string, []string, owners) {
	t.Helper()
	users, addrs, own := make([]string, n), make([]string, n), owners{}
	for i := range n {
		a, err := address(uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		users[i], addrs[i] = uuid.NewString(), a
		own[a] = users[i]
	}
	return users, addrs, own
}

package bitcoin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2"

	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/platform/chain/bitcoin"
	"clearvest/platform/chain/bitcoin/btcdtest"
)

// The watcher's port, as app/chainwatch defines it; the Source must fit it.
var _ interface {
	Network() payout.Network
	Tip(context.Context) (uint64, error)
	Block(context.Context, uint64) (chain.Block, error)
	TxStatus(context.Context, string) (chain.TxState, error)
} = (*bitcoin.Source)(nil)

func newSource(t *testing.T, n *btcdtest.Node) *bitcoin.Source {
	t.Helper()
	s, err := bitcoin.New(n.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// depositAddress is a fresh P2WPKH address, as Clearvest derives them (BIP 84).
func depositAddress(t *testing.T) string {
	t.Helper()
	k, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	a, err := address.NewAddressWitnessPubKeyHash(address.Hash160(k.PubKey().SerializeCompressed()), btcdtest.Params)
	if err != nil {
		t.Fatal(err)
	}
	return a.EncodeAddress()
}

func transfersOf(b chain.Block, txHash string) []chain.Transfer {
	var out []chain.Transfer
	for _, tr := range b.Transfers {
		if tr.TxHash == txHash {
			out = append(out, tr)
		}
	}
	return out
}

func TestBlockHasPaymentToBech32Address(t *testing.T) {
	ctx := context.Background()
	n := btcdtest.Start(t)
	n.Fund(t)
	s := newSource(t, n)
	if s.Network() != payout.Bitcoin {
		t.Fatalf("Network() = %q", s.Network())
	}

	to := depositAddress(t)
	if !strings.HasPrefix(to, btcdtest.Params.Bech32HRPSegwit+"1q") {
		t.Fatalf("deposit address %q is not P2WPKH bech32", to)
	}
	tx := n.Send(t, to, 1_500_000)
	if _, found, err := txHeight(ctx, s, tx); err != nil || found {
		t.Fatalf("unconfirmed TxStatus = found %v, %v; want not found", found, err)
	}
	mined := n.Mine(t, 1)[0]

	tip, err := s.Tip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tip != n.Tip(t) {
		t.Fatalf("Tip = %d, node says %d", tip, n.Tip(t))
	}
	b, err := s.Block(ctx, tip)
	if err != nil {
		t.Fatal(err)
	}
	if b.Height != tip || b.Hash != mined {
		t.Fatalf("block %d %s, want %d %s", b.Height, b.Hash, tip, mined)
	}
	if b.Time.IsZero() || time.Since(b.Time) > time.Hour {
		t.Fatalf("block time %v", b.Time)
	}
	prev, err := s.Block(ctx, tip-1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Parent != prev.Hash || prev.Hash != n.BlockHash(t, tip-1) {
		t.Fatalf("parent %s, block %d is %s", b.Parent, tip-1, prev.Hash)
	}

	// The payment, and the change of a 50 BTC coinbase coin after the 0.0001 BTC fee.
	want := []chain.Transfer{
		{TxHash: tx, Index: 0, Address: to, Asset: asset.BTC, Amount: "0.015"},
		{TxHash: tx, Index: 1, Address: n.MiningAddress(), Asset: asset.BTC, Amount: "49.9849"},
	}
	got := transfersOf(b, tx)
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("transfers of %s: %+v, want %+v", tx, got, want)
	}
	// Besides them only the coinbase pays an address: the subsidy plus the fee.
	if len(b.Transfers) != 3 || b.Transfers[0].Address != n.MiningAddress() || b.Transfers[0].Amount != "50.0001" {
		t.Fatalf("block transfers %+v", b.Transfers)
	}

	h, found, err := txHeight(ctx, s, tx)
	if err != nil || !found || h != tip {
		t.Fatalf("TxStatus = %d %v %v, want %d true", h, found, err, tip)
	}
	if _, found, err := txHeight(ctx, s, "00000000000000000000000000000000000000000000000000000000000000aa"); err != nil || found {
		t.Fatalf("unknown TxStatus = found %v, %v", found, err)
	}
	if _, err := s.Block(ctx, tip+1); err == nil {
		t.Fatal("Block above the tip answered")
	}
}

func TestReorgTakesTheTransferOffTheChain(t *testing.T) {
	ctx := context.Background()
	n := btcdtest.Start(t)
	n.Fund(t)
	s := newSource(t, n)

	dropped, kept := depositAddress(t), depositAddress(t)
	dropTx, keepTx := n.Send(t, dropped, 2_000_000), n.Send(t, kept, 100_000_000)
	n.Mine(t, 1)
	height := n.Tip(t)
	n.Mine(t, 2)
	before, err := s.Block(ctx, height)
	if err != nil {
		t.Fatal(err)
	}
	if len(transfersOf(before, dropTx)) == 0 || len(transfersOf(before, keepTx)) == 0 {
		t.Fatalf("block %d lacks the payments: %+v", height, before.Transfers)
	}

	n.ForceReorg(t, height, dropTx)

	after, err := s.Block(ctx, height)
	if err != nil {
		t.Fatal(err)
	}
	if after.Hash == before.Hash || after.Parent != before.Parent {
		t.Fatalf("block %d: %s (parent %s) before, %s (parent %s) after", height, before.Hash, before.Parent, after.Hash, after.Parent)
	}
	tip, err := s.Tip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tip <= height+2 {
		t.Fatalf("new tip %d is not past the old one %d", tip, height+2)
	}
	keptAt := uint64(0)
	for h := height; h <= tip; h++ {
		b, err := s.Block(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range b.Transfers {
			if tr.Address == dropped || tr.TxHash == dropTx {
				t.Fatalf("dropped payment still in block %d: %+v", h, tr)
			}
			if tr.Address == kept && tr.Amount == "1" {
				keptAt = h
			}
		}
	}
	if _, found, err := txHeight(ctx, s, dropTx); err != nil || found {
		t.Fatalf("dropped TxStatus = found %v, %v", found, err)
	}
	// The other payment of the replaced block came back from the mempool into the new chain.
	h, found, err := txHeight(ctx, s, keepTx)
	if err != nil || !found || h != keptAt || keptAt == 0 {
		t.Fatalf("kept TxStatus = %d %v %v, seen in block %d", h, found, err, keptAt)
	}
}

func TestRestartKeepsBlocksAndStoppedNodeFailsFast(t *testing.T) {
	ctx := context.Background()
	n := btcdtest.Start(t)
	n.Mine(t, 5)
	s := newSource(t, n)
	b, err := s.Block(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}

	n.Stop(t)
	// A stopped node refuses connections, which rpcclient retries for about twenty seconds;
	// the Source gives up after its timeout.
	cfg := n.Config()
	cfg.Timeout = time.Second
	stopped, err := bitcoin.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer stopped.Close()
	start := time.Now()
	if _, err := stopped.Tip(ctx); err == nil {
		t.Fatal("Tip of a stopped node answered")
	}
	if _, err := stopped.Block(ctx, 5); err == nil {
		t.Fatal("Block of a stopped node answered")
	}
	if _, _, err := txHeight(ctx, stopped, b.Hash); err == nil {
		t.Fatal("TxStatus of a stopped node answered")
	}
	if took := time.Since(start); took > 3*cfg.Timeout+time.Second {
		t.Fatalf("three calls to a stopped node took %v", took)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := s.Tip(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Tip with an ended context: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("Tip ignored its context for %v", took)
	}

	n.Restart(t)
	tip, err := s.Tip(ctx)
	if err != nil || tip != 5 {
		t.Fatalf("Tip after restart = %d, %v\n%s", tip, err, n.LogTail())
	}
	again, err := s.Block(ctx, 5)
	if err != nil || again.Hash != b.Hash || again.Parent != b.Parent {
		t.Fatalf("block 5 after restart: %+v %v, was %+v", again, err, b)
	}
}

func TestAmountIsExact(t *testing.T) {
	for sats, want := range map[int64]string{0: "0", 1: "0.00000001", 1_500_000: "0.015", 150_000_000: "1.5", 2_100_000_000_000_000: "21000000"} {
		if got := bitcoin.Amount(sats); got != want {
			t.Errorf("Amount(%d) = %q, want %q", sats, got, want)
		}
	}
}

func TestConfigNetwork(t *testing.T) {
	if _, err := bitcoin.New(bitcoin.Config{Host: "127.0.0.1:1", Network: "litecoin"}); err == nil {
		t.Fatal("unknown network accepted")
	}
	if _, err := bitcoin.New(bitcoin.Config{Network: "mainnet"}); err == nil {
		t.Fatal("missing host accepted")
	}
	for _, name := range []string{"mainnet", "testnet3", "testnet4", "signet", "regtest", "simnet"} {
		if p, err := bitcoin.Params(name); err != nil || p.Name != name {
			t.Errorf("Params(%q) = %v, %v", name, p, err)
		}
	}
}

// txHeight is what TxStatus says of a transaction's block: its height and whether it was found.
func txHeight(ctx context.Context, s *bitcoin.Source, hash string) (uint64, bool, error) {
	st, err := s.TxStatus(ctx, hash)
	return st.Height, st.Found, err
}

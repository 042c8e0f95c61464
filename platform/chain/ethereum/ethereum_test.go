package ethereum_test

import (
	"context"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/platform/chain/ethereum"
	"clearvest/platform/chain/ethereum/anviltest"
)

// Addresses of nobody in particular, written in lower case: the source must answer them
// checksummed.
const (
	alice = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
	bob   = "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"
)

func checksummed(s string) string { return common.HexToAddress(s).Hex() }

func dial(t *testing.T, node *anviltest.Node, token string) *ethereum.Source {
	t.Helper()
	src, err := ethereum.Dial(context.Background(), ethereum.Config{RPCURL: node.URL, Token: token, TokenDecimals: anviltest.TokenDecimals})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	return src
}

func block(t *testing.T, src *ethereum.Source, height uint64) chain.Block {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := src.Block(ctx, height)
	if err != nil {
		t.Fatalf("Block(%d): %v", height, err)
	}
	return b
}

// logIndex is the log index the node gives the i-th log of a transaction's receipt.
func logIndex(t *testing.T, node *anviltest.Node, txHash string, i int) uint32 {
	t.Helper()
	var r struct {
		Logs []struct {
			LogIndex hexutil.Uint64 `json:"logIndex"`
		} `json:"logs"`
	}
	node.Call(&r, "eth_getTransactionReceipt", txHash)
	if len(r.Logs) <= i {
		t.Fatalf("receipt of %s has %d logs", txHash, len(r.Logs))
	}
	return uint32(r.Logs[i].LogIndex)
}

func TestBlockHoldsEtherPaymentsAndTokenTransfers(t *testing.T) {
	node := anviltest.Start(t, anviltest.Options{})
	// Another token's transfers are not USDT's: deploy it first, so the watched one is the last
	// deployed and SendToken sends it from then on.
	node.DeployToken()
	otherTx := node.SendToken(alice, big.NewInt(5_000_000))
	otherHeight := node.Mine(1)
	tokenAddr := node.DeployToken()
	src := dial(t, node, strings.ToLower(tokenAddr))

	if got := src.Network(); got != payout.Ethereum {
		t.Errorf("Network() = %q, want %q", got, payout.Ethereum)
	}
	if b := block(t, src, otherHeight); len(b.Transfers) != 0 {
		t.Errorf("block %d holds a transfer of another token only, got %+v", otherHeight, b.Transfers)
	}
	_ = otherTx

	etherTx := node.SendEther(alice, big.NewInt(1_234_567_890_123_456_789))
	zeroTx := node.SendEther(bob, big.NewInt(0)) // no value: no payment
	tokenTx1 := node.SendToken(alice, big.NewInt(12_345_678))
	tokenTx2 := node.SendToken(bob, big.NewInt(1))
	height := node.Mine(1)

	tip, err := src.Tip(context.Background())
	if err != nil || tip != height {
		t.Fatalf("Tip() = %d, %v; want %d", tip, err, height)
	}
	b := block(t, src, height)
	want := []chain.Transfer{
		{TxHash: etherTx, Index: 0, Address: checksummed(alice), Asset: asset.ETH, Amount: "1.234567890123456789"},
		{TxHash: tokenTx1, Index: logIndex(t, node, tokenTx1, 0), Address: checksummed(alice), Asset: asset.USDT, Amount: "12.345678"},
		{TxHash: tokenTx2, Index: logIndex(t, node, tokenTx2, 0), Address: checksummed(bob), Asset: asset.USDT, Amount: "0.000001"},
	}
	if !slices.Equal(b.Transfers, want) {
		t.Errorf("block %d transfers:\n got %+v\nwant %+v", height, b.Transfers, want)
	}
	if want[1].Index == want[2].Index {
		t.Errorf("two token transfers of one block share log index %d", want[1].Index)
	}
	for _, tr := range b.Transfers {
		if tr.TxHash == zeroTx {
			t.Errorf("a transaction without value is a payment: %+v", tr)
		}
		if tr.TxHash != strings.ToLower(tr.TxHash) || !strings.HasPrefix(tr.TxHash, "0x") || len(tr.TxHash) != 66 {
			t.Errorf("transaction hash %q is not lower-case 0x hex", tr.TxHash)
		}
	}

	var raw struct {
		Hash       string         `json:"hash"`
		ParentHash string         `json:"parentHash"`
		Timestamp  hexutil.Uint64 `json:"timestamp"`
	}
	node.Call(&raw, "eth_getBlockByNumber", hexutil.EncodeUint64(height), false)
	if b.Height != height || b.Hash != raw.Hash || b.Parent != raw.ParentHash || !b.Time.Equal(time.Unix(int64(raw.Timestamp), 0)) {
		t.Errorf("block = %d %s parent %s at %s; the node says %s parent %s at %d", b.Height, b.Hash, b.Parent, b.Time, raw.Hash, raw.ParentHash, raw.Timestamp)
	}
	if prev := block(t, src, height-1); b.Parent != prev.Hash {
		t.Errorf("block %d's parent %s is not block %d's hash %s", height, b.Parent, height-1, prev.Hash)
	}

	// The deployment minted the supply to the deployer: a transfer from nobody is a transfer too.
	deployer := node.Accounts()[0].Hex()
	minted := block(t, src, height-1)
	if len(minted.Transfers) != 1 || minted.Transfers[0].Address != deployer || minted.Transfers[0].Amount != "1000000" {
		t.Errorf("deployment block transfers = %+v, want the supply of 1000000 minted to %s", minted.Transfers, deployer)
	}

	ctx := context.Background()
	if _, err := src.Block(ctx, height+1); err == nil {
		t.Errorf("Block above the tip: no error")
	}

	// Without a token only ether is read.
	etherOnly := dial(t, node, "")
	if got := block(t, etherOnly, height).Transfers; !slices.Equal(got, want[:1]) {
		t.Errorf("ether-only source: %+v, want %+v", got, want[:1])
	}
}

func TestReorganisationReplacesTheBlock(t *testing.T) {
	node := anviltest.Start(t, anviltest.Options{})
	src := dial(t, node, node.DeployToken())
	ctx := context.Background()

	before := node.Snapshot()
	etherTx := node.SendEther(alice, big.NewInt(1e18))
	tokenTx := node.SendToken(alice, big.NewInt(250_000_000))

	// Pending: not found yet.
	if _, found, err := txHeight(ctx, src, etherTx); err != nil || found {
		t.Fatalf("TxStatus of a pending transaction = found %v, %v", found, err)
	}
	height := node.Mine(1)
	for _, tx := range []string{etherTx, tokenTx} {
		if h, found, err := txHeight(ctx, src, tx); err != nil || !found || h != height {
			t.Fatalf("TxStatus(%s) = %d, %v, %v; want %d, true", tx, h, found, err, height)
		}
	}
	first := block(t, src, height)
	if len(first.Transfers) != 2 {
		t.Fatalf("block %d before the reorganisation: %+v", height, first.Transfers)
	}

	node.Revert(before)
	// Another branch, longer than the first, without the transfers.
	node.SendEther(bob, big.NewInt(7))
	if h := node.Mine(2); h != height+1 {
		t.Fatalf("height after the reorganisation = %d, want %d", h, height+1)
	}
	second := block(t, src, height)
	if second.Hash == first.Hash {
		t.Fatalf("block %d kept its hash %s across the reorganisation", height, first.Hash)
	}
	if second.Parent != first.Parent {
		t.Errorf("the new block %d does not follow the same parent: %s, was %s", height, second.Parent, first.Parent)
	}
	for _, tr := range second.Transfers {
		if tr.TxHash == etherTx || tr.TxHash == tokenTx {
			t.Errorf("block %d still holds %+v after the reorganisation", height, tr)
		}
	}
	if len(second.Transfers) != 1 || second.Transfers[0].Address != checksummed(bob) || second.Transfers[0].Amount != "0.000000000000000007" {
		t.Errorf("block %d after the reorganisation: %+v, want the 7 wei paid to bob", height, second.Transfers)
	}
	if next := block(t, src, height+1); next.Parent != second.Hash {
		t.Errorf("block %d's parent %s is not the new block %d %s", height+1, next.Parent, height, second.Hash)
	}
	// The dropped transactions are unknown now.
	for _, tx := range []string{etherTx, tokenTx} {
		if h, found, err := txHeight(ctx, src, tx); err != nil || found {
			t.Errorf("TxStatus of dropped %s = %d, %v, %v; want not found", tx, h, found, err)
		}
	}
	if _, _, err := txHeight(ctx, src, "0x1234"); err == nil {
		t.Errorf("TxStatus of a malformed hash: no error")
	}
}

// A reorganisation that keeps the chain's height: the tip stays, the block under it changes.
func TestReorganisationAtTheSameHeight(t *testing.T) {
	node := anviltest.Start(t, anviltest.Options{})
	src := dial(t, node, node.DeployToken())
	ctx := context.Background()
	tx := node.SendToken(alice, big.NewInt(3_500_000))
	height := node.Mine(2) - 1
	first := block(t, src, height)
	if len(first.Transfers) != 1 || first.Transfers[0].Amount != "3.5" {
		t.Fatalf("block %d: %+v", height, first.Transfers)
	}
	node.Reorg(2)
	if tip, err := src.Tip(ctx); err != nil || tip != height+1 {
		t.Fatalf("Tip() after the reorganisation = %d, %v; want %d", tip, err, height+1)
	}
	second := block(t, src, height)
	if second.Hash == first.Hash || len(second.Transfers) != 0 {
		t.Errorf("block %d after the reorganisation: %+v; was %+v", height, second, first)
	}
	if _, found, err := txHeight(ctx, src, tx); err != nil || found {
		t.Errorf("TxStatus of the reorganised transaction = found %v, %v", found, err)
	}
}

// Ether sent to a contract that refuses it never moved: the transaction is mined, but reverted.
func TestRevertedPaymentIsNoTransfer(t *testing.T) {
	node := anviltest.Start(t, anviltest.Options{})
	token := node.DeployToken()
	src := dial(t, node, token)
	// The test token has no payable function. An explicit gas limit keeps the node from refusing
	// the transaction when it estimates the gas.
	var tx string
	node.Call(&tx, "eth_sendTransaction", map[string]any{
		"from": node.Accounts()[0], "to": token, "value": "0xde0b6b3a7640000", "gas": "0x30d40",
	})
	paid := node.SendEther(alice, big.NewInt(2e18))
	height := node.Mine(1)
	var r struct{ Status hexutil.Uint64 }
	node.Call(&r, "eth_getTransactionReceipt", tx)
	if r.Status != 0 {
		t.Fatalf("the payment to the token contract succeeded; the test needs it to revert")
	}
	want := []chain.Transfer{{TxHash: paid, Address: checksummed(alice), Asset: asset.ETH, Amount: "2"}}
	if got := block(t, src, height).Transfers; !slices.Equal(got, want) {
		t.Errorf("block %d: %+v, want only %+v", height, got, want)
	}
	// Found, in its block, and failed: on the chain, but it moved nothing.
	if st, err := src.TxStatus(context.Background(), tx); err != nil || st != (chain.TxState{Found: true, Height: height, Failed: true}) {
		t.Errorf("TxStatus of a reverted transaction = %+v, %v; want it found in block %d and failed", st, err, height)
	}
	if st, err := src.TxStatus(context.Background(), paid); err != nil || st != (chain.TxState{Found: true, Height: height}) {
		t.Errorf("TxStatus of the payment = %+v, %v; want it found in block %d, not failed", st, err, height)
	}
}

func TestRestartedNodeKeepsItsBlocks(t *testing.T) {
	node := anviltest.Start(t, anviltest.Options{})
	src := dial(t, node, node.DeployToken())
	ctx := context.Background()

	tx := node.SendToken(bob, big.NewInt(42_000_000))
	height := node.Mine(3) - 2
	before := block(t, src, height)
	if len(before.Transfers) != 1 || before.Transfers[0].Amount != "42" {
		t.Fatalf("block %d before the restart: %+v", height, before.Transfers)
	}

	node.Restart()

	tip, err := src.Tip(ctx)
	if err != nil || tip != height+2 {
		t.Fatalf("Tip() after the restart = %d, %v; want %d", tip, err, height+2)
	}
	after := block(t, src, height)
	if after.Hash != before.Hash || after.Parent != before.Parent || !slices.Equal(after.Transfers, before.Transfers) {
		t.Errorf("block %d after the restart:\n got %+v\nwant %+v", height, after, before)
	}
	if h, found, err := txHeight(ctx, src, tx); err != nil || !found || h != height {
		t.Errorf("TxStatus after the restart = %d, %v, %v; want %d", h, found, err, height)
	}
	// The chain goes on from where it was.
	node.SendEther(alice, big.NewInt(1))
	next := block(t, src, node.Mine(1))
	if next.Height != height+3 || len(next.Transfers) != 1 {
		t.Errorf("block mined after the restart: %+v", next)
	}
}

func TestStoppedNodeIsAnError(t *testing.T) {
	node := anviltest.Start(t, anviltest.Options{})
	src := dial(t, node, "")
	tx := node.SendEther(alice, big.NewInt(1))
	node.Mine(1)
	node.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := src.Tip(ctx); err == nil {
		t.Errorf("Tip of a stopped node: no error")
	}
	if _, err := src.Block(ctx, 1); err == nil {
		t.Errorf("Block of a stopped node: no error")
	}
	if _, found, err := txHeight(ctx, src, tx); err == nil || found {
		t.Errorf("TxStatus of a stopped node = found %v, %v; want an error", found, err)
	}
}

func TestDialRefusesABadConfiguration(t *testing.T) {
	for _, cfg := range []ethereum.Config{
		{},
		{RPCURL: "http://127.0.0.1:1", Token: "0x1234", TokenDecimals: 6},
		{RPCURL: "http://127.0.0.1:1", Token: alice, TokenDecimals: -1},
		{RPCURL: "ftp://127.0.0.1:1"},
	} {
		if _, err := ethereum.Dial(context.Background(), cfg); err == nil {
			t.Errorf("Dial(%+v): no error", cfg)
		}
	}
}

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		v        string
		decimals int32
		want     string
	}{
		{"0", 18, "0"},
		{"1", 18, "0.000000000000000001"},
		{"15000000000000000", 18, "0.015"},
		{"1000000000000000000", 18, "1"},
		{"123456789012345678901234567890", 18, "123456789012.34567890123456789"},
		{"1000000", 6, "1"},
		{"1", 6, "0.000001"},
		{"1050000", 6, "1.05"},
		{"7", 0, "7"},
		{"-1500000", 6, "-1.5"},
	} {
		v, _ := new(big.Int).SetString(c.v, 10)
		if got := ethereum.Units(v, c.decimals); got != c.want {
			t.Errorf("Units(%s, %d) = %q, want %q", c.v, c.decimals, got, c.want)
		}
	}
}

// txHeight is what TxStatus says of a transaction's block: its height and whether it was found.
func txHeight(ctx context.Context, s *ethereum.Source, hash string) (uint64, bool, error) {
	st, err := s.TxStatus(ctx, hash)
	return st.Height, st.Found, err
}

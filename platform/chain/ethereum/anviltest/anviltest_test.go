package anviltest

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Without the tools installed, a chain test fails and says how to install them.
func TestMissingBinaryNamesTheInstallScript(t *testing.T) {
	_, err := findBinary(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "scripts/chain-deps.sh") {
		t.Fatalf("findBinary in an empty directory = %v, want an error naming scripts/chain-deps.sh", err)
	}
	bin, err := findBinary(filepath.Join(repoRoot(t), "scripts", "chain", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
}

func TestStartMineAndReorg(t *testing.T) {
	n := Start(t, Options{ChainID: 1337})
	var id string
	n.Call(&id, "eth_chainId")
	if id != "0x539" {
		t.Errorf("chain ID = %s, want 0x539 (1337)", id)
	}
	if h := n.Height(); h != 0 {
		t.Fatalf("a new chain is at height %d", h)
	}
	tx := n.SendEther("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", nil)
	// Mined on demand only: the transaction waits.
	if _, mined := n.TxBlock(tx); mined || n.Height() != 0 {
		t.Fatalf("a transaction was mined without Mine")
	}
	if h := n.Mine(3); h != 3 {
		t.Fatalf("Mine(3) = height %d", h)
	}
	if h, mined := n.TxBlock(tx); !mined || h != 1 {
		t.Fatalf("TxBlock = %d, %v; want block 1", h, mined)
	}
	hashAt := func(h string) string {
		var b struct{ Hash string }
		n.Call(&b, "eth_getBlockByNumber", h, false)
		return b.Hash
	}
	before := hashAt("0x1")
	n.Reorg(3)
	if h := n.Height(); h != 3 {
		t.Errorf("height after Reorg(3) = %d, want 3", h)
	}
	if hashAt("0x1") == before {
		t.Errorf("block 1 kept its hash across Reorg(3)")
	}
	if _, mined := n.TxBlock(tx); mined {
		t.Errorf("the transaction of a reorganised block is still mined")
	}
}

// SendTokenFailing's transaction is mined, and reverted: status 0, and no token moved.
func TestSendTokenFailingIsMinedAndReverts(t *testing.T) {
	n := Start(t, Options{})
	n.DeployToken()
	to := "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
	tx := n.SendTokenFailing(to, big.NewInt(1_000_000))
	height := n.Mine(1)
	var r struct {
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
		Status      hexutil.Uint64 `json:"status"`
		Logs        []any          `json:"logs"`
	}
	n.Call(&r, "eth_getTransactionReceipt", tx)
	if uint64(r.BlockNumber) != height || r.Status != 0 || len(r.Logs) != 0 {
		t.Fatalf("receipt of the failing transfer: %+v; want mined in block %d with status 0 and no logs", r, height)
	}
}

// Package anviltest runs a real local Ethereum chain (anvil) for tests: start it on a free port,
// mine blocks when a test says so, send ether and a test ERC-20 token from its unlocked dev
// accounts, reorganise the chain, and stop and restart the node with its state kept.
//
// The tools come from scripts/chain (anvil and solc-js), installed by scripts/chain-deps.sh; a test
// that starts a node fails, naming that script, when they are missing. Only tests import this
// package.
package anviltest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// DefaultChainID is anvil's own default chain ID.
const DefaultChainID = 31337

// Options shape the node. The zero value is a node of chain ID 31337 that mines a block only
// when Mine is called.
type Options struct {
	ChainID uint64
	// BlockTime mines a block every interval (whole seconds, at least one); zero mines on demand
	// only, so a transaction stays pending until Mine.
	BlockTime time.Duration
}

// Node is a running anvil. Its methods fail the test on any error, so they are called from the
// test's own goroutine.
type Node struct {
	// URL is the node's JSON-RPC endpoint, http://127.0.0.1:<port>; it stays the same across
	// Restart.
	URL string

	t     testing.TB
	opts  Options
	bin   string
	port  int
	dir   string
	rpc   *rpc.Client
	token common.Address

	mu   sync.Mutex
	proc *process
}

type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed
}

// startTimeout bounds how long a node may take to answer its first eth_blockNumber.
const startTimeout = 30 * time.Second

// Start runs anvil on a free loopback port and waits until it answers; the test's cleanup stops
// it. Its state is kept in a file of the test's temporary directory so that Restart loses
// nothing.
func Start(t testing.TB, opts Options) *Node {
	t.Helper()
	if opts.ChainID == 0 {
		opts.ChainID = DefaultChainID
	}
	if opts.BlockTime != 0 && (opts.BlockTime < time.Second || opts.BlockTime%time.Second != 0) {
		t.Fatalf("anviltest: block time %s is not a whole number of seconds", opts.BlockTime)
	}
	n := &Node{t: t, opts: opts, bin: Binary(t), dir: t.TempDir()}
	t.Cleanup(n.Stop)
	// A port found free can be taken by another process before anvil binds it; try another.
	var err error
	for range 3 {
		n.port = freePort(t)
		n.URL = "http://127.0.0.1:" + strconv.Itoa(n.port)
		if err = n.start(); err == nil || !errors.Is(err, errPortTaken) {
			break
		}
	}
	if err != nil {
		t.Fatalf("anviltest: %v", err)
	}
	n.rpc, err = rpc.DialContext(context.Background(), n.URL)
	if err != nil {
		t.Fatalf("anviltest: dial %s: %v", n.URL, err)
	}
	t.Cleanup(n.rpc.Close)
	return n
}

// Binary is the path of the anvil binary scripts/chain-deps.sh installed; the test fails, naming
// the script, when there is none.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := findBinary(filepath.Join(repoRoot(t), "scripts", "chain", "node_modules"))
	if err != nil {
		t.Fatalf("anviltest: %v", err)
	}
	return bin
}

// findBinary looks for anvil in a node_modules directory.
func findBinary(modules string) (string, error) {
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	osName := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[runtime.GOOS]
	name := "anvil"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	candidates := []string{
		// The optional package npm installs for this platform.
		filepath.Join(modules, "@foundry-rs", "anvil-"+osName+"-"+arch, "bin", name),
		// Where anvil's install script puts the binary when that package was skipped.
		filepath.Join(modules, "@foundry-rs", "anvil", name),
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", errors.New("no anvil binary in scripts/chain/node_modules; install the chain tools with scripts/chain-deps.sh")
}

// repoRoot is the module's root, found from this file's own path so that tests of any package
// can use the harness.
func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatalf("anviltest: cannot locate the source tree")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("anviltest: find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var errPortTaken = errors.New("port taken")

func (n *Node) logPath() string   { return filepath.Join(n.dir, "anvil.log") }
func (n *Node) statePath() string { return filepath.Join(n.dir, "state.json") }

// start runs the process and waits until it answers eth_blockNumber.
func (n *Node) start() error {
	args := []string{
		"--host", "127.0.0.1",
		"--port", strconv.Itoa(n.port),
		"--chain-id", strconv.FormatUint(n.opts.ChainID, 10),
		// Loaded at start when it exists, written on exit: Restart keeps the chain.
		"--state", n.statePath(),
	}
	if n.opts.BlockTime > 0 {
		args = append(args, "--block-time", strconv.Itoa(int(n.opts.BlockTime/time.Second)))
	} else {
		args = append(args, "--no-mining")
	}
	logFile, err := os.OpenFile(n.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close() // the child has its own copy
	cmd := exec.Command(n.bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", n.bin, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	n.mu.Lock()
	n.proc = p
	n.mu.Unlock()

	client, err := rpc.DialContext(context.Background(), n.URL)
	if err != nil {
		n.Stop()
		return err
	}
	defer client.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var height hexutil.Uint64
		err := client.CallContext(ctx, &height, "eth_blockNumber")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			log := n.logTail()
			if strings.Contains(log, "in use") {
				return fmt.Errorf("%w: %d", errPortTaken, n.port)
			}
			return fmt.Errorf("anvil exited (%v) before answering:\n%s", p.err, log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			n.Stop()
			return fmt.Errorf("anvil did not answer eth_blockNumber within %s (last: %v):\n%s", startTimeout, err, n.logTail())
		}
	}
}

func (n *Node) logTail() string {
	b, _ := os.ReadFile(n.logPath())
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop ends the node, letting it write its state first; calls to it fail from then on. It is
// safe to call more than once.
func (n *Node) Stop() {
	n.mu.Lock()
	p := n.proc
	n.proc = nil
	n.mu.Unlock()
	if p == nil {
		return
	}
	// anvil dumps its state when interrupted, as on Ctrl-C.
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		n.t.Errorf("anviltest: anvil did not stop within 15s of an interrupt; killed it")
	}
}

// Restart stops the node and starts it again on the same port from the state it wrote, as a
// node that is restarted: every block and transaction is kept. Pending transactions and
// snapshots are not.
func (n *Node) Restart() {
	n.t.Helper()
	n.Stop()
	if _, err := os.Stat(n.statePath()); err != nil {
		n.t.Fatalf("anviltest: anvil wrote no state on stop: %v\n%s", err, n.logTail())
	}
	if err := n.start(); err != nil {
		n.t.Fatalf("anviltest: restart: %v", err)
	}
}

// Call makes a raw JSON-RPC call, for what the helpers below do not cover (anvil_reorg,
// anvil_dropTransaction, eth_getBlockByNumber, ...).
func (n *Node) Call(result any, method string, args ...any) {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.rpc.CallContext(ctx, result, method, args...); err != nil {
		n.t.Fatalf("anviltest: %s: %v", method, err)
	}
}

// Accounts are anvil's unlocked dev accounts, each funded with 10000 ether.
func (n *Node) Accounts() []common.Address {
	n.t.Helper()
	var accounts []common.Address
	n.Call(&accounts, "eth_accounts")
	if len(accounts) == 0 {
		n.t.Fatalf("anviltest: anvil has no dev accounts")
	}
	return accounts
}

// Height is the number of the latest block.
func (n *Node) Height() uint64 {
	n.t.Helper()
	var h hexutil.Uint64
	n.Call(&h, "eth_blockNumber")
	return uint64(h)
}

// Mine mines blocks, the first with every pending transaction, and returns the new height.
func (n *Node) Mine(blocks int) uint64 {
	n.t.Helper()
	for range blocks {
		n.Call(nil, "evm_mine")
	}
	return n.Height()
}

// Send sends a transaction from the first dev account (to nil creates a contract) and returns
// its hash, lower-case; it is pending until the next block is mined.
func (n *Node) Send(to *common.Address, wei *big.Int, data []byte) string {
	n.t.Helper()
	tx := map[string]any{"from": n.Accounts()[0]}
	if to != nil {
		tx["to"] = *to
	}
	if wei != nil {
		tx["value"] = (*hexutil.Big)(wei)
	}
	if len(data) > 0 {
		tx["data"] = hexutil.Bytes(data)
	}
	var hash common.Hash
	n.Call(&hash, "eth_sendTransaction", tx)
	return hash.Hex()
}

// SendEther pays amountWei to an address (any case) from the first dev account; the transaction
// is pending until the next block is mined.
func (n *Node) SendEther(to string, amountWei *big.Int) string {
	n.t.Helper()
	addr := address(n.t, to)
	return n.Send(&addr, amountWei, nil)
}

// Snapshot records the chain as it is now; Revert goes back to it.
func (n *Node) Snapshot() string {
	n.t.Helper()
	var id hexutil.Big
	n.Call(&id, "evm_snapshot")
	return id.String()
}

// Revert drops every block mined since the snapshot, so that blocks mined next replace them:
// a reorganisation as a watcher sees it. Transactions of the dropped blocks are not sent again.
func (n *Node) Revert(id string) {
	n.t.Helper()
	var ok bool
	n.Call(&ok, "evm_revert", id)
	if !ok {
		n.t.Fatalf("anviltest: evm_revert %s: no such snapshot", id)
	}
	// A dropped transaction could otherwise come back in the next block mined.
	n.Call(nil, "anvil_dropAllTransactions")
}

// Reorg replaces the latest depth blocks with as many new, empty ones (anvil_reorg): the chain
// keeps its height, the blocks at those heights get new hashes, and their transactions are gone.
func (n *Node) Reorg(depth int) {
	n.t.Helper()
	if depth < 1 || uint64(depth) > n.Height() {
		n.t.Fatalf("anviltest: cannot reorganise %d blocks of a chain of height %d", depth, n.Height())
	}
	n.Call(nil, "anvil_reorg", depth, []any{})
}

// TxBlock says whether the node knows the transaction as mined, from its receipt, and in which
// block.
func (n *Node) TxBlock(hash string) (height uint64, mined bool) {
	n.t.Helper()
	var r *struct {
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
	}
	n.Call(&r, "eth_getTransactionReceipt", hash)
	if r == nil {
		return 0, false
	}
	return uint64(r.BlockNumber), true
}

func address(t testing.TB, s string) common.Address {
	t.Helper()
	if !common.IsHexAddress(s) {
		t.Fatalf("anviltest: %q is not an Ethereum address", s)
	}
	return common.HexToAddress(s)
}

// output runs a command and returns its standard output, failing the test with its errors.
func output(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("anviltest: %s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// Package btcdtest runs a real btcd node in simnet for tests: built once from the btcd module
// version in go.mod and cached, started on free loopback ports with a transaction index, mining
// to a key the harness holds, so tests can fund addresses, mine and force reorganisations without
// a wallet.
package btcdtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/rpcclient"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"clearvest/platform/chain/bitcoin"
)

// Network is the chain the node runs: addresses are sb1… (bech32) and S…/s… (base58). Not
// regtest: btcd deletes a regtest chain at every start, and Restart must keep the blocks.
const Network = "simnet"

// Params are the chain parameters of Network.
var Params = &chaincfg.SimNetParams

const (
	btcdModule    = "github.com/btcsuite/btcd"
	coinbaseDepth = 100   // a coinbase output may be spent this many blocks after it
	fee           = 10000 // satoshis paid by each Send, far above btcd's minimum relay fee
)

// Node is one running btcd.
type Node struct {
	dir               string
	rpcPort, peerPort int
	user, pass        string
	key               *btcec.PrivateKey
	addr              address.Address // P2PKH of key: where blocks are mined and change goes
	cmd               *exec.Cmd
	exited            chan struct{}
	rpc               *rpcclient.Client
	mu                sync.Mutex
	sent              map[string]spent       // Send's transactions by hash: the coin each spent
	used              map[wire.OutPoint]bool // coins Send spent: gettxout does not see mempool spends
}

type spent struct {
	op    wire.OutPoint
	value int64
}

// Start builds (once) and starts a node with an empty chain in t.TempDir(), stopped on cleanup.
// Most tests want Fund next.
func Start(t testing.TB) *Node {
	t.Helper()
	bin := Binary(t)
	key, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr, err := address.NewAddressPubKeyHash(address.Hash160(key.PubKey().SerializeCompressed()), Params)
	if err != nil {
		t.Fatal(err)
	}
	n := &Node{dir: t.TempDir(), user: "u" + randomHex(t), pass: randomHex(t), key: key, addr: addr, sent: map[string]spent{}, used: map[wire.OutPoint]bool{}}
	// A port found free can be taken before btcd binds it; another pair is then tried.
	for attempt := 0; ; attempt++ {
		n.rpcPort, n.peerPort = freePort(t), freePort(t)
		err := n.start(bin)
		if err == nil {
			break
		}
		if attempt == 2 {
			t.Fatalf("btcd did not start: %v\n%s", err, n.logTail())
		}
	}
	t.Cleanup(func() { n.Stop(t) })
	rpc, err := rpcclient.New(&rpcclient.ConnConfig{Host: n.Host(), User: n.user, Pass: n.pass,
		Params: Params.Name, HTTPPostMode: true, DisableTLS: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.rpc = rpc
	t.Cleanup(rpc.Shutdown)
	return n
}

// Host is the node's RPC address, host:port on loopback.
func (n *Node) Host() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.rpcPort)) }

// Config is what a bitcoin.Source needs to read this node.
func (n *Node) Config() bitcoin.Config {
	return bitcoin.Config{Host: n.Host(), User: n.user, Password: n.pass, Network: Network, Timeout: 5 * time.Second}
}

// RPC is a client of the node, for what the harness does not wrap.
func (n *Node) RPC() *rpcclient.Client { return n.rpc }

// MiningAddress is the harness key's address, which mined coins and change are paid to.
func (n *Node) MiningAddress() string { return n.addr.EncodeAddress() }

func (n *Node) start(bin string) error {
	logf, err := os.OpenFile(filepath.Join(n.dir, "btcd.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(bin,
		"--simnet", "--notls", "--txindex",
		"--datadir="+filepath.Join(n.dir, "data"), "--logdir="+filepath.Join(n.dir, "logs"),
		"--rpclisten="+n.Host(), "--listen="+net.JoinHostPort("127.0.0.1", strconv.Itoa(n.peerPort)),
		"--rpcuser="+n.user, "--rpcpass="+n.pass,
		"--miningaddr="+n.addr.EncodeAddress(), "--nodnsseed", "--debuglevel=info",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	n.cmd, n.exited = cmd, exited
	if err := n.waitRPC(); err != nil {
		_ = cmd.Process.Kill()
		<-exited
		n.cmd = nil
		return err
	}
	return nil
}

// waitRPC polls the RPC port until the node answers, it exits, or a minute passes.
func (n *Node) waitRPC() error {
	rpc, err := rpcclient.New(&rpcclient.ConnConfig{Host: n.Host(), User: n.user, Pass: n.pass,
		Params: Params.Name, HTTPPostMode: true, DisableTLS: true}, nil)
	if err != nil {
		return err
	}
	defer rpc.Shutdown()
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-n.exited:
			return errors.New("btcd exited")
		default:
		}
		if c, err := net.DialTimeout("tcp", n.Host(), time.Second); err == nil {
			c.Close()
			// The port is open: the server is up, and answers (or refuses) at once.
			if _, err := rpc.GetBlockCount(); err == nil {
				return nil
			} else if time.Now().After(deadline) {
				return err
			}
		}
		if time.Now().After(deadline) {
			return errors.New("btcd RPC did not open within a minute")
		}
		select {
		case <-n.exited:
			return errors.New("btcd exited")
		case <-time.After(50 * time.Millisecond): // poll interval
		}
	}
}

// Stop stops the node and waits for it to exit; the data directory stays. Safe to call twice.
func (n *Node) Stop(t testing.TB) {
	t.Helper()
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.exited
		t.Errorf("btcd did not stop within 30s\n%s", n.logTail())
	}
	n.cmd = nil
}

// Restart stops the node and starts it again on the same ports with the same data directory.
func (n *Node) Restart(t testing.TB) {
	t.Helper()
	n.Stop(t)
	if err := n.start(Binary(t)); err != nil {
		t.Fatalf("btcd did not restart: %v\n%s", err, n.logTail())
	}
}

// LogTail is the end of the node's output, for a failing test's message.
func (n *Node) LogTail() string { return n.logTail() }

func (n *Node) logTail() string {
	b, _ := os.ReadFile(filepath.Join(n.dir, "btcd.out"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Mine mines count blocks to the harness key, with whatever the mempool holds, and returns
// their hashes.
func (n *Node) Mine(t testing.TB, count int) []string {
	t.Helper()
	hs, err := n.rpc.Generate(uint32(count))
	if err != nil {
		t.Fatalf("generate %d: %v", count, err)
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

// Fund mines enough blocks that the harness has mature coinbase coins to Send.
func (n *Node) Fund(t testing.TB) { t.Helper(); n.Mine(t, coinbaseDepth+10) }

// Tip returns the height of the best block.
func (n *Node) Tip(t testing.TB) uint64 {
	t.Helper()
	c, err := n.rpc.GetBlockCount()
	if err != nil {
		t.Fatal(err)
	}
	return uint64(c)
}

// BlockHash returns the hash of the best-chain block at height.
func (n *Node) BlockHash(t testing.TB, height uint64) string {
	t.Helper()
	h, err := n.rpc.GetBlockHash(int64(height))
	if err != nil {
		t.Fatalf("block hash %d: %v", height, err)
	}
	return h.String()
}

// Send pays sats satoshis to addr (any address of the node's network) from a mature coinbase
// coin of the harness key, the rest back to the key, and returns the transaction hash. The
// transaction is in the mempool; Mine confirms it.
func (n *Node) Send(t testing.TB, addr string, sats int64) string {
	t.Helper()
	to, err := address.DecodeAddress(addr, Params)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	op, value := n.coin(t)
	if sats <= 0 || sats+fee > value {
		t.Fatalf("cannot send %d satoshis from a coin of %d", sats, value)
	}
	toScript, err := txscript.PayToAddrScript(to)
	if err != nil {
		t.Fatal(err)
	}
	tx := wire.NewMsgTx(wire.TxVersion)
	tx.AddTxOut(wire.NewTxOut(sats, toScript))
	if change := value - sats - fee; change > 0 {
		tx.AddTxOut(wire.NewTxOut(change, n.ownScript(t)))
	}
	hash := n.sign(t, tx, op)
	n.mu.Lock()
	n.sent[hash] = spent{op: op, value: value}
	n.used[op] = true
	n.mu.Unlock()
	return hash
}

func (n *Node) ownScript(t testing.TB) []byte {
	s, err := txscript.PayToAddrScript(n.addr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sign spends op (a P2PKH coin of the harness key) as tx's only input, signals replaceability
// (BIP 125) so ForceReorg can double-spend it, and submits it.
func (n *Node) sign(t testing.TB, tx *wire.MsgTx, op wire.OutPoint) string {
	t.Helper()
	in := wire.NewTxIn(&op, nil, nil)
	in.Sequence = wire.MaxTxInSequenceNum - 2
	tx.AddTxIn(in)
	sig, err := txscript.SignatureScript(tx, 0, n.ownScript(t), txscript.SigHashAll, n.key, true)
	if err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].SignatureScript = sig
	h, err := n.rpc.SendRawTransaction(tx, false)
	if err != nil {
		t.Fatalf("sendrawtransaction: %v", err)
	}
	return h.String()
}

// coin finds a coinbase output of the harness key that is mature and unspent, counting the
// mempool's spends.
func (n *Node) coin(t testing.TB) (wire.OutPoint, int64) {
	t.Helper()
	tip := n.Tip(t)
	for h := uint64(1); h+coinbaseDepth <= tip; h++ {
		bh, err := n.rpc.GetBlockHash(int64(h))
		if err != nil {
			t.Fatal(err)
		}
		b, err := n.rpc.GetBlock(bh)
		if err != nil {
			t.Fatal(err)
		}
		cb := b.Transactions[0]
		op := wire.OutPoint{Hash: cb.TxHash(), Index: 0}
		n.mu.Lock()
		used := n.used[op]
		n.mu.Unlock()
		if used || !bytes.Equal(cb.TxOut[0].PkScript, n.ownScript(t)) {
			continue
		}
		out, err := n.rpc.GetTxOut(&op.Hash, op.Index, true)
		if err != nil {
			t.Fatal(err)
		}
		if out != nil {
			return op, cb.TxOut[0].Value
		}
	}
	t.Fatalf("no mature unspent coinbase coin below height %d: call Fund first", tip)
	return wire.OutPoint{}, 0
}

// ForceReorg replaces the best chain from height on with a longer one mined now, and returns
// the new hashes from height to the new tip. Transactions of the replaced blocks go back to the
// mempool and are mined again, except those named in drop (hashes Send returned): each is
// double-spent back to the harness key first, so it is in no block of the new chain.
func (n *Node) ForceReorg(t testing.TB, height uint64, drop ...string) []string {
	t.Helper()
	tip := n.Tip(t)
	if height == 0 || height > tip {
		t.Fatalf("cannot reorganise from height %d with the tip at %d", height, tip)
	}
	old, err := n.rpc.GetBlockHash(int64(height))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.rpc.InvalidateBlock(old); err != nil {
		t.Fatalf("invalidateblock %s: %v", old, err)
	}
	for _, h := range drop {
		n.mu.Lock()
		s, ok := n.sent[h]
		n.mu.Unlock()
		if !ok {
			t.Fatalf("ForceReorg: %s was not sent by this harness", h)
		}
		// A higher fee than the original's, as BIP 125 asks of a replacement.
		tx := wire.NewMsgTx(wire.TxVersion)
		tx.AddTxOut(wire.NewTxOut(s.value-3*fee, n.ownScript(t)))
		n.sign(t, tx, s.op)
	}
	n.Mine(t, int(tip-height)+2)
	if got := n.BlockHash(t, height); got == old.String() {
		t.Fatalf("block %d is still %s after the reorganisation", height, got)
	}
	var out []string
	for h := height; h <= n.Tip(t); h++ {
		out = append(out, n.BlockHash(t, h))
	}
	return out
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// Binary returns the path of a btcd binary of the version go.mod requires, building it into the
// user's cache directory the first time (about half a minute from a cold build cache).
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { binary, buildErr = build() })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func build() (string, error) {
	// Test binaries carry no module versions; the go command reads the one go.mod requires.
	v, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", btcdModule).Output()
	version := strings.TrimSpace(string(v))
	if err != nil || version == "" {
		return "", fmt.Errorf("btcdtest: version of %s in go.mod: %v", btcdModule, err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("btcdtest: %w", err)
	}
	dir := filepath.Join(cache, "clearvest", "btcd")
	bin := filepath.Join(dir, "btcd-"+version)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("btcdtest: %w", err)
	}
	// Built under a temporary name and renamed, so a concurrent test process never runs half a file.
	tmp, err := os.CreateTemp(dir, "btcd-build-*")
	if err != nil {
		return "", fmt.Errorf("btcdtest: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// The go command resolves the version from this module's go.mod (tool directive).
	out, err := exec.Command("go", "build", "-o", tmp.Name(), btcdModule).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("btcdtest: go build %s: %v\n%s", btcdModule, err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", fmt.Errorf("btcdtest: %w", err)
	}
	return bin, nil
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomHex(t testing.TB) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// Hash parses a transaction or block hash as explorers write it.
func Hash(t testing.TB, s string) *chainhash.Hash {
	t.Helper()
	h, err := chainhash.NewHashFromStr(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

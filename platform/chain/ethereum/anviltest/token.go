package anviltest

import (
	"encoding/json"
	"math/big"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// TokenDecimals are the test token's decimals, USDT's.
const TokenDecimals = 6

// TokenSupply is what the first dev account holds once the token is deployed, in the token's
// smallest units: a million tokens.
var TokenSupply = big.NewInt(1_000_000_000_000)

// compiled is the test token as solc-js compiled it, once per test binary.
type compiled struct {
	abi      abi.ABI
	bytecode []byte
}

var (
	compileOnce sync.Once
	token       compiled
	compileErr  string
)

// compileToken compiles testdata/TestToken.sol with the solc-js of scripts/chain.
func compileToken(t testing.TB) compiled {
	t.Helper()
	compileOnce.Do(func() {
		root := repoRoot(t)
		out := output(t, "node", filepath.Join(root, "scripts", "chain", "compile.mjs"),
			filepath.Join(root, "platform", "chain", "ethereum", "anviltest", "testdata", "TestToken.sol"), "TestToken")
		var artifact struct {
			ABI      json.RawMessage `json:"abi"`
			Bytecode string          `json:"bytecode"`
		}
		if err := json.Unmarshal(out, &artifact); err != nil {
			compileErr = "decode the compiler's output: " + err.Error()
			return
		}
		a, err := abi.JSON(strings.NewReader(string(artifact.ABI)))
		if err != nil {
			compileErr = "read the token's ABI: " + err.Error()
			return
		}
		code, err := hexutil.Decode(artifact.Bytecode)
		if err != nil || len(code) == 0 {
			compileErr = "read the token's bytecode: " + artifact.Bytecode
			return
		}
		token = compiled{abi: a, bytecode: code}
	})
	if compileErr != "" {
		t.Fatalf("anviltest: compile the test token: %s (are the chain tools installed? scripts/chain-deps.sh)", compileErr)
	}
	if token.bytecode == nil {
		t.Fatalf("anviltest: the test token was not compiled (an earlier test failed while compiling it)")
	}
	return token
}

// DeployToken deploys the test ERC-20 token (6 decimals, TokenSupply minted to the first dev
// account), mines the block that holds it, and returns its address, EIP-55 checksummed.
// SendToken sends it from then on.
func (n *Node) DeployToken() string {
	n.t.Helper()
	c := compileToken(n.t)
	args, err := c.abi.Pack("", TokenSupply)
	if err != nil {
		n.t.Fatalf("anviltest: encode the token's constructor: %v", err)
	}
	hash := n.Send(nil, nil, append(append([]byte{}, c.bytecode...), args...))
	n.Mine(1)
	var r *struct {
		ContractAddress *common.Address `json:"contractAddress"`
		Status          hexutil.Uint64  `json:"status"`
	}
	n.Call(&r, "eth_getTransactionReceipt", hash)
	if r == nil || r.ContractAddress == nil || r.Status != 1 {
		n.t.Fatalf("anviltest: the token's deployment %s was not mined successfully", hash)
	}
	n.token = *r.ContractAddress
	return n.token.Hex()
}

// SendToken transfers units (of 10^-6 token) of the deployed test token from the first dev
// account to an address and returns the transaction's hash; it is pending until the next block
// is mined.
func (n *Node) SendToken(to string, units *big.Int) string {
	n.t.Helper()
	if n.token == (common.Address{}) {
		n.t.Fatalf("anviltest: SendToken before DeployToken")
	}
	data, err := compileToken(n.t).abi.Pack("transfer", address(n.t, to), units)
	if err != nil {
		n.t.Fatalf("anviltest: encode transfer: %v", err)
	}
	return n.Send(&n.token, nil, data)
}

// SendTokenFailing sends a token transfer that reverts, as a payout that failed on the chain:
// from the second dev account, which holds none of the token. The gas limit is given so that the
// node mines it rather than refusing it when it estimates the gas. It returns the transaction's
// hash; it is pending until the next block is mined, then mined with status 0.
func (n *Node) SendTokenFailing(to string, units *big.Int) string {
	n.t.Helper()
	if n.token == (common.Address{}) {
		n.t.Fatalf("anviltest: SendTokenFailing before DeployToken")
	}
	data, err := compileToken(n.t).abi.Pack("transfer", address(n.t, to), units)
	if err != nil {
		n.t.Fatalf("anviltest: encode transfer: %v", err)
	}
	var hash common.Hash
	n.Call(&hash, "eth_sendTransaction", map[string]any{
		"from": n.Accounts()[1], "to": n.token, "data": hexutil.Bytes(data), "gas": hexutil.Uint64(200_000),
	})
	return hash.Hex()
}

// Package bitcoin reads the blocks of a Bitcoin node over its JSON-RPC interface (btcd or
// Bitcoin Core) and turns each output paying a standard address into a chain.Transfer, for the
// chain watcher that credits deposits (docs/chain.md).
package bitcoin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/btcsuite/btcd/btcjson"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/rpcclient"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/shopspring/decimal"

	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
)

// DefaultTimeout bounds one RPC call when Config.Timeout is zero.
const DefaultTimeout = 15 * time.Second

// Config says which node to ask and which Bitcoin network it runs.
type Config struct {
	Host     string // host:port of the node's RPC interface
	User     string
	Password string
	// Network is the name of the chain parameters: mainnet, testnet3, testnet4, signet, regtest or
	// simnet. Addresses are encoded for it (bc1…, tb1…, bcrt1…, sb1…).
	Network string
	// TLS turns on https; a loopback test node runs without it. Certificate is the PEM of the
	// node's self-signed certificate, if it has one.
	TLS         bool
	Certificate []byte
	// Timeout bounds each call, so a node that stopped answering is an error, not a hang.
	Timeout time.Duration
}

// Params returns the chain parameters named by network.
func Params(network string) (*chaincfg.Params, error) {
	for _, p := range []*chaincfg.Params{&chaincfg.MainNetParams, &chaincfg.TestNet3Params,
		&chaincfg.TestNet4Params, &chaincfg.SigNetParams, &chaincfg.RegressionNetParams, &chaincfg.SimNetParams} {
		if p.Name == network {
			return p, nil
		}
	}
	return nil, fmt.Errorf("bitcoin: unknown network %q (mainnet, testnet3, testnet4, signet, regtest, simnet)", network)
}

// Source reads blocks from one node. It is safe for concurrent use.
type Source struct {
	rpc     *rpcclient.Client
	params  *chaincfg.Params
	timeout time.Duration
}

// New returns a Source for the node; it does not connect until the first call.
func New(cfg Config) (*Source, error) {
	params, err := Params(cfg.Network)
	if err != nil {
		return nil, err
	}
	if cfg.Host == "" {
		return nil, errors.New("bitcoin: no RPC host")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// HTTP POST mode: one request per call, nothing to keep alive, and it works with Bitcoin Core,
	// which has no websocket interface.
	rpc, err := rpcclient.New(&rpcclient.ConnConfig{
		Host: cfg.Host, User: cfg.User, Pass: cfg.Password, Params: params.Name,
		HTTPPostMode: true, DisableTLS: !cfg.TLS, Certificates: cfg.Certificate,
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("bitcoin: rpc client for %s: %w", cfg.Host, err)
	}
	return &Source{rpc: rpc, params: params, timeout: timeout}, nil
}

// Close releases the client.
func (s *Source) Close() { s.rpc.Shutdown() }

// Network is payout.Bitcoin, whichever chain parameters the node runs.
func (s *Source) Network() payout.Network { return payout.Bitcoin }

// Tip returns the height of the node's best block.
func (s *Source) Tip(ctx context.Context) (uint64, error) {
	n, err := call(ctx, s.timeout, s.rpc.GetBlockCount)
	if err != nil {
		return 0, fmt.Errorf("bitcoin: block count: %w", err)
	}
	return uint64(n), nil
}

// Block returns the block of the node's best chain at height, with every output that pays a
// standard single address (P2PKH, P2SH, P2WPKH, P2WSH, P2TR). Bare public keys, bare multisig,
// OP_RETURN data and nonstandard scripts are left out: none of them is an address Clearvest
// hands out.
func (s *Source) Block(ctx context.Context, height uint64) (chain.Block, error) {
	hash, err := call(ctx, s.timeout, func() (*chainhash.Hash, error) { return s.rpc.GetBlockHash(int64(height)) })
	if err != nil {
		return chain.Block{}, fmt.Errorf("bitcoin: hash of block %d: %w", height, err)
	}
	// Fetched by hash, so the block is the one that was at height when asked, even if the chain
	// reorganises between the two calls; the watcher sees the change at its next look.
	mb, err := call(ctx, s.timeout, func() (*wire.MsgBlock, error) { return s.rpc.GetBlock(hash) })
	if err != nil {
		return chain.Block{}, fmt.Errorf("bitcoin: block %d (%s): %w", height, hash, err)
	}
	b := chain.Block{
		Height: height,
		Hash:   hash.String(),
		Parent: mb.Header.PrevBlock.String(),
		Time:   mb.Header.Timestamp.UTC(),
	}
	for _, tx := range mb.Transactions {
		b.Transfers = append(b.Transfers, s.transfers(tx)...)
	}
	return b, nil
}

// transfers returns the outputs of tx paying a standard single address.
func (s *Source) transfers(tx *wire.MsgTx) []chain.Transfer {
	var out []chain.Transfer
	txHash := tx.TxHash().String()
	for i, o := range tx.TxOut {
		class, addrs, _, err := txscript.ExtractPkScriptAddrs(o.PkScript, s.params)
		if err != nil || len(addrs) != 1 {
			continue
		}
		switch class {
		case txscript.PubKeyHashTy, txscript.ScriptHashTy, txscript.WitnessV0PubKeyHashTy,
			txscript.WitnessV0ScriptHashTy, txscript.WitnessV1TaprootTy:
		default:
			continue
		}
		out = append(out, chain.Transfer{
			TxHash:  txHash,
			Index:   uint32(i),
			Address: addrs[0].EncodeAddress(), // bech32 is lower-case as encoded
			Asset:   asset.BTC,
			Amount:  Amount(o.Value),
		})
	}
	return out
}

// Amount writes satoshis as an exact decimal of bitcoin: 1500000 → "0.015".
func Amount(sats int64) string { return decimal.New(sats, -8).String() }

// TxStatus says whether the transaction is in a block of the node's best chain and at which
// height; it is not found while unconfirmed, unknown to the node, or only in a block that left
// the best chain. A Bitcoin transaction in a block never failed: Failed is always false. The node
// must run with a transaction index (btcd --txindex, bitcoind -txindex).
func (s *Source) TxStatus(ctx context.Context, txHash string) (chain.TxState, error) {
	h, err := chainhash.NewHashFromStr(txHash)
	if err != nil {
		return chain.TxState{}, fmt.Errorf("bitcoin: transaction hash %q: %w", txHash, err)
	}
	tx, err := call(ctx, s.timeout, func() (*btcjson.TxRawResult, error) { return s.rpc.GetRawTransactionVerbose(h) })
	if rpcCode(err) == btcjson.ErrRPCNoTxInfo || rpcCode(err) == btcjson.ErrRPCInvalidAddressOrKey {
		return chain.TxState{}, nil
	}
	if err != nil {
		return chain.TxState{}, fmt.Errorf("bitcoin: transaction %s: %w", txHash, err)
	}
	if tx.BlockHash == "" || tx.Confirmations == 0 {
		return chain.TxState{}, nil
	}
	bh, err := chainhash.NewHashFromStr(tx.BlockHash)
	if err != nil {
		return chain.TxState{}, fmt.Errorf("bitcoin: block hash %q of transaction %s: %w", tx.BlockHash, txHash, err)
	}
	hdr, err := call(ctx, s.timeout, func() (*btcjson.GetBlockHeaderVerboseResult, error) { return s.rpc.GetBlockHeaderVerbose(bh) })
	if err != nil {
		return chain.TxState{}, fmt.Errorf("bitcoin: header of block %s: %w", bh, err)
	}
	// A block off the best chain has confirmations -1: its transactions are not confirmed.
	if hdr.Confirmations < 1 {
		return chain.TxState{}, nil
	}
	return chain.TxState{Found: true, Height: uint64(hdr.Height)}, nil
}

func rpcCode(err error) btcjson.RPCErrorCode {
	var e *btcjson.RPCError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// call runs one blocking RPC and gives up when ctx ends or timeout passes. rpcclient takes no
// context and retries a refused connection for about twenty seconds; the abandoned call finishes
// in the background and its answer is dropped.
func call[T any](ctx context.Context, timeout time.Duration, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	var zero T
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-t.C:
		return zero, fmt.Errorf("no answer within %s", timeout)
	}
}

// Package ethereum reads Ethereum blocks from a node over JSON-RPC for the deposit watcher
// (docs/chain.md, "Watchers"): the plain ether payments in a block and the ERC-20 Transfer events
// of the one token contract it is configured with (USDT).
//
// It talks to any node that serves the standard execution API (geth, Nethermind, Erigon, Besu,
// anvil, or a provider's endpoint), through go-ethereum's client. It holds no keys and sends
// nothing.
package ethereum

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	goeth "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
)

// transferEvent is the topic of ERC-20's Transfer(address indexed from, address indexed to,
// uint256 value).
var transferEvent = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// Config says which node to read and which token contract's transfers count as USDT.
type Config struct {
	RPCURL string // http(s):// or ws(s):// endpoint of the node's JSON-RPC API
	// Token is the USDT contract's address; empty watches ether only.
	Token string
	// TokenDecimals is the token's decimals() (6 for USDT): a Transfer's value is in units of
	// 10^-TokenDecimals of a token.
	TokenDecimals int32
}

// Source reads blocks of one Ethereum chain. It is safe for concurrent use; a node that is down
// makes its calls fail, and they work again once it answers, without a new Source.
type Source struct {
	client   *ethclient.Client
	token    common.Address
	hasToken bool
	decimals int32
}

// Dial checks the configuration and prepares a client of the node. Over HTTP no connection is made
// until the first call, so a node that is down now is not an error here.
func Dial(ctx context.Context, cfg Config) (*Source, error) {
	if cfg.RPCURL == "" {
		return nil, errors.New("ethereum: no RPC URL")
	}
	s := &Source{decimals: cfg.TokenDecimals}
	if cfg.Token != "" {
		if !common.IsHexAddress(cfg.Token) {
			return nil, fmt.Errorf("ethereum: token contract %q is not an address", cfg.Token)
		}
		s.token, s.hasToken = common.HexToAddress(cfg.Token), true
	}
	if cfg.TokenDecimals < 0 || cfg.TokenDecimals > 77 {
		return nil, fmt.Errorf("ethereum: token decimals %d out of range", cfg.TokenDecimals)
	}
	c, err := ethclient.DialContext(ctx, cfg.RPCURL)
	if err != nil {
		return nil, fmt.Errorf("ethereum: dial %s: %w", redact(cfg.RPCURL), err)
	}
	s.client = c
	return s, nil
}

// Close releases the client's connections.
func (s *Source) Close() { s.client.Close() }

// Network is Ethereum, the network USDT travels on as an ERC-20 token.
func (s *Source) Network() payout.Network { return payout.Ethereum }

// Tip is the height of the node's latest block.
func (s *Source) Tip(ctx context.Context) (uint64, error) {
	h, err := s.client.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("ethereum: latest block number: %w", err)
	}
	return h, nil
}

// rpcBlock is the part of eth_getBlockByNumber's answer a deposit needs. It is decoded here rather
// than as go-ethereum's types.Block so that the hash is the one the node reports (not recomputed
// from the header), and a transaction type this client does not know cannot make a block
// unreadable.
type rpcBlock struct {
	Number       *hexutil.Big   `json:"number"`
	Hash         common.Hash    `json:"hash"`
	ParentHash   common.Hash    `json:"parentHash"`
	Timestamp    hexutil.Uint64 `json:"timestamp"`
	Transactions []rpcTx        `json:"transactions"`
}

type rpcTx struct {
	Hash  common.Hash     `json:"hash"`
	To    *common.Address `json:"to"`
	Value *hexutil.Big    `json:"value"`
}

// ErrNoBlock: the node has no block at the height asked (above its tip).
var ErrNoBlock = errors.New("ethereum: no block at that height")

// Block reads the block at height on the node's best chain with its transfers: each plain ether
// payment (a transaction to an address, with value, that succeeded) and each Transfer event of the
// token contract. Ether moved by contracts (internal transactions) is not seen.
func (s *Source) Block(ctx context.Context, height uint64) (chain.Block, error) {
	var b *rpcBlock
	if err := s.client.Client().CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.EncodeUint64(height), true); err != nil {
		return chain.Block{}, fmt.Errorf("ethereum: block %d: %w", height, err)
	}
	if b == nil {
		return chain.Block{}, fmt.Errorf("%w (%d)", ErrNoBlock, height)
	}
	if b.Number == nil || b.Number.ToInt().Cmp(new(big.Int).SetUint64(height)) != 0 {
		return chain.Block{}, fmt.Errorf("ethereum: block %d: the node answered block %v", height, b.Number)
	}
	out := chain.Block{
		Height: height,
		Hash:   b.Hash.Hex(),
		Parent: b.ParentHash.Hex(),
		Time:   time.Unix(int64(b.Timestamp), 0).UTC(),
	}
	paying := 0
	for _, tx := range b.Transactions {
		if tx.To != nil && tx.Value != nil && tx.Value.ToInt().Sign() > 0 {
			paying++
		}
	}
	if len(b.Transactions) == 0 || (paying == 0 && !s.hasToken) {
		return out, nil
	}
	// The receipts, read by the block's hash so that they are of this very block even if the
	// chain reorganises meanwhile, say which transactions succeeded and carry the token's events.
	var receipts []*types.Receipt
	err := s.client.Client().CallContext(ctx, &receipts, "eth_getBlockReceipts", b.Hash)
	if err == nil && receipts == nil {
		err = goeth.NotFound // reorganised away since the block was read
	}
	if err != nil {
		return chain.Block{}, fmt.Errorf("ethereum: receipts of block %d (%s): %w", height, b.Hash.Hex(), err)
	}
	succeeded := make(map[common.Hash]bool, len(receipts))
	for _, r := range receipts {
		succeeded[r.TxHash] = r.Status == types.ReceiptStatusSuccessful
	}
	for _, tx := range b.Transactions {
		if tx.To == nil || tx.Value == nil || tx.Value.ToInt().Sign() <= 0 {
			continue
		}
		ok, known := succeeded[tx.Hash]
		if !known {
			return chain.Block{}, fmt.Errorf("ethereum: block %d (%s): no receipt for transaction %s", height, b.Hash.Hex(), tx.Hash.Hex())
		}
		// A payment to a contract (or to an account delegating to code) can revert; nothing moved.
		if !ok {
			continue
		}
		out.Transfers = append(out.Transfers, chain.Transfer{
			TxHash:  tx.Hash.Hex(),
			Index:   0,
			Address: tx.To.Hex(),
			Asset:   asset.ETH,
			Amount:  Units(tx.Value.ToInt(), asset.ETH.Decimals()),
		})
	}
	if !s.hasToken {
		return out, nil
	}
	for _, r := range receipts {
		if r.Status != types.ReceiptStatusSuccessful {
			continue
		}
		for _, l := range r.Logs {
			to, value, ok := s.tokenTransfer(l)
			if !ok {
				continue
			}
			out.Transfers = append(out.Transfers, chain.Transfer{
				TxHash:  r.TxHash.Hex(),
				Index:   uint32(l.Index),
				Address: to.Hex(),
				Asset:   asset.USDT,
				Amount:  Units(value, s.decimals),
			})
		}
	}
	return out, nil
}

// tokenTransfer reads a log as a Transfer event of the token contract. Logs of other contracts,
// other events, and Transfer events not in ERC-20's shape (ERC-721's has the value indexed too)
// are not transfers of the token.
func (s *Source) tokenTransfer(l *types.Log) (to common.Address, value *big.Int, ok bool) {
	if l.Removed || l.Address != s.token || len(l.Topics) != 3 || l.Topics[0] != transferEvent || len(l.Data) != 32 {
		return common.Address{}, nil, false
	}
	return common.BytesToAddress(l.Topics[2].Bytes()), new(big.Int).SetBytes(l.Data), true
}

// TxStatus reads the transaction's receipt: the height of the block that holds it, and whether
// it failed there. It is not found while the node does not know it as mined (pending, dropped,
// or reorganised away). A transaction that was mined but reverted is found and Failed: it is on
// the chain, but it moved nothing.
func (s *Source) TxStatus(ctx context.Context, txHash string) (chain.TxState, error) {
	b, err := hexutil.Decode(txHash)
	if err != nil || len(b) != common.HashLength {
		return chain.TxState{}, fmt.Errorf("ethereum: %q is not a transaction hash", txHash)
	}
	r, err := s.client.TransactionReceipt(ctx, common.BytesToHash(b))
	if errors.Is(err, goeth.NotFound) {
		return chain.TxState{}, nil
	}
	if err != nil {
		return chain.TxState{}, fmt.Errorf("ethereum: receipt of %s: %w", strings.ToLower(txHash), err)
	}
	if r.BlockNumber == nil || !r.BlockNumber.IsUint64() {
		return chain.TxState{}, fmt.Errorf("ethereum: receipt of %s has no block number", strings.ToLower(txHash))
	}
	return chain.TxState{Found: true, Height: r.BlockNumber.Uint64(), Failed: r.Status != types.ReceiptStatusSuccessful}, nil
}

// Units writes an amount of the smallest units as an exact decimal of whole coins with the given
// number of decimals: Units(15e15, 18) is "0.015". Trailing zeros of the fraction are dropped.
func Units(v *big.Int, decimals int32) string {
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	d := int(decimals)
	if len(digits) <= d {
		digits = strings.Repeat("0", d-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-d], strings.TrimRight(digits[len(digits)-d:], "0")
	s := whole
	if frac != "" {
		s += "." + frac
	}
	if neg {
		s = "-" + s
	}
	return s
}

// redact keeps a provider's key, often in the URL's user info or path, out of error messages.
func redact(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "the RPC URL"
	}
	host, _, _ := strings.Cut(rest, "/")
	if _, h, ok := strings.Cut(host, "@"); ok {
		host = h
	}
	return scheme + "://" + host
}

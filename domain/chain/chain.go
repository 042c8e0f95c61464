// Package chain holds what Clearvest reads from a blockchain to credit deposits by itself: the
// blocks of a watched network and the transfers in them (docs/chain.md).
//
// Rules:
//   - A transfer is named by its network, asset, transaction hash and index (Key); however often
//     it is seen, in however many processes, it is one transfer and is credited once.
//   - Amounts are exact decimals in the asset's own precision (asset.Decimals), never floats.
//   - Addresses are in the form Clearvest derives and shows them: lower-case bech32 for Bitcoin,
//     EIP-55 checksummed hex for Ethereum. The server holds extended public keys only.
package chain

import (
	"fmt"
	"time"

	"clearvest/domain/asset"
	"clearvest/domain/payout"
)

// Transfer is one payment of an asset to an address, as a block records it.
type Transfer struct {
	TxHash string // as explorers write it: lower-case hex, 0x-prefixed on Ethereum
	// Index tells transfers of one transaction apart: the output index on Bitcoin, the log index
	// of an ERC-20 Transfer event, 0 for a plain ether payment.
	Index   uint32
	Address string
	Asset   asset.Asset
	Amount  string // decimal in the asset's own units ("0.015" BTC)
}

// Key names the transfer on its network, the same in every process and every time it is seen.
func (t Transfer) Key(n payout.Network) string {
	return fmt.Sprintf("%s-%s-%s-%d", n, t.Asset, t.TxHash, t.Index)
}

// Block is one block of the best chain as a node answered it, with the transfers in it.
type Block struct {
	Height    uint64
	Hash      string
	Parent    string // the hash of the block before it
	Time      time.Time
	Transfers []Transfer
}

// TxState is what a node says of one transaction: whether it is in a block of the best chain,
// at which height, and whether it failed there. A failed transaction (an Ethereum transaction
// that reverted) is on the chain but moved nothing.
type TxState struct {
	Found  bool
	Height uint64
	Failed bool
}

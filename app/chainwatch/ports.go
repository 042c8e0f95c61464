package chainwatch

import (
	"context"
	"time"

	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
)

// Source is one network's node as the watcher reads it. Block answers the best chain's block at
// a height; a height above the tip is an error. TxStatus says whether a transaction is in a
// block of the best chain, at which height, and whether it failed there (reverted: on the chain,
// but it moved nothing); the payouts staff record are checked with it.
type Source interface {
	Network() payout.Network
	Tip(ctx context.Context) (uint64, error)
	Block(ctx context.Context, height uint64) (chain.Block, error)
	TxStatus(ctx context.Context, txHash string) (chain.TxState, error)
}

// Owners names the investors the addresses were given to, by address; an address given to no
// one is absent. One question per block, however many outputs it has: a Bitcoin block pays
// thousands of addresses, a handful of them ours.
type Owners interface {
	Owners(ctx context.Context, network payout.Network, addresses []string) (map[string]string, error)
}

// Rates answers the USD price of one unit of an asset and when it was taken; ok is false when
// there is none.
type Rates interface {
	Rate(ctx context.Context, a asset.Asset) (usdPerUnit string, at time.Time, ok bool, err error)
}

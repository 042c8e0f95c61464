package chainwatch

import (
	"context"
	"time"

	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
)

// Source is one network's node as the watcher reads it. Block answers the best chain's block at
// a height; a height above the tip is an error.
type Source interface {
	Network() payout.Network
	Tip(ctx context.Context) (uint64, error)
	Block(ctx context.Context, height uint64) (chain.Block, error)
	TxHeight(ctx context.Context, txHash string) (height uint64, found bool, err error)
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

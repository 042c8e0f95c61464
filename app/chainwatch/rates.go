package chainwatch

import (
	"context"
	"time"

	"clearvest/app/marketdata"
	"clearvest/domain/asset"
)

// LastClose is what MarketRates needs of the market-data cache.
type LastClose interface {
	LastClose(ctx context.Context, sym marketdata.Symbol) (close string, at time.Time, ok bool, err error)
}

// MarketRates prices assets for the watcher: USDT at 1 USD, BTC at the market-data cache's last
// BTCUSDT close as of its last fetch. ETH has no price cached: its transfers wait, visibly, until
// one exists.
type MarketRates struct {
	Market LastClose
	Now    func() time.Time
}

// Rate implements Rates.
func (m MarketRates) Rate(ctx context.Context, a asset.Asset) (string, time.Time, bool, error) {
	switch a {
	case asset.USDT:
		now := time.Now
		if m.Now != nil {
			now = m.Now
		}
		return "1", now().UTC(), true, nil
	case asset.BTC:
		if m.Market == nil {
			return "", time.Time{}, false, nil
		}
		return m.Market.LastClose(ctx, marketdata.BTCUSDT)
	}
	return "", time.Time{}, false, nil
}

package marketdata

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// DefaultCryptoURL is Binance's public market data API.
const DefaultCryptoURL = "https://api.binance.com"

// Klines reads daily candles of one pair from a Binance-compatible klines endpoint:
// GET <BaseURL>/api/v3/klines?symbol=BTCUSDT&interval=1d&limit=N. No key is needed.
type Klines struct {
	BaseURL string
	Symbol  string // the exchange's pair, e.g. "BTCUSDT"
	Client  *http.Client
}

// Source names the provider for attribution.
func (k Klines) Source() string { return "Binance" }

// Daily returns the last days daily candles, oldest first; the last is the day still trading.
// The exchange counts the days back from its own clock, so now is not sent.
func (k Klines) Daily(ctx context.Context, days int, _ time.Time) ([]Candle, error) {
	q := url.Values{"symbol": {k.Symbol}, "interval": {"1d"}, "limit": {strconv.Itoa(days)}}
	var rows [][]json.RawMessage
	if err := get(ctx, k.Client, joinURL(k.BaseURL, "/api/v3/klines?"+q.Encode()), &rows); err != nil {
		return nil, err
	}
	return ParseKlines(rows)
}

// ParseKlines reads kline rows: [openTime ms, "open", "high", "low", "close", "volume",
// closeTime ms, ...]. Only the first five fields are used; the exchange may add more at the end.
func ParseKlines(rows [][]json.RawMessage) ([]Candle, error) {
	out := make([]Candle, 0, len(rows))
	for i, row := range rows {
		if len(row) < 5 {
			return nil, fmt.Errorf("%w: kline %d has %d fields, want at least 5", ErrBadResponse, i, len(row))
		}
		var openMs int64
		if err := json.Unmarshal(row[0], &openMs); err != nil {
			return nil, fmt.Errorf("%w: kline %d open time: %v", ErrBadResponse, i, err)
		}
		c := Candle{Day: time.UnixMilli(openMs).UTC().Truncate(24 * time.Hour)}
		for j, dst := range []*string{&c.Open, &c.High, &c.Low, &c.Close} {
			var s string
			if err := json.Unmarshal(row[j+1], &s); err != nil {
				return nil, fmt.Errorf("%w: kline %d field %d: %v", ErrBadResponse, i, j+1, err)
			}
			p, err := price(s)
			if err != nil {
				return nil, fmt.Errorf("kline %d: %w", i, err)
			}
			*dst = p
		}
		if err := checkCandle(c); err != nil {
			return nil, err
		}
		if len(out) > 0 && !c.Day.After(out[len(out)-1].Day) {
			return nil, fmt.Errorf("%w: kline %d (%s) is not after the one before", ErrBadResponse, i, c.Day.Format(time.DateOnly))
		}
		out = append(out, c)
	}
	return out, nil
}

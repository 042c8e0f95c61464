package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Defaults of the market data settings.
const (
	// DefaultMarketCryptoURL is Binance's public market data API (daily BTCUSDT candles).
	DefaultMarketCryptoURL = "https://api.binance.com"
	// DefaultMarketFXURL is the Frankfurter API, which serves the ECB's euro reference rates.
	DefaultMarketFXURL = "https://api.frankfurter.dev/v1"
	// DefaultMarketRefresh is how often the market data cache is refreshed.
	DefaultMarketRefresh = 15 * time.Minute
)

// Market configures the market data cache.
type Market struct {
	CryptoURL string // base URL of a Binance-compatible klines API
	FXURL     string // base URL of a Frankfurter-compatible reference rates API
	// Refresh is how often prices are fetched; 0 means never (CLEARVEST_MARKET_REFRESH=off),
	// and the page then serves what is cached, honestly marked stale or unavailable.
	Refresh time.Duration
}

// ParseMarket reads CLEARVEST_MARKET_CRYPTO_URL, CLEARVEST_MARKET_FX_URL (absolute http(s) URLs)
// and CLEARVEST_MARKET_REFRESH (a Go duration of at least a second, or "off").
func ParseMarket(get func(string) string) (Market, error) {
	m := Market{CryptoURL: get(EnvMarketCryptoURL), FXURL: get(EnvMarketFXURL), Refresh: DefaultMarketRefresh}
	if m.CryptoURL == "" {
		m.CryptoURL = DefaultMarketCryptoURL
	}
	if m.FXURL == "" {
		m.FXURL = DefaultMarketFXURL
	}
	for name, v := range map[string]string{EnvMarketCryptoURL: m.CryptoURL, EnvMarketFXURL: m.FXURL} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Market{}, fmt.Errorf("%s: %q is not an absolute http(s) URL", name, v)
		}
	}
	switch r := strings.ToLower(get(EnvMarketRefresh)); r {
	case "":
	case "off":
		m.Refresh = 0
	default:
		d, err := time.ParseDuration(r)
		if err != nil || d < time.Second {
			return Market{}, fmt.Errorf("%s: %q is not a duration of at least 1s (e.g. 15m) or off", EnvMarketRefresh, r)
		}
		m.Refresh = d
	}
	return m, nil
}

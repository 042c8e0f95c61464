package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/marketdata"
	"clearvest/domain/clock"
	providers "clearvest/platform/marketdata"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// fixtureProvider serves a provider's saved answer, as the real provider would.
func fixtureProvider(t *testing.T, file string) string {
	t.Helper()
	body, err := os.ReadFile("../platform/marketdata/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

type marketJSON struct {
	Symbol        string  `json:"symbol"`
	Interval      string  `json:"interval"`
	Status        string  `json:"status"`
	AsOf          *string `json:"asOf"`
	Source        string  `json:"source"`
	ReferenceRate bool    `json:"referenceRate"`
	Candles       []struct {
		Time, Open, High, Low, Close string
	} `json:"candles"`
}

func TestMarketCandles(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, marketdata.Migrations); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Date(2026, 11, 25, 17, 0, 0, 0, time.UTC))
	svc, err := marketdata.New(marketdata.Config{}, marketdata.Deps{Pool: pool, Clock: clk, Providers: map[marketdata.Symbol]marketdata.Provider{
		marketdata.EURUSD:  providers.ReferenceRates{BaseURL: fixtureProvider(t, "frankfurter_eur_usd.json"), Base: "EUR", Quote: "USD"},
		marketdata.BTCUSDT: providers.Klines{BaseURL: fixtureProvider(t, "binance_klines_btcusdt_1d.json"), Symbol: "BTCUSDT"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, api.Deps{Market: svc})
	read := func(path string) marketJSON {
		t.Helper()
		r := get(t, srv, path)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, r.status, r.body)
		}
		if cc := r.header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
			t.Errorf("Cache-Control = %q, want public", cc)
		}
		if !strings.Contains(string(r.body), `"candles":[`) {
			t.Errorf("body %s: candles must be a list, even when empty", r.body)
		}
		var m marketJSON
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	t.Run("nothing fetched yet is unavailable", func(t *testing.T) {
		m := read("/api/market/candles?symbol=BTCUSDT&interval=1d")
		if m.Status != "unavailable" || m.AsOf != nil || len(m.Candles) != 0 || m.Symbol != "BTCUSDT" || m.Interval != "1d" {
			t.Errorf("answer = %+v, want unavailable, no as-of time, no candles", m)
		}
	})

	if err := svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Run("after a refresh the cache answers live", func(t *testing.T) {
		fx := read("/api/market/candles?symbol=EURUSD")
		if fx.Status != "live" || fx.AsOf == nil || *fx.AsOf != "2026-11-25T17:00:00Z" || !fx.ReferenceRate || !strings.Contains(fx.Source, "European Central Bank") {
			t.Errorf("EURUSD = %+v, want live as of the refresh, an ECB reference rate", fx)
		}
		if len(fx.Candles) != 8 || fx.Candles[0].Time != "2026-11-16" || fx.Candles[7].Close != "1.1597" || fx.Candles[7].High != "1.1597" {
			t.Errorf("EURUSD candles = %+v, want the 8 working days of the provider's answer", fx.Candles)
		}
		btc := read("/api/market/candles?symbol=BTCUSDT&interval=1d")
		if btc.Status != "live" || btc.ReferenceRate || len(btc.Candles) != 5 || btc.Candles[4].Time != "2026-11-25" || btc.Candles[4].Close != "91890.42" {
			t.Errorf("BTCUSDT = %+v, want 5 live candles ending 2026-11-25 at 91890.42", btc)
		}
	})

	t.Run("an old fetch is stale", func(t *testing.T) {
		clk.Advance(2 * time.Hour)
		btc := read("/api/market/candles?symbol=BTCUSDT")
		if btc.Status != "stale" || btc.AsOf == nil || *btc.AsOf != "2026-11-25T17:00:00Z" || len(btc.Candles) != 5 {
			t.Errorf("BTCUSDT = %+v, want stale as of the last fetch, with its candles", btc)
		}
	})

	t.Run("unknown symbols and intervals are refused", func(t *testing.T) {
		for path, want := range map[string]string{
			"/api/market/candles?symbol=ETHUSDT":            "Unknown symbol",
			"/api/market/candles?symbol=EURUSD&interval=1h": "Unknown interval",
			"/api/market/candles":                           "symbol is required",
		} {
			r := get(t, srv, path)
			if r.status != http.StatusBadRequest {
				t.Errorf("GET %s = %d, want 400", path, r.status)
				continue
			}
			if msg := errorMessage(t, r); !strings.Contains(msg, want) {
				t.Errorf("GET %s: message %q, want it to contain %q", path, msg, want)
			}
		}
	})
}

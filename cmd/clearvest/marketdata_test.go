package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"clearvest/platform/config"
	"clearvest/platform/pgtest"
)

// TestServeRefreshesMarketDataFromTheConfiguredProviders starts serve as an operator would, with
// the market data providers pointed at local servers that answer in the providers' formats: the
// refresh serve starts fills the cache, and the public endpoint answers live from it.
func TestServeRefreshesMarketDataFromTheConfiguredProviders(t *testing.T) {
	provider := func(file, wantPath string) string {
		body, err := os.ReadFile("../../platform/marketdata/testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, wantPath) {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	t.Setenv("CLEARVEST_DATA_DIR", t.TempDir())
	t.Setenv("CLEARVEST_SECRET_KEY", base64.StdEncoding.EncodeToString(make([]byte, 32)))
	t.Setenv("CLEARVEST_ENV", "development")
	t.Setenv("CLEARVEST_ADDR", "127.0.0.1:0")
	t.Setenv(config.EnvMarketCryptoURL, provider("binance_klines_btcusdt_1d.json", "/api/v3/klines"))
	t.Setenv(config.EnvMarketFXURL, provider("frankfurter_eur_usd.json", "/v1/")+"/v1")
	ctx, stop := context.WithCancel(testCtx(t))
	defer stop()
	out, stdout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, nil, stdout, slog.New(slog.DiscardHandler))
		stdout.Close()
	}()
	var public string
	lines := bufio.NewScanner(out)
	for public == "" && lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "Clearvest is running at "); ok {
			u, err := url.Parse(rest)
			if err != nil {
				t.Fatal(err)
			}
			public = "http://127.0.0.1:" + u.Port()
		}
	}
	if public == "" {
		t.Fatalf("serve stopped before it listened: %v", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()

	type answer struct {
		Status  string `json:"status"`
		Source  string `json:"source"`
		Candles []struct {
			Time  string `json:"time"`
			Close string `json:"close"`
		} `json:"candles"`
	}
	read := func(symbol string) answer {
		t.Helper()
		res, err := http.Get(public + "/api/market/candles?symbol=" + symbol)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var a answer
		if err := json.NewDecoder(res.Body).Decode(&a); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET candles of %s = %d, %v", symbol, res.StatusCode, err)
		}
		return a
	}
	// The first refresh runs in the background as serve starts; it is asked again until it has
	// landed, for at most the test's own deadline.
	deadline := time.Now().Add(20 * time.Second)
	var btc answer
	for btc = read("BTCUSDT"); btc.Status != "live" && time.Now().Before(deadline); btc = read("BTCUSDT") {
		time.Sleep(50 * time.Millisecond)
	}
	if btc.Status != "live" || len(btc.Candles) != 5 || btc.Candles[4].Close != "91890.42" || btc.Source != "Binance" {
		t.Errorf("BTCUSDT = %+v, want the provider's 5 candles, live", btc)
	}
	fx := read("EURUSD")
	for ; fx.Status != "live" && time.Now().Before(deadline); fx = read("EURUSD") {
		time.Sleep(50 * time.Millisecond)
	}
	if fx.Status != "live" || len(fx.Candles) != 8 || fx.Candles[0].Time != "2026-11-16" {
		t.Errorf("EURUSD = %+v, want the provider's 8 reference rates, live", fx)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

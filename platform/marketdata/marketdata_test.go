package marketdata_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"clearvest/platform/marketdata"
)

// provider serves one saved answer and records the request it got.
func provider(t *testing.T, status int, file string) (*httptest.Server, *http.Request) {
	t.Helper()
	body := []byte(`{"code":-1121,"msg":"Invalid symbol."}`)
	if file != "" {
		var err error
		if body, err = os.ReadFile(file); err != nil {
			t.Fatal(err)
		}
	}
	got := new(http.Request)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = *r.Clone(context.Background())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestKlinesReadsDailyCandles(t *testing.T) {
	t.Parallel()
	srv, req := provider(t, http.StatusOK, "testdata/binance_klines_btcusdt_1d.json")
	k := marketdata.Klines{BaseURL: srv.URL + "/", Symbol: "BTCUSDT"}
	got, err := k.Daily(context.Background(), 5, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if req.URL.Path != "/api/v3/klines" || req.URL.Query().Get("symbol") != "BTCUSDT" ||
		req.URL.Query().Get("interval") != "1d" || req.URL.Query().Get("limit") != "5" {
		t.Errorf("request = %s, want /api/v3/klines?symbol=BTCUSDT&interval=1d&limit=5", req.URL)
	}
	if len(got) != 5 {
		t.Fatalf("got %d candles, want 5", len(got))
	}
	first := marketdata.Candle{Day: day("2026-11-21"), Open: "91234.56", High: "92880", Low: "90110.01", Close: "92011.17"}
	if got[0] != first {
		t.Errorf("first candle = %+v, want %+v", got[0], first)
	}
	if !got[4].Day.Equal(day("2026-11-25")) || got[4].Close != "91890.42" {
		t.Errorf("last candle = %+v, want 2026-11-25 closing at 91890.42", got[4])
	}
}

func TestReferenceRatesReadsOneFlatCandlePerWorkingDay(t *testing.T) {
	t.Parallel()
	srv, req := provider(t, http.StatusOK, "testdata/frankfurter_eur_usd.json")
	r := marketdata.ReferenceRates{BaseURL: srv.URL + "/v1", Base: "EUR", Quote: "USD"}
	got, err := r.Daily(context.Background(), 10, time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if req.URL.Path != "/v1/2026-11-16..2026-11-25" || req.URL.Query().Get("base") != "EUR" || req.URL.Query().Get("symbols") != "USD" {
		t.Errorf("request = %s, want /v1/2026-11-16..2026-11-25?base=EUR&symbols=USD", req.URL)
	}
	// 8 working days: the weekend of 21-22 November has no rate.
	if len(got) != 8 {
		t.Fatalf("got %d candles, want 8", len(got))
	}
	want := marketdata.Candle{Day: day("2026-11-16"), Open: "1.1571", High: "1.1571", Low: "1.1571", Close: "1.1571"}
	if got[0] != want {
		t.Errorf("first = %+v, want %+v", got[0], want)
	}
	if !got[5].Day.Equal(day("2026-11-23")) || got[7].Close != "1.1597" {
		t.Errorf("after the weekend = %+v, last = %+v; want 2026-11-23 and a last close of 1.1597", got[5], got[7])
	}
}

func TestProviderErrorsAreErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	refused, _ := provider(t, http.StatusBadRequest, "")
	if _, err := (marketdata.Klines{BaseURL: refused.URL, Symbol: "NOPE"}).Daily(ctx, 5, time.Now()); err == nil {
		t.Error("a 400 from the exchange was accepted")
	}
	wrongShape, _ := provider(t, http.StatusOK, "testdata/frankfurter_eur_usd.json")
	if _, err := (marketdata.Klines{BaseURL: wrongShape.URL, Symbol: "BTCUSDT"}).Daily(ctx, 5, time.Now()); !errors.Is(err, marketdata.ErrBadResponse) {
		t.Errorf("klines from a rates document: err = %v, want ErrBadResponse", err)
	}
	if _, err := (marketdata.ReferenceRates{BaseURL: wrongShape.URL, Base: "EUR", Quote: "GBP"}).Daily(ctx, 10, time.Now()); !errors.Is(err, marketdata.ErrBadResponse) {
		t.Errorf("a series without the quote asked for: err = %v, want ErrBadResponse", err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	if _, err := (marketdata.ReferenceRates{BaseURL: down.URL, Base: "EUR", Quote: "USD"}).Daily(ctx, 10, time.Now()); err == nil {
		t.Error("an unreachable provider gave no error")
	}
}

func TestParseKlinesRefusesNonsense(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"too few fields":        `[[1795219200000,"1","2","0.5"]]`,
		"price not a string":    `[[1795219200000,1,"2","0.5","1.5"]]`,
		"negative price":        `[[1795219200000,"-1","2","0.5","1.5"]]`,
		"close above high":      `[[1795219200000,"1","2","0.5","2.5"]]`,
		"days out of order":     `[[1795305600000,"1","2","0.5","1.5"],[1795219200000,"1","2","0.5","1.5"]]`,
		"open time not integer": `[["x","1","2","0.5","1.5"]]`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
			defer srv.Close()
			if _, err := (marketdata.Klines{BaseURL: srv.URL, Symbol: "BTCUSDT"}).Daily(context.Background(), 2, time.Now()); !errors.Is(err, marketdata.ErrBadResponse) {
				t.Errorf("err = %v, want ErrBadResponse", err)
			}
		})
	}
}

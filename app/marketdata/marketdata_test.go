package marketdata_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"clearvest/app/marketdata"
	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	platform "clearvest/platform/marketdata"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// fakeProvider answers with whatever the test set, and counts its calls.
type fakeProvider struct {
	mu      sync.Mutex
	name    string
	candles []platform.Candle
	err     error
	calls   atomic.Int32
}

func (p *fakeProvider) Source() string { return p.name }

func (p *fakeProvider) Daily(_ context.Context, _ int, _ time.Time) ([]platform.Candle, error) {
	p.calls.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.candles, p.err
}

func (p *fakeProvider) answer(err error, candles ...platform.Candle) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.candles, p.err = candles, err
}

func candle(day, open, high, low, close string) platform.Candle {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		panic(err)
	}
	return platform.Candle{Day: d, Open: open, High: high, Low: low, Close: close}
}

func flat(day, rate string) platform.Candle { return candle(day, rate, rate, rate, rate) }

type fixture struct {
	svc    *marketdata.Service
	clock  *clock.Manual
	fx     *fakeProvider
	crypto *fakeProvider
	deps   marketdata.Deps
}

func newFixture(t *testing.T, cfg marketdata.Config) *fixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, marketdata.Migrations); err != nil {
		t.Fatal(err)
	}
	f := &fixture{
		clock:  clock.NewManual(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)),
		fx:     &fakeProvider{name: "ECB"},
		crypto: &fakeProvider{name: "Exchange"},
	}
	f.deps = marketdata.Deps{Pool: pool, Clock: f.clock, Providers: map[marketdata.Symbol]marketdata.Provider{
		marketdata.EURUSD: f.fx, marketdata.BTCUSDT: f.crypto}}
	var err error
	if f.svc, err = marketdata.New(cfg, f.deps); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) view(t *testing.T, sym marketdata.Symbol) marketdata.View {
	t.Helper()
	v, err := f.svc.Candles(context.Background(), string(sym), "1d")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func closes(v marketdata.View) []string {
	out := make([]string, len(v.Candles))
	for i, c := range v.Candles {
		out[i] = c.Day.Format(time.DateOnly) + "=" + c.Close
	}
	return out
}

func TestNothingFetchedIsUnavailable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, marketdata.Config{})
	v := f.view(t, marketdata.BTCUSDT)
	if v.Status != marketdata.StatusUnavailable || len(v.Candles) != 0 || !v.AsOf.IsZero() {
		t.Errorf("view = %+v, want unavailable with no candles and no as-of time", v)
	}
	if v.Source != "Exchange" {
		t.Errorf("source = %q, want the configured provider's", v.Source)
	}
}

func TestRefreshFillsTheCacheAndTheAnswerIsLive(t *testing.T) {
	t.Parallel()
	f := newFixture(t, marketdata.Config{})
	f.fx.answer(nil, flat("2026-11-24", "1.1611"), flat("2026-11-25", "1.1597"))
	f.crypto.answer(nil, candle("2026-11-24", "90233.09", "91999.99", "89900", "91540.66"), candle("2026-11-25", "91540.67", "92215", "91020.5", "91890.42"))
	if err := f.svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	fetched := f.clock.Now()
	f.clock.Advance(10 * time.Minute)

	fx := f.view(t, marketdata.EURUSD)
	if fx.Status != marketdata.StatusLive || !fx.AsOf.Equal(fetched) || !fx.ReferenceRate || fx.Source != "ECB" {
		t.Errorf("EURUSD = %+v, want live as of %v, a reference rate from ECB", fx, fetched)
	}
	if got, want := closes(fx), []string{"2026-11-24=1.1611", "2026-11-25=1.1597"}; !slices.Equal(got, want) {
		t.Errorf("EURUSD closes = %v, want %v", got, want)
	}
	btc := f.view(t, marketdata.BTCUSDT)
	want := marketdata.Candle{Day: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), Open: "91540.67", High: "92215", Low: "91020.5", Close: "91890.42"}
	if btc.Status != marketdata.StatusLive || btc.ReferenceRate || len(btc.Candles) != 2 || btc.Candles[1] != want {
		t.Errorf("BTCUSDT = %+v, want live, traded, last candle %+v", btc, want)
	}
}

func TestTheCurrentDayIsOverwrittenAndOlderDaysKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t, marketdata.Config{})
	f.fx.answer(nil, flat("2026-11-24", "1.1611"))
	f.crypto.answer(nil, candle("2026-11-24", "1", "2", "1", "1.5"), candle("2026-11-25", "1.5", "1.6", "1.4", "1.55"))
	if err := f.svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.crypto.answer(nil, candle("2026-11-25", "1.5", "1.9", "1.4", "1.8"))
	if err := f.svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := closes(f.view(t, marketdata.BTCUSDT)), []string{"2026-11-24=1.5", "2026-11-25=1.8"}; !slices.Equal(got, want) {
		t.Errorf("closes = %v, want %v", got, want)
	}
}

func TestAFailedRefreshKeepsTheCacheAndTurnsStale(t *testing.T) {
	t.Parallel()
	f := newFixture(t, marketdata.Config{StaleAfter: time.Hour})
	f.fx.answer(nil, flat("2026-11-24", "1.1611"), flat("2026-11-25", "1.1597"))
	f.crypto.answer(nil, candle("2026-11-25", "1.5", "1.6", "1.4", "1.55"))
	if err := f.svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	fetched := f.clock.Now()

	f.clock.Advance(30 * time.Minute)
	f.fx.answer(errors.New("provider unreachable"))
	f.crypto.answer(nil) // an empty answer is no data, not "no prices any more"
	err := f.svc.Refresh(context.Background())
	if err == nil {
		t.Fatal("Refresh hid the providers' failures")
	}
	fx := f.view(t, marketdata.EURUSD)
	if fx.Status != marketdata.StatusLive || !slices.Equal(closes(fx), []string{"2026-11-24=1.1611", "2026-11-25=1.1597"}) {
		t.Errorf("within the threshold after a failure: %+v, want the same live data", fx)
	}

	f.clock.Advance(31 * time.Minute)
	for _, sym := range marketdata.Symbols {
		v := f.view(t, sym)
		if v.Status != marketdata.StatusStale || !v.AsOf.Equal(fetched) || len(v.Candles) == 0 {
			t.Errorf("%s an hour after the last success = %+v, want stale as of %v with its candles", sym, v, fetched)
		}
	}
}

func TestProcessesSharingADatabaseFetchOncePerPeriod(t *testing.T) {
	t.Parallel()
	cfg := marketdata.Config{Refresh: 15 * time.Minute}
	f := newFixture(t, cfg)
	other, err := marketdata.New(cfg, f.deps)
	if err != nil {
		t.Fatal(err)
	}
	f.fx.answer(nil, flat("2026-11-25", "1.1597"))
	f.crypto.answer(nil, candle("2026-11-25", "1.5", "1.6", "1.4", "1.55"))
	var wg sync.WaitGroup
	for _, s := range []*marketdata.Service{f.svc, other, f.svc, other} {
		wg.Go(func() {
			if err := s.Refresh(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if f.fx.calls.Load() != 1 || f.crypto.calls.Load() != 1 {
		t.Errorf("providers called %d and %d times, want once each", f.fx.calls.Load(), f.crypto.calls.Load())
	}
	f.clock.Advance(8 * time.Minute)
	if err := other.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.fx.calls.Load() != 2 {
		t.Errorf("after half a period the provider was called %d times in all, want 2", f.fx.calls.Load())
	}
}

func TestUnknownSymbolOrIntervalIsABadRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, marketdata.Config{})
	for _, tc := range []struct{ symbol, interval, field string }{
		{"ETHUSDT", "1d", "symbol"}, {"", "1d", "symbol"}, {"EURUSD", "1h", "interval"},
	} {
		_, err := f.svc.Candles(context.Background(), tc.symbol, tc.interval)
		var de *domainerr.Error
		if !errors.As(err, &de) || de.Kind() != domainerr.Invalid || de.Field != tc.field {
			t.Errorf("Candles(%q, %q) err = %v, want an invalid %s", tc.symbol, tc.interval, err, tc.field)
		}
	}
}

func TestFetchingOffReturnsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, marketdata.Config{})
	f.svc.Run(context.Background()) // would block for ever if it ran a loop
	if f.fx.calls.Load() != 0 {
		t.Error("fetching off still fetched")
	}
}

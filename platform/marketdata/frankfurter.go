package marketdata

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// DefaultFXURL is the Frankfurter API, which republishes the European Central Bank's euro
// foreign exchange reference rates.
const DefaultFXURL = "https://api.frankfurter.dev/v1"

// ReferenceRates reads one daily reference rate per working day from a Frankfurter-compatible
// time series endpoint: GET <BaseURL>/<from>..<to>?base=EUR&symbols=USD. A reference rate is a
// single fixing, not a traded range, so each day becomes a candle with open = high = low = close.
type ReferenceRates struct {
	BaseURL string
	Base    string // e.g. "EUR"
	Quote   string // e.g. "USD"
	Client  *http.Client
}

// Source names the provider for attribution: the rates are the ECB's.
func (r ReferenceRates) Source() string {
	return "European Central Bank reference rates (via Frankfurter)"
}

// Daily returns the rates published in the last days calendar days up to now, oldest first.
// Weekends and TARGET holidays have no rate.
func (r ReferenceRates) Daily(ctx context.Context, days int, now time.Time) ([]Candle, error) {
	to := now.UTC()
	from := to.AddDate(0, 0, -days+1)
	q := url.Values{"base": {r.Base}, "symbols": {r.Quote}}
	path := fmt.Sprintf("/%s..%s?%s", from.Format(time.DateOnly), to.Format(time.DateOnly), q.Encode())
	var body TimeSeries
	if err := get(ctx, r.Client, joinURL(r.BaseURL, path), &body); err != nil {
		return nil, err
	}
	return body.Candles(r.Base, r.Quote)
}

// TimeSeries is the provider's answer: {"amount":1.0,"base":"EUR","start_date":…,
// "end_date":…,"rates":{"2024-01-02":{"USD":1.0956},…}}.
type TimeSeries struct {
	Amount json.Number                       `json:"amount"`
	Base   string                            `json:"base"`
	Rates  map[string]map[string]json.Number `json:"rates"`
}

// Candles turns the series into one flat candle per day, oldest first, after checking that it
// is the series asked for (a rate for 1 unit of base, quoted in quote).
func (s TimeSeries) Candles(base, quote string) ([]Candle, error) {
	if s.Base != base {
		return nil, fmt.Errorf("%w: rates are based on %q, want %q", ErrBadResponse, s.Base, base)
	}
	if s.Amount != "" {
		if a, err := decimal.NewFromString(s.Amount.String()); err != nil || !a.Equal(decimal.NewFromInt(1)) {
			return nil, fmt.Errorf("%w: rates are for an amount of %s, want 1", ErrBadResponse, s.Amount)
		}
	}
	out := make([]Candle, 0, len(s.Rates))
	for day, rates := range s.Rates {
		d, err := time.Parse(time.DateOnly, day)
		if err != nil {
			return nil, fmt.Errorf("%w: date %q: %v", ErrBadResponse, day, err)
		}
		raw, ok := rates[quote]
		if !ok {
			return nil, fmt.Errorf("%w: no %s rate on %s", ErrBadResponse, quote, day)
		}
		p, err := price(raw.String())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", day, err)
		}
		out = append(out, Candle{Day: d, Open: p, High: p, Low: p, Close: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day.Before(out[j].Day) })
	return out, nil
}

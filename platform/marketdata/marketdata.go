// Package marketdata fetches daily market prices from public providers over HTTP: a crypto
// exchange's klines (Binance's GET /api/v3/klines) and the ECB's euro reference rates (through
// the Frankfurter API). It only speaks the providers' formats; caching, refreshing and deciding
// whether data is current belong to app/marketdata.
//
// Prices stay decimal strings from the wire to the database, never floats: a rate shown to an
// investor must be the one the provider published, digit for digit.
package marketdata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Candle is one day of prices, open to close, as decimal strings. Day is midnight UTC of the day
// the candle opened.
type Candle struct {
	Day                    time.Time
	Open, High, Low, Close string
}

// maxBody bounds what is read from a provider: a year of daily candles is a few tens of KB, so
// anything larger is not the answer we asked for.
const maxBody = 2 << 20

// ErrBadResponse marks an answer that is not in the provider's format (or holds prices that make
// no sense); the caller keeps what it had rather than store it.
var ErrBadResponse = errors.New("marketdata: unexpected response")

// DefaultClient is used when a provider is given no client: a bounded wait, so an unreachable
// provider costs one failed refresh, not a stuck worker.
var DefaultClient = &http.Client{Timeout: 15 * time.Second}

// get fetches url and decodes its JSON body into out.
func get(ctx context.Context, client *http.Client, url string, out any) error {
	if client == nil {
		client = DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("marketdata: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("marketdata: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("marketdata: reading %s: %w", req.URL.Redacted(), err)
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("marketdata: %s answered %s: %s", req.URL.Redacted(), res.Status, snippet(body))
	}
	if len(body) > maxBody {
		return fmt.Errorf("%w: %s sent more than %d bytes", ErrBadResponse, req.URL.Redacted(), maxBody)
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadResponse, req.URL.Redacted(), err)
	}
	return nil
}

// snippet keeps an error body short enough for a log line.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// price checks that s is a positive decimal and returns it in its canonical form.
func price(s string) (string, error) {
	d, err := decimal.NewFromString(s)
	if err != nil || !d.IsPositive() {
		return "", fmt.Errorf("%w: price %q is not a positive decimal", ErrBadResponse, s)
	}
	return d.String(), nil
}

// checkCandle refuses a candle whose high and low do not contain its open and close.
func checkCandle(c Candle) error {
	low, high := decimal.RequireFromString(c.Low), decimal.RequireFromString(c.High)
	for _, p := range []string{c.Open, c.Close} {
		v := decimal.RequireFromString(p)
		if v.LessThan(low) || v.GreaterThan(high) {
			return fmt.Errorf("%w: candle of %s has %s outside its range %s–%s", ErrBadResponse, c.Day.Format(time.DateOnly), p, c.Low, c.High)
		}
	}
	return nil
}

// joinURL appends a path to a configured base URL, whether or not the base ends in a slash.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + path
}

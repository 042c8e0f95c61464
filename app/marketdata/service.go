// Package marketdata serves daily market prices for the public site (the market rates page):
// a cache in PostgreSQL, a background job that refreshes it from public providers
// (platform/marketdata), and the query the API answers from.
//
// The cache never pretends. Each answer says how current it is: live when the last successful
// fetch is recent, stale (with the time of that fetch) when refreshes have been failing, and
// unavailable when nothing was ever fetched. Nothing is filled in or extrapolated: a day the
// provider did not publish has no candle.
package marketdata

import (
	"clearvest/platform/pgread"
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/marketdata"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the cache's tables (market_candles, market_refreshes). It refers to no
// other set's tables.
var Migrations = pgmigrate.MustFromFS("marketdata", migrationFS, "migrations")

// Symbol is a market the site shows.
type Symbol string

// The markets of the market rates page.
const (
	// EURUSD is the euro in US dollars: the ECB's daily reference rate, one per working day.
	EURUSD Symbol = "EURUSD"
	// BTCUSDT is bitcoin in tether on a crypto exchange: daily candles, the last one still open.
	BTCUSDT Symbol = "BTCUSDT"
)

// Symbols lists the markets in the order the page shows them.
var Symbols = []Symbol{EURUSD, BTCUSDT}

// Interval1d is the one interval served: one candle per day.
const Interval1d = "1d"

// Status says how current an answer is.
type Status string

// The states of an answer.
const (
	StatusLive        Status = "live"        // the last fetch succeeded recently
	StatusStale       Status = "stale"       // cached data whose last successful fetch is too old
	StatusUnavailable Status = "unavailable" // nothing cached
)

// Provider fetches the last days daily candles of one market, oldest first. now is the caller's
// clock, for providers that are asked for a date range.
type Provider interface {
	Source() string
	Daily(ctx context.Context, days int, now time.Time) ([]marketdata.Candle, error)
}

// Config tunes the cache.
type Config struct {
	// Refresh is how often the job fetches; 0 turns fetching off (the cache is still served,
	// and turns stale, then stays stale).
	Refresh time.Duration
	// StaleAfter is how old the last successful fetch may be before answers say stale;
	// 0 means the larger of an hour and three refresh periods.
	StaleAfter time.Duration
	// Days is how many days are fetched and served; 0 means DefaultDays.
	Days int
}

// DefaultDays is half a year of daily candles: enough for a trend, small to fetch and draw.
const DefaultDays = 180

// Deps are the collaborators of the service.
type Deps struct {
	Pool *pgxpool.Pool
	// Clock decides freshness. Market data is about the real world, so it should be the system
	// clock, not a development test clock.
	Clock     clock.Clock
	Logger    *slog.Logger
	Providers map[Symbol]Provider
}

// Service is the market data cache. It is safe for concurrent use, and several processes may
// run it on one database.
type Service struct {
	cfg       Config
	pool      *pgxpool.Pool
	clock     clock.Clock
	logger    *slog.Logger
	providers map[Symbol]Provider
}

// New wires the service.
func New(cfg Config, d Deps) (*Service, error) {
	if d.Pool == nil {
		return nil, errors.New("marketdata: New needs a pool")
	}
	if cfg.Refresh < 0 || cfg.StaleAfter < 0 || cfg.Days < 0 {
		return nil, errors.New("marketdata: durations and days must not be negative")
	}
	for _, s := range Symbols {
		if d.Providers[s] == nil {
			return nil, fmt.Errorf("marketdata: no provider for %s", s)
		}
	}
	if cfg.Days == 0 {
		cfg.Days = DefaultDays
	}
	if cfg.StaleAfter == 0 {
		cfg.StaleAfter = max(time.Hour, 3*cfg.Refresh)
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Service{cfg: cfg, pool: d.Pool, clock: d.Clock, logger: d.Logger, providers: d.Providers}, nil
}

// Candle is one day of prices, as decimal strings.
type Candle struct {
	Day                    time.Time
	Open, High, Low, Close string
}

// View is the answer for one market.
type View struct {
	Symbol   Symbol
	Interval string
	Status   Status
	// AsOf is when the data was last fetched successfully; zero when unavailable.
	AsOf time.Time
	// Source names the provider, for attribution.
	Source string
	// ReferenceRate is true when each day is one published rate rather than a traded range
	// (open = high = low = close).
	ReferenceRate bool
	Candles       []Candle // oldest first; empty when unavailable
}

// ParseSymbol checks a market asked for by a client.
func ParseSymbol(s string) (Symbol, error) {
	if slices.Contains(Symbols, Symbol(s)) {
		return Symbol(s), nil
	}
	return "", domainerr.Field("symbol", fmt.Sprintf("Unknown symbol %q: use EURUSD or BTCUSDT.", s))
}

// ParseInterval checks an interval asked for by a client.
func ParseInterval(s string) (string, error) {
	if s == Interval1d {
		return s, nil
	}
	return "", domainerr.Field("interval", fmt.Sprintf("Unknown interval %q: only daily candles (1d) are available.", s))
}

// Candles answers for one market from the cache, and says how current the cache is.
func (s *Service) Candles(ctx context.Context, symbol, interval string) (View, error) {
	sym, err := ParseSymbol(symbol)
	if err != nil {
		return View{}, err
	}
	if interval, err = ParseInterval(interval); err != nil {
		return View{}, err
	}
	v := View{Symbol: sym, Interval: interval, Status: StatusUnavailable, Source: s.providers[sym].Source(),
		ReferenceRate: sym == EURUSD, Candles: []Candle{}}
	var fetched *time.Time
	var source string
	// The public market page: a read replica may answer (the cache is refreshed every few minutes).
	db := pgread.On(ctx, s.pool)
	err = db.QueryRow(ctx, `SELECT fetched_at, source FROM market_refreshes WHERE symbol = $1 AND interval = $2`,
		string(sym), interval).Scan(&fetched, &source)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return View{}, fmt.Errorf("marketdata: reading freshness: %w", err)
	}
	rows, err := db.Query(ctx, `
		SELECT day, open::text, high::text, low::text, close::text FROM market_candles
		WHERE symbol = $1 AND interval = $2
		  AND day > (SELECT max(day) FROM market_candles WHERE symbol = $1 AND interval = $2) - $3::int
		ORDER BY day`, string(sym), interval, s.cfg.Days)
	if err != nil {
		return View{}, fmt.Errorf("marketdata: reading candles: %w", err)
	}
	v.Candles, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Candle, error) {
		var c Candle
		err := row.Scan(&c.Day, &c.Open, &c.High, &c.Low, &c.Close)
		return c, err
	})
	if err != nil {
		return View{}, fmt.Errorf("marketdata: reading candles: %w", err)
	}
	if len(v.Candles) == 0 || fetched == nil {
		v.Candles = []Candle{}
		return v, nil
	}
	v.AsOf, v.Source = fetched.UTC(), source
	v.Status = StatusLive
	if s.clock.Now().Sub(v.AsOf) > s.cfg.StaleAfter {
		v.Status = StatusStale
	}
	return v, nil
}

// LastClose is the close of the newest cached daily candle of sym and when the cache was last
// fetched; ok is false when nothing is cached. What the chain watcher prices BTC deposits at.
func (s *Service) LastClose(ctx context.Context, sym Symbol) (string, time.Time, bool, error) {
	var close string
	var at time.Time
	err := s.pool.QueryRow(ctx, `
		SELECT c.close::text, r.fetched_at FROM market_candles c
		JOIN market_refreshes r ON r.symbol = c.symbol AND r.interval = c.interval
		WHERE c.symbol = $1 AND c.interval = $2 AND r.fetched_at IS NOT NULL
		ORDER BY c.day DESC LIMIT 1`, string(sym), Interval1d).Scan(&close, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("marketdata: last close: %w", err)
	}
	return close, at.UTC(), true, nil
}

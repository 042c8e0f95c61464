package main

import (
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	appmarket "clearvest/app/marketdata"
	"clearvest/domain/clock"
	"clearvest/platform/config"
	"clearvest/platform/marketdata"
)

// newMarketData wires the market data cache to the configured providers. It reads the system
// clock, not the development test clock: prices are about the real world, and moving the test
// clock forward must not make them look stale or ask providers for days that have not happened.
func newMarketData(cfg config.Market, pool *pgxpool.Pool, logger *slog.Logger) (*appmarket.Service, error) {
	return appmarket.New(appmarket.Config{Refresh: cfg.Refresh}, appmarket.Deps{
		Pool: pool, Clock: clock.System(), Logger: logger,
		Providers: map[appmarket.Symbol]appmarket.Provider{
			appmarket.EURUSD:  marketdata.ReferenceRates{BaseURL: cfg.FXURL, Base: "EUR", Quote: "USD"},
			appmarket.BTCUSDT: marketdata.Klines{BaseURL: cfg.CryptoURL, Symbol: "BTCUSDT"},
		},
	})
}

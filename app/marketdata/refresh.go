package marketdata

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Run refreshes the cache now and then every Config.Refresh until ctx ends. With fetching off
// it returns at once. Failures are logged and leave the cache as it was; the next period tries
// again.
func (s *Service) Run(ctx context.Context) {
	if s.cfg.Refresh == 0 {
		s.logger.Info("market data fetching is off; the market rates page serves what is cached")
		return
	}
	t := time.NewTicker(s.cfg.Refresh)
	defer t.Stop()
	for {
		if err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn("refreshing market data", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Refresh fetches every market whose last attempt (by any process sharing the database) is at
// least half a refresh period old, and stores what it got. A market that fails keeps its cache;
// the errors of all failed markets are returned together.
func (s *Service) Refresh(ctx context.Context) error {
	var errs []error
	for _, sym := range Symbols {
		if err := s.refresh(ctx, sym); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", sym, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Service) refresh(ctx context.Context, sym Symbol) error {
	p := s.providers[sym]
	now := s.clock.Now()
	claimed, err := s.claim(ctx, sym, p.Source(), now)
	if err != nil || !claimed {
		return err
	}
	candles, err := p.Daily(ctx, s.cfg.Days, now)
	if err == nil && len(candles) == 0 {
		err = errors.New("the provider sent no candles")
	}
	if err != nil {
		if _, dbErr := s.pool.Exec(ctx, `UPDATE market_refreshes SET failed_at = $3, last_error = $4 WHERE symbol = $1 AND interval = $2`,
			string(sym), Interval1d, now, err.Error()); dbErr != nil {
			return errors.Join(err, dbErr)
		}
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for _, c := range candles {
			batch.Queue(`
				INSERT INTO market_candles (symbol, interval, day, open, high, low, close)
				VALUES ($1, $2, $3, $4, $5, $6, $7)
				ON CONFLICT (symbol, interval, day)
				DO UPDATE SET open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low, close = EXCLUDED.close`,
				string(sym), Interval1d, c.Day, c.Open, c.High, c.Low, c.Close)
		}
		batch.Queue(`UPDATE market_refreshes SET fetched_at = $3, source = $4, last_error = NULL WHERE symbol = $1 AND interval = $2`,
			string(sym), Interval1d, now, p.Source())
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return fmt.Errorf("storing candles: %w", err)
		}
		return nil
	})
}

// claim records that this process sets out to fetch sym now, unless another did within half a
// refresh period: one atomic upsert, so of several processes one wins and the rest skip, and no
// lock is held while the provider answers.
func (s *Service) claim(ctx context.Context, sym Symbol, source string, now time.Time) (bool, error) {
	gap := s.cfg.Refresh / 2
	var ok bool
	err := s.pool.QueryRow(ctx, `
		INSERT INTO market_refreshes (symbol, interval, source, claimed_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (symbol, interval) DO UPDATE SET claimed_at = EXCLUDED.claimed_at
		WHERE market_refreshes.claimed_at <= $5
		RETURNING true`, string(sym), Interval1d, source, now, now.Add(-gap)).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claiming the refresh: %w", err)
	}
	return true, nil
}

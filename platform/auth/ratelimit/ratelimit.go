// Package ratelimit counts attempts in PostgreSQL, so every serve process shares one count: a
// limit kept in memory would be multiplied by the number of processes and reset by a restart.
//
// Counters are fixed windows (one row per key and window, bumped by an atomic upsert). Fixed
// windows allow a burst of twice the limit across a boundary; for brute-force defence that is
// immaterial next to the exponential back-off, and it keeps each check a single statement.
package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
)

// gcInterval is how often a process sweeps expired rows, on the back of an ordinary hit.
const gcInterval = 5 * time.Minute

// gcBatch bounds one sweep, so no request ever pays for a large delete.
const gcBatch = 1000

// ErrLimited is matched (errors.Is) by every *LimitError.
var ErrLimited = domainerr.New(domainerr.RateLimited, "Too many attempts. Please try again later.")

// LimitError refuses an attempt over a limit. Its message is shown to the user and the API's
// error mapper sets Retry-After from RetryAfter.
type LimitError struct{ Wait time.Duration }

func (e *LimitError) Error() string {
	minutes := int((e.Wait + time.Minute - 1) / time.Minute)
	if minutes <= 1 {
		return "Too many attempts. Please try again in 1 minute."
	}
	return fmt.Sprintf("Too many attempts. Please try again in %d minutes.", minutes)
}

// Kind implements domainerr.Classified.
func (e *LimitError) Kind() domainerr.Kind { return domainerr.RateLimited }

// RetryAfter is how long until an attempt may succeed.
func (e *LimitError) RetryAfter() time.Duration { return e.Wait }

// Is makes errors.Is(err, ErrLimited) hold.
func (e *LimitError) Is(target error) bool { return target == ErrLimited }

// Limiter keeps fixed-window counters and blocks in the rate_limits table.
type Limiter struct {
	db     auth.DB
	clock  clock.Clock
	lastGC atomic.Int64 // unix nanoseconds of this process's last sweep
}

// New returns a limiter on db (the pool: counts must commit whatever the request does next).
func New(db auth.DB, c clock.Clock) *Limiter { return &Limiter{db: db, clock: c} }

// Hit counts one attempt against key and reports whether it is within limit attempts per
// window; when it is not, retryAfter is the time left in the window.
func (l *Limiter) Hit(ctx context.Context, key string, limit int, window time.Duration) (allowed bool, retryAfter time.Duration, err error) {
	n, end, err := l.hit(ctx, key, window)
	if err != nil {
		return false, 0, err
	}
	if n > limit {
		return false, end.Sub(l.clock.Now()), nil
	}
	return true, 0, nil
}

// hit bumps key's counter for the current window and returns the new count and the window's end.
func (l *Limiter) hit(ctx context.Context, key string, window time.Duration) (int, time.Time, error) {
	now := l.clock.Now()
	l.maybeSweep(ctx, now)
	start := now.Truncate(window)
	end := start.Add(window)
	var n int
	err := l.db.QueryRow(ctx, `
		INSERT INTO rate_limits (key, window_start, count, expires_at) VALUES ($1, $2, 1, $3)
		ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
		RETURNING count`, key, start, end).Scan(&n)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("ratelimit: hit: %w", err)
	}
	return n, end, nil
}

// blockWindow marks block rows apart from counters in the same table.
var blockWindow = time.Unix(0, 0).UTC()

// Block refuses key for d from now (or longer, if it is already blocked for longer).
func (l *Limiter) Block(ctx context.Context, key string, d time.Duration) error {
	_, err := l.db.Exec(ctx, `
		INSERT INTO rate_limits (key, window_start, count, expires_at) VALUES ($1, $2, 0, $3)
		ON CONFLICT (key, window_start) DO UPDATE SET expires_at = greatest(rate_limits.expires_at, excluded.expires_at)`,
		key, blockWindow, l.clock.Now().Add(d))
	if err != nil {
		return fmt.Errorf("ratelimit: block: %w", err)
	}
	return nil
}

// Blocked returns how long key remains blocked (0 when it is not).
func (l *Limiter) Blocked(ctx context.Context, key string) (time.Duration, error) {
	now := l.clock.Now()
	var until *time.Time
	err := l.db.QueryRow(ctx, `SELECT max(expires_at) FROM rate_limits WHERE key = $1 AND window_start = $2 AND expires_at > $3`,
		key, blockWindow, now).Scan(&until)
	if err != nil {
		return 0, fmt.Errorf("ratelimit: blocked: %w", err)
	}
	if until == nil {
		return 0, nil
	}
	return until.Sub(now), nil
}

// Reset forgets every counter and block of the keys.
func (l *Limiter) Reset(ctx context.Context, keys ...string) error {
	if err := auth.Exec(ctx, l.db, ForgetStatement(keys...)); err != nil {
		return fmt.Errorf("ratelimit: reset: %w", err)
	}
	return nil
}

// ForgetStatement deletes every counter and block of the keys (account closure; see
// AccountKeys).
func ForgetStatement(keys ...string) auth.Statement {
	return auth.Statement{SQL: `DELETE FROM rate_limits WHERE key = ANY($1)`, Args: []any{keys}}
}

// maybeSweep deletes expired rows at most once per gcInterval per process. Several processes
// sweeping at once is harmless; a failed sweep is retried next interval, and never fails the hit.
func (l *Limiter) maybeSweep(ctx context.Context, now time.Time) {
	last := l.lastGC.Load()
	if now.UnixNano()-last < int64(gcInterval) || !l.lastGC.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	_, _ = l.db.Exec(ctx, `DELETE FROM rate_limits WHERE ctid = ANY (ARRAY(
		SELECT ctid FROM rate_limits WHERE expires_at < $1 LIMIT $2))`, now, gcBatch)
}

package command

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/eventstore"
)

// PostgreSQL aborts one of two transactions that wait for each other (a deadlock) and, under
// serializable isolation, one whose reads another commit invalidated. Either way nothing of the
// aborted transaction is stored and running it again is the documented remedy, exactly as for a
// stream that moved under a command.
const (
	sqlstateDeadlock      = "40P01"
	sqlstateSerialization = "40001"
	// A unique violation is no reason to retry; Submit names it with the command's own error.
	sqlstateUniqueViolation = "23505"
)

// retryable reports whether err is a PostgreSQL failure that a fresh attempt can get past.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == sqlstateDeadlock || pg.Code == sqlstateSerialization)
}

// retrying runs attempt until it succeeds, fails with an error not worth retrying, or has been
// tried maxAttempts times. attempt reports a retryable failure (a conflict, a deadlock) apart
// from other errors.
func (r *Runner) retrying(ctx context.Context, what string, attempt func() (res Result, retry, err error)) (Result, error) {
	for n := 1; ; n++ {
		res, retry, err := attempt()
		if retry == nil {
			return res, err
		}
		if n >= r.maxAttempts {
			r.logger.WarnContext(ctx, "command gave up after retries", "stream", what, "attempts", n, "err", retry)
			if !errors.Is(retry, eventstore.ErrConcurrency) {
				// A transaction that keeps deadlocking is a conflict with other writers too, and
				// the client's remedy is the same: try again.
				return Result{}, fmt.Errorf("command on %s: %d attempts: %w: %w", what, n, eventstore.ErrConcurrency, retry)
			}
			return Result{}, fmt.Errorf("command on %s: %d attempts: %w", what, n, retry)
		}
		r.logger.DebugContext(ctx, "command retrying", "stream", what, "attempt", n, "err", retry)
		if err := r.wait(ctx, n); err != nil {
			return Result{}, err
		}
	}
}

// wait sleeps before retry number attempt, or returns early with ctx's error.
func (r *Runner) wait(ctx context.Context, attempt int) error {
	ceiling := r.backoffBase
	for i := 1; i < attempt && ceiling < r.backoffMax; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, r.backoffMax)
	if ceiling <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(rand.N(ceiling) + 1)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

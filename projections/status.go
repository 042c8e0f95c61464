package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Status describes how far one projection is behind the log.
type Status struct {
	Name          string
	Position      int64
	Head          int64
	LagEvents     int64 // events visible in the log but not yet applied (capped at lagCountCap)
	LagSeconds    float64
	EventsApplied int64
	UpdatedAt     time.Time
}

// lagCountCap keeps lag counting cheap when a projection is far behind.
const lagCountCap = 1_000_000

// ErrWaitTimeout is returned by WaitFor when projections did not reach the position in time.
var ErrWaitTimeout = errors.New("projections: read models did not catch up in time")

const safeHead = `(SELECT coalesce(max(position), 0) FROM events WHERE position < eventstore_visible_below())`

// Status reports every registered projection.
func (r *Runner) Status(ctx context.Context) ([]Status, error) {
	out := make([]Status, 0, len(r.projections))
	for _, p := range r.projections {
		s := Status{Name: p.Name()}
		err := r.pool.QueryRow(ctx, `
			WITH cp AS (SELECT position, events_applied, updated_at FROM projection_checkpoints WHERE name = $1),
			     head AS (SELECT `+safeHead+` AS position)
			SELECT cp.position, head.position, cp.events_applied, cp.updated_at,
			  (SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.position > cp.position AND e.position <= head.position LIMIT $2) lag),
			  coalesce(extract(epoch FROM now() - (SELECT e.recorded_at FROM events e
			      WHERE e.position > cp.position AND e.position <= head.position ORDER BY e.position LIMIT 1)), 0)
			FROM cp, head`, p.Name(), lagCountCap).Scan(&s.Position, &s.Head, &s.EventsApplied, &s.UpdatedAt, &s.LagEvents, &s.LagSeconds)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("projections: %s has no checkpoint; run clearvest migrate and start serve once", p.Name())
		}
		if err != nil {
			return nil, fmt.Errorf("projections: status of %s: %w", p.Name(), err)
		}
		out = append(out, s)
	}
	return out, nil
}

// ProjectionLag is the largest lag in events, for readiness checks.
func (r *Runner) ProjectionLag(ctx context.Context) (int64, error) {
	st, err := r.Status(ctx)
	if err != nil {
		return 0, err
	}
	var worst int64
	for _, s := range st {
		worst = max(worst, s.LagEvents)
	}
	return worst, nil
}

// WaitFor blocks until every projection has applied the event at position (read-your-writes),
// or the wait timeout passes. Checkpoints are read from the database, so it works whichever
// process runs the projections; progress in this process wakes it early.
func (r *Runner) WaitFor(ctx context.Context, position int64) error {
	if position <= 0 || len(r.projections) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.waitTimeout)
	defer cancel()
	names := r.Names()
	poll := time.NewTicker(25 * time.Millisecond) // progress made by other processes
	defer poll.Stop()
	for {
		wake := r.progress.Wait()
		var lowest int64
		if err := r.pool.QueryRow(ctx, `SELECT coalesce(min(position), 0) FROM projection_checkpoints WHERE name = ANY($1)`, names).Scan(&lowest); err != nil {
			if ctx.Err() != nil {
				return ErrWaitTimeout
			}
			return err
		}
		if lowest >= position {
			return nil
		}
		select {
		case <-ctx.Done():
			return ErrWaitTimeout
		case <-wake:
		case <-poll.C:
		}
	}
}

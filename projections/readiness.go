package projections

import (
	"context"
	"fmt"
	"time"
)

// DefaultMaxReadyLag is how old the oldest event a projection has not applied may be while the
// process still reports ready. Beyond it, queries serve visibly old data and read-your-writes
// waits time out, so a load balancer should prefer another instance.
const DefaultMaxReadyLag = 30 * time.Second

// Readiness is what a readiness probe needs to know about one projection.
type Readiness struct {
	Name       string
	Prepared   bool // the projection has a checkpoint
	State      State
	Position   int64
	Head       int64
	LagSeconds float64 // age of the oldest event visible in the log and not applied; 0 when caught up
	FailedAt   int64   // position of the failed event, while parked or retrying
	Mismatch   string  // why this process stands down; "" when it applies
}

// readinessSQL reads the checkpoints and failures, and for each projection at most one event:
// the oldest it has not applied, found through the position index. It never counts events, so
// a probe costs the same on a log of any length however far behind a projection is.
const readinessSQL = `
	SELECT n.name, c.position IS NOT NULL, coalesce(c.position, 0), coalesce(c.definition_version, 0), coalesce(c.schema_hash, ''),
	  coalesce(f.position, 0), f.position IS NOT NULL AND f.retry_requested_at IS NULL,
	  coalesce(extract(epoch FROM now() - (SELECT e.recorded_at FROM events e
	      WHERE e.position > c.position AND e.position <= $2 ORDER BY e.position LIMIT 1)), 0)::float8
	FROM unnest($1::text[]) WITH ORDINALITY AS n(name, i)
	LEFT JOIN projection_checkpoints c ON c.name = n.name
	LEFT JOIN projection_failures f ON f.name = n.name
	ORDER BY n.i`

// Readiness reports every registered projection cheaply: the log's head and one query over
// the checkpoints.
func (r *Runner) Readiness(ctx context.Context) ([]Readiness, error) {
	head, err := r.store.Head(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := r.pool.Query(ctx, readinessSQL, r.Names(), head)
	if err != nil {
		return nil, fmt.Errorf("projections: readiness: %w", err)
	}
	defer rows.Close()
	out := make([]Readiness, 0, len(r.projections))
	for rows.Next() {
		rd := Readiness{Head: head}
		var def Definition
		var parked bool
		if err := rows.Scan(&rd.Name, &rd.Prepared, &rd.Position, &def.Version, &def.SchemaHash, &rd.FailedAt, &parked, &rd.LagSeconds); err != nil {
			return nil, fmt.Errorf("projections: readiness: %w", err)
		}
		rd.Mismatch = def.mismatch(r.defs[rd.Name])
		switch {
		case !rd.Prepared:
			rd.Mismatch = ""
		case rd.Mismatch != "":
			rd.State = StateStoodDown
		case parked:
			rd.State = StateFailed
		case rd.FailedAt != 0:
			rd.State = StateRetrying
		default:
			rd.State = StateRunning
		}
		out = append(out, rd)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("projections: readiness: %w", err)
	}
	return out, nil
}

// NotReady returns why this process should not receive traffic, one sentence per projection
// that is parked at a failed event, stood down for another definition, not prepared, or more
// than the ready lag behind; none when every read model can serve. The sentences name
// projections and positions, never error texts.
func (r *Runner) NotReady(ctx context.Context) ([]string, error) {
	all, err := r.Readiness(ctx)
	if err != nil {
		return nil, err
	}
	var reasons []string
	for _, rd := range all {
		switch {
		case !rd.Prepared:
			reasons = append(reasons, fmt.Sprintf("projection %s has no checkpoint yet", rd.Name))
		case rd.State == StateFailed:
			reasons = append(reasons, fmt.Sprintf("projection %s failed at position %d and is parked", rd.Name, rd.FailedAt))
		case rd.State == StateStoodDown:
			reasons = append(reasons, fmt.Sprintf("projection %s stood down: %s", rd.Name, rd.Mismatch))
		case rd.LagSeconds > r.maxReadyLag.Seconds():
			reasons = append(reasons, fmt.Sprintf("projection %s is %.0fs behind (limit %s)", rd.Name, rd.LagSeconds, r.maxReadyLag))
		}
	}
	return reasons, nil
}

package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Status describes one projection for operators: how far it is behind the log, whether it is
// parked at a failed event, and which events were skipped.
type Status struct {
	Name          string
	State         State
	Position      int64
	Head          int64
	LagEvents     int64 // events visible in the log but not yet applied (capped at lagCountCap)
	LagSeconds    float64
	EventsApplied int64
	UpdatedAt     time.Time
	Definition    Definition // the definition that built the live read model
	Mismatch      string     // why this process stands down for it; "" when it applies
	Failure       *Failure   // the failed event, while parked or retrying
	Skips         []Skip
}

// lagCountCap keeps lag counting cheap when a projection is far behind.
const lagCountCap = 1_000_000

// lagColumns are the two lag figures of a checkpoint row c, for projections and reactors alike:
// how many events up to the head (the parameter named by head) it has yet to apply, counted up
// to the parameter named by limit, and how many seconds ago the oldest of them was recorded.
func lagColumns(head, limit string) string {
	return `(SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.position > c.position AND e.position <= ` + head + ` LIMIT ` + limit + `) lag),
	  coalesce(extract(epoch FROM now() - (SELECT e.recorded_at FROM events e
	      WHERE e.position > c.position AND e.position <= ` + head + ` ORDER BY e.position LIMIT 1)), 0)::float8`
}

// ErrWaitTimeout is returned by WaitFor when projections did not reach the position in time.
var ErrWaitTimeout = errors.New("projections: read models did not catch up in time")

// Status reports every registered projection. It counts the events each one has yet to apply,
// which costs up to lagCountCap index entries per projection: for operators and metrics, not for
// probes (see Readiness).
func (r *Runner) Status(ctx context.Context) ([]Status, error) {
	head, err := r.store.Head(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(r.projections))
	for _, p := range r.projections {
		s := Status{Name: p.Name(), Head: head, State: StateRunning}
		err := r.pool.QueryRow(ctx, `
			SELECT c.position, c.events_applied, c.updated_at, c.definition_version, c.schema_hash, `+lagColumns("$2", "$3")+`
			FROM projection_checkpoints c WHERE c.name = $1`, p.Name(), head, lagCountCap).
			Scan(&s.Position, &s.EventsApplied, &s.UpdatedAt, &s.Definition.Version, &s.Definition.SchemaHash, &s.LagEvents, &s.LagSeconds)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("projections: %s has no checkpoint; run clearvest migrate and start serve once", p.Name())
		}
		if err != nil {
			return nil, fmt.Errorf("projections: status of %s: %w", p.Name(), err)
		}
		if s.Failure, err = scanFailure(r.pool.QueryRow(ctx, `SELECT `+failureColumns+` FROM projection_failures WHERE name = $1`, p.Name())); err != nil {
			return nil, fmt.Errorf("projections: failure of %s: %w", p.Name(), err)
		}
		if s.Skips, err = skipsOf(ctx, r.pool, p.Name()); err != nil {
			return nil, fmt.Errorf("projections: skipped events of %s: %w", p.Name(), err)
		}
		s.Mismatch = s.Definition.mismatch(r.defs[p.Name()])
		s.State = stateOf(s.Mismatch, s.Failure)
		out = append(out, s)
	}
	return out, nil
}

func stateOf(mismatch string, f *Failure) State {
	switch {
	case mismatch != "":
		return StateStoodDown
	case f.Parked():
		return StateFailed
	case f != nil:
		return StateRetrying
	}
	return StateRunning
}

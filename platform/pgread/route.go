package pgread

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type choiceKey struct{}

// choice is where a request's read-model queries go.
type choice struct {
	replica *Replica
	// fellBack is called when a query of the request was served by the primary instead.
	fellBack func()
}

// WithReplica marks ctx's read-model queries for r; a nil r keeps them on the primary.
// fellBack, which may be nil, is called each time a query falls back to the primary.
func WithReplica(ctx context.Context, r *Replica, fellBack func()) context.Context {
	return context.WithValue(ctx, choiceKey{}, &choice{replica: r, fellBack: fellBack})
}

// On returns what a read-model query of ctx should read through: the replica WithReplica
// chose, else primary itself. Only read paths call it, with the primary they would otherwise
// read, so that without a choice (commands, background work, no replicas configured) nothing
// changes.
func On(ctx context.Context, primary Querier) Querier {
	c, ok := ctx.Value(choiceKey{}).(*choice)
	if !ok || c.replica == nil {
		return primary
	}
	return &replicaQuerier{c: c, primary: primary}
}

// replicaQuerier reads the chosen replica, and the primary once when the replica cannot run a
// query for want of a connection.
type replicaQuerier struct {
	c       *choice
	primary Querier
}

// fallBack reports whether a failed replica query should run on the primary, and if so
// accounts for it.
func (q *replicaQuerier) fallBack(ctx context.Context, err error) bool {
	if ctx.Err() != nil || !connectionError(err) {
		return false
	}
	r := q.c.replica
	// A recovery conflict cancels one query; the standby itself is fine.
	if !isRecoveryConflict(err) {
		r.markDown(err)
	}
	if r.set.fallbacks != nil {
		r.set.fallbacks.WithLabelValues(r.name).Inc()
	}
	if q.c.fellBack != nil {
		q.c.fellBack()
	}
	return true
}

// Query reads the replica's whole answer before handing over a row, so that a standby failing
// at any point of it, before its first row or after its tenth, costs the caller nothing but a
// second run of the query on the primary.
func (q *replicaQuerier) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := q.c.replica.pool.Query(ctx, sql, args...)
	if err == nil {
		var a *answer
		if a, err = readAnswer(rows); err == nil {
			return a, nil
		}
	}
	if q.fallBack(ctx, err) {
		return q.primary.Query(ctx, sql, args...)
	}
	return nil, err
}

func (q *replicaQuerier) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return &row{q: q, ctx: ctx, sql: sql, args: args}
}

// row runs its query when scanned, which is when pgx reports a QueryRow's errors.
type row struct {
	q    *replicaQuerier
	ctx  context.Context
	sql  string
	args []any
}

func (r *row) Scan(dest ...any) error {
	rows, err := r.q.Query(r.ctx, r.sql, r.args...)
	if err != nil {
		return err
	}
	_, err = pgx.CollectOneRow(rows, func(row pgx.CollectableRow) (struct{}, error) { return struct{}{}, row.Scan(dest...) })
	return err
}

func isRecoveryConflict(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40001"
}

// maxReplicaWait bounds how long a positioned read waits for a replica to replay what the
// primary already has. A standby in rotation replays within milliseconds; one that needs longer
// is having a bad moment, and the primary, which has the write now, answers at once: a user
// who just acted never waits seconds for a page only because a replica lags.
const maxReplicaWait = 250 * time.Millisecond

// Route chooses where a safe request's read-model queries go (middleware.ReadRouter): with
// position 0 a replica in rotation; with a position above 0 one that has replayed it within
// maxWait (and within maxReplicaWait and the maximum lag), else the primary; with a negative
// position the primary.
func (s *Set) Route(ctx context.Context, position int64, maxWait time.Duration, fellBack func()) (context.Context, bool) {
	var r *Replica
	if position >= 0 {
		r = s.Pick()
	}
	if r != nil && position > 0 {
		target := position
		if s.target != nil {
			target = s.target(position)
		}
		wctx, cancel := context.WithTimeout(ctx, min(maxWait, s.maxLag, maxReplicaWait))
		err := s.WaitFor(wctx, r, target)
		cancel()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, ErrNotApplied) {
				s.log.Debug("read replica: reading its checkpoints failed; the primary serves", "replica", r.name, "err", err)
			}
			r = nil
		}
	}
	return WithReplica(ctx, r, fellBack), r != nil
}

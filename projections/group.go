package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
	"clearvest/platform/pgavail"
)

// live is what Run keeps about one projection between its batches.
type live struct {
	p     Projection
	state State
	size  int
	// alone: the projection steps in a transaction of its own (step) rather than in the
	// window's shared one, because it is not running (parked, retrying, stood down) or its last
	// batch failed.
	alone   bool
	delay   time.Duration // the wait after its next transient failure
	retryAt time.Time     // when alone after a failure: not before then
}

// groupFailure is an error of the window's shared transaction that one projection's Apply
// caused; the others' work is redone without it.
type groupFailure struct {
	l   *live
	err error
}

func (e *groupFailure) Error() string { return e.err.Error() }
func (e *groupFailure) Unwrap() error { return e.err }

// stepGroup applies the next batch of every projection of group in one transaction: one
// try-lock statement and one checkpoint read for all of them, one read of the log (feed), each
// projection's Apply, and one checkpoint update for all. Per projection that saves a
// transaction of its own, four round trips and a commit each window, which under load was most
// of the projection runner's cost (docs/benchmarks.md, "Money commands over HTTP").
//
// The shared transaction has no savepoints: when a projection's Apply fails, stepGroup returns a
// *groupFailure naming it and commits nothing, and Run redoes the others without it while it
// steps alone, where a refused batch is applied in halves and parks that projection only.
// Projections whose checkpoint shows a failure, a retry or another definition are left out
// (returned in alone) for the same reason.
func (r *Runner) stepGroup(ctx context.Context, group []*live, since time.Time) (res []stepResult, alone []*live, err error) {
	names := make([]string, len(group))
	for i, l := range group {
		names[i] = l.p.Name()
	}
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		// One decode of each event for every projection of the window (Decode).
		ctx := withDecodeCache(ctx)
		res, alone = make([]stepResult, len(group)), nil
		locked, cps, err := lockAndReadCheckpoints(ctx, tx, names)
		if err != nil {
			return err
		}
		// Every read of the log comes before any Apply, which leaves search_path pointing at
		// its projection's schema.
		batches := make([][]eventstore.Envelope, len(group))
		for i, l := range group {
			name := names[i]
			res[i].state = StateRunning
			if !locked[name] {
				res[i].busy = true
				continue
			}
			cp, ok := cps[name]
			if !ok {
				return fmt.Errorf("projections: checkpoint of %s: %w", name, pgx.ErrNoRows)
			}
			if cp.failure != nil || cp.def.mismatch(r.defs[name]) != "" {
				alone = append(alone, l)
				continue
			}
			if batches[i], err = r.feed.read(ctx, tx, since, cp.position, l.size); err != nil {
				return err
			}
		}
		var moved checkpointMoves
		reset := false
		for i, l := range group {
			events := batches[i]
			if len(events) == 0 {
				continue
			}
			name := names[i]
			todo := withoutPositions(events, cps[name].skips)
			if len(todo) > 0 {
				stx := &schemaTx{Tx: tx, schema: SchemaName(name)}
				err := callApply(ctx, stx, l.p, todo)
				reset = reset || stx.used
				if err != nil {
					return &groupFailure{l: l, err: batchError(l.p, todo, err)}
				}
			}
			if r.afterApply != nil {
				r.afterApply(name, todo)
			}
			last := events[len(events)-1]
			moved.add(name, last.Position, len(todo), last.RecordedAt)
			res[i].passed, res[i].applied = len(events), len(todo)
		}
		return moved.save(ctx, tx, reset)
	})
	if err != nil {
		return nil, nil, err
	}
	return res, alone, nil
}

// lockAndReadCheckpoints takes the advisory locks of the named projections that no other
// transaction holds, for the rest of tx, and reads their checkpoints, in one round trip. The
// checkpoints are read by a later statement than the locks, so its snapshot sees what the
// locks' last holders committed; those of projections it did not lock are not to be used.
func lockAndReadCheckpoints(ctx context.Context, tx pgx.Tx, names []string) (map[string]bool, map[string]checkpointRow, error) {
	locked := make(map[string]bool, len(names))
	cps := make(map[string]checkpointRow, len(names))
	b := &pgx.Batch{}
	b.Queue(`SELECT n, pg_try_advisory_xact_lock($1, hashtext(n)) FROM unnest($2::text[]) AS n`, lockNamespace, names)
	b.Queue(`
		SELECT c.name, c.position, c.definition_version, c.schema_hash, f.position, f.attempts, f.retry_requested_at,
		  ARRAY(SELECT s.position FROM projection_skips s WHERE s.name = c.name AND s.position > c.position ORDER BY s.position)
		FROM projection_checkpoints c LEFT JOIN projection_failures f ON f.name = c.name
		WHERE c.name = ANY($1)`, names)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("projections: locks: %w", err)
	}
	var n string
	var ok bool
	if _, err := pgx.ForEachRow(rows, []any{&n, &ok}, func() error {
		locked[n] = ok
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("projections: locks: %w", err)
	}
	if rows, err = br.Query(); err != nil {
		return nil, nil, fmt.Errorf("projections: checkpoints: %w", err)
	}
	var name string
	var cp checkpointRow
	var failedAt *int64
	var attempts *int
	var retryAt *time.Time
	if _, err := pgx.ForEachRow(rows, []any{&name, &cp.position, &cp.def.Version, &cp.def.SchemaHash, &failedAt, &attempts, &retryAt, &cp.skips}, func() error {
		row := cp
		if failedAt != nil {
			row.failure = &Failure{Position: *failedAt, Attempts: *attempts, RetryRequestedAt: retryAt}
		}
		cps[name] = row
		cp = checkpointRow{}
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("projections: checkpoints: %w", err)
	}
	return locked, cps, br.Close()
}

// checkpointMoves collects the checkpoints a shared transaction moves, for one UPDATE.
type checkpointMoves struct {
	names     []string
	positions []int64
	applied   []int64
	lastAt    []time.Time
}

func (m *checkpointMoves) add(name string, position int64, applied int, lastAt time.Time) {
	m.names = append(m.names, name)
	m.positions = append(m.positions, position)
	m.applied = append(m.applied, int64(applied))
	m.lastAt = append(m.lastAt, lastAt)
}

// save moves the checkpoints, after setting search_path back when reset (some Apply set it),
// in one round trip.
func (m *checkpointMoves) save(ctx context.Context, tx pgx.Tx, reset bool) error {
	b := &pgx.Batch{}
	if reset {
		b.Queue(`SELECT set_config('search_path', 'public', true)`)
	}
	if len(m.names) > 0 {
		b.Queue(`UPDATE projection_checkpoints c
			SET position = m.position, events_applied = c.events_applied + m.applied, last_event_at = m.last_at, updated_at = now()
			FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::timestamptz[]) AS m(name, position, applied, last_at)
			WHERE c.name = m.name`, m.names, m.positions, m.applied, m.lastAt)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("projections: save checkpoints: %w", err)
	}
	return nil
}

// round runs one round of Run: the batches of every running projection in one transaction
// (stepGroup), then those that step alone, each in its own. It returns how many events the
// round passed, whether some projection filled its batch (it is behind: go again at once), and
// the earliest time a projection waiting after a failure may step again (zero: none waits).
func (r *Runner) round(ctx context.Context, ls []*live, since time.Time) (passed int, behind bool, retryAt time.Time) {
	var group []*live
	for _, l := range ls {
		if !l.alone && l.state == StateRunning {
			group = append(group, l)
		}
	}
	for len(group) > 0 {
		res, alone, err := r.stepGroup(ctx, group, since)
		if err == nil {
			for i, l := range group {
				if res[i].passed > 0 {
					r.metrics.applied.WithLabelValues(l.p.Name()).Add(float64(res[i].applied))
				}
				passed += res[i].passed
				behind = r.settleBatch(l, res[i]) || behind
			}
			if passed > 0 {
				r.progress.Notify()
			}
			for _, l := range alone {
				l.alone = true
			}
			break
		}
		if ctx.Err() != nil {
			return passed, false, time.Time{}
		}
		var gf *groupFailure
		if !errors.As(err, &gf) {
			// Not one projection's doing (the connection, the log read): each steps alone,
			// with the usual backoff if the cause persists.
			r.logger.Warn("projections: the window's shared batch failed; each projection steps alone", "err", err)
			for _, l := range group {
				l.alone = true
			}
			break
		}
		gf.l.alone = true
		if transient(gf.err) {
			r.failed(gf.l, gf.err)
		}
		group = without(group, gf.l)
	}
	now := time.Now()
	for _, l := range ls {
		if !l.alone && l.state == StateRunning {
			continue
		}
		if now.Before(l.retryAt) {
			if retryAt.IsZero() || l.retryAt.Before(retryAt) {
				retryAt = l.retryAt
			}
			continue
		}
		res, err := r.step(ctx, l.p, l.size, false, since)
		if err != nil {
			if ctx.Err() != nil {
				return passed, false, time.Time{}
			}
			r.failed(l, err)
			if retryAt.IsZero() || l.retryAt.Before(retryAt) {
				retryAt = l.retryAt
			}
			continue
		}
		passed += res.passed
		behind = r.settleBatch(l, res) || behind
		if !res.busy && res.state == StateRunning {
			l.alone = false
		}
	}
	return passed, behind, retryAt
}

// settleBatch records a successful batch of l and reports whether it filled the batch.
func (r *Runner) settleBatch(l *live, res stepResult) bool {
	l.delay, l.retryAt = r.retryDelay, time.Time{}
	if !res.busy {
		r.logTransition(l.p.Name(), l.state, res)
		l.state = res.state
	}
	if res.passed == l.size {
		// Far behind: bigger batches amortise the per-transaction cost. Once caught up,
		// small batches keep each transaction (and read-your-writes waits) short.
		l.size = r.batchSize * catchUpBatchFactor
		return true
	}
	l.size = r.batchSize
	return false
}

// failed records a failed batch of l: it steps alone, after a backoff that doubles with each
// failure in a row.
//
// While the database is unreachable every projection fails every retry; that is logged once
// per projection, as a warning, when it starts (the first failure in a row), and the retries
// at debug level, so an outage does not bury the log in errors about the same cause.
func (r *Runner) failed(l *live, err error) {
	switch {
	case !pgavail.Unreachable(err):
		r.logger.Error("projection batch failed; retrying", "projection", l.p.Name(), "err", err, "backoff", l.delay)
	case l.delay == r.retryDelay:
		r.logger.Warn("projection paused: the database is unreachable; retrying with backoff", "projection", l.p.Name(), "err", err)
	default:
		r.logger.Debug("projection batch failed; the database is still unreachable", "projection", l.p.Name(), "err", err, "backoff", l.delay)
	}
	r.metrics.failures.WithLabelValues(l.p.Name()).Inc()
	l.alone, l.retryAt = true, time.Now().Add(l.delay)
	l.delay = min(l.delay*2, maxRetryDelay)
}

func without(ls []*live, l *live) []*live {
	out := make([]*live, 0, len(ls))
	for _, x := range ls {
		if x != l {
			out = append(out, x)
		}
	}
	return out
}

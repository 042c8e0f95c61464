package projections

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// rebuildBatch, the default of WithRebuildBatchSize, is larger than the live batch: a rebuild
// is a bulk job with no one waiting on it, and a projection that upserts one row per stream
// rewrites each row once per batch, so fewer, larger batches write far less. Two batches are
// held in memory at a time (see the bulk phase).
const rebuildBatch = 20_000

// defaultBulkLimit is WithBulkLimit's default.
const defaultBulkLimit = 2_000_000

// bulkFits reports whether the log is short enough for a bulk rebuild (WithBulkLimit). The
// streams table holds every stream's version, so their sum is the number of events.
func (r *Runner) bulkFits(ctx context.Context) (bool, error) {
	if r.bulkLimit <= 0 {
		return false, nil
	}
	var events int64
	if err := r.pool.QueryRow(ctx, `SELECT coalesce(sum(version), 0) FROM streams`).Scan(&events); err != nil {
		return false, fmt.Errorf("projections: counting the log's events: %w", err)
	}
	return events <= r.bulkLimit, nil
}

// RebuildResult reports one rebuild.
type RebuildResult struct {
	Name     string
	Events   int64
	Position int64
	Duration time.Duration
}

// EventsPerSecond is the rebuild's throughput.
func (r RebuildResult) EventsPerSecond() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Events) / r.Duration.Seconds()
}

// ErrRebuildRunning is returned by Rebuild when another rebuild of the projection is running.
var ErrRebuildRunning = domainerr.New(domainerr.Conflict, "a rebuild of this projection is already running")

// Rebuild builds the projection from position 0 into a fresh schema while the live read model
// keeps serving, then takes the projection's lock (pausing the live runner in every process),
// applies the last few events, and swaps the new schema in. Readers see the old or the new read
// model, never a half-built one. Skipped events are passed as the live runner passes them. An
// event Apply refuses stops the rebuild with an *EventError and leaves the live read model as it
// was; so does a database holding a newer definition than this process's.
func (r *Runner) Rebuild(ctx context.Context, name string) (RebuildResult, error) {
	p, err := r.lookup(name)
	if err != nil {
		return RebuildResult{}, err
	}
	return r.rebuild(ctx, p, false)
}

// rebuild is Rebuild; atStart is Prepare's: it waits for a rebuild another process runs, and
// then rebuilds only if the read model still needs it.
func (r *Runner) rebuild(ctx context.Context, p Projection, atStart bool) (RebuildResult, error) {
	name, mine := p.Name(), r.defs[p.Name()]
	start := time.Now()
	res := RebuildResult{Name: name}

	// Only one rebuild of a projection at a time: both would write the same build schema.
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Release()
	if err := r.rebuildLock(ctx, conn, name, atStart); err != nil {
		return res, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext($2))`, lockNamespace+1, name) //nolint:errcheck

	stored, found, err := storedDefinition(ctx, conn, name)
	if err != nil {
		return res, err
	}
	if found && stored.Version > mine.Version {
		if atStart {
			r.logger.Warn("projection stood down: its read model was built by a newer definition", "projection", name, "reason", stored.mismatch(mine))
			return res, nil
		}
		return res, fmt.Errorf("%w: refusing to rebuild %s: %s", ErrStoodDown, name, stored.mismatch(mine))
	}
	if atStart && found && stored == mine {
		r.logger.Info("projection rebuilt by another process meanwhile", "projection", name)
		return res, nil
	}
	skipped, err := skippedPositions(ctx, conn, name)
	if err != nil {
		return res, err
	}

	build := rebuildSchemaName(name)
	// A bulk projection's rows are folded in memory up to the swap phase, which goes on with Apply.
	var builder Builder
	var deferred []deferredIndex
	if bp, ok := p.(Bulk); ok {
		fits, err := r.bulkFits(ctx)
		if err != nil {
			return res, err
		}
		if fits {
			builder = bp.Builder()
		} else {
			r.logger.InfoContext(ctx, "projections: the log is too long to rebuild in memory; rebuilding batch by batch",
				"projection", name, "limit", r.bulkLimit)
		}
	}
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if err := createSchema(ctx, tx, p, build); err != nil {
			return err
		}
		if builder != nil {
			deferred, err = dropIndexes(ctx, tx, build)
		}
		return err
	})
	if err != nil {
		return res, err
	}
	var lastAt *time.Time
	// apply applies one batch to the build schema; careful applies it in halves so that an event
	// refused on its own is found and returned. folding folds it into the builder instead.
	apply := func(tx pgx.Tx, events []eventstore.Envelope, careful, folding bool) error {
		folded := ctx               // a builder sees each event once: no cache to fill
		ctx := withDecodeCache(ctx) // the halves of a refused batch decode its events once
		todo := withoutPositions(events, skipped)
		if len(todo) > 0 {
			if folding {
				for _, env := range todo {
					if err := addEvent(folded, p, builder, env); err != nil {
						return err
					}
				}
				if err := writeBuilt(ctx, tx, p, builder, build, false); err != nil {
					return err
				}
			} else if careful {
				_, failed, err := applyInHalves(ctx, tx, p, build, todo)
				if failed != nil {
					return failed
				}
				if err != nil {
					return err
				}
			} else if err := applyBatch(ctx, tx, p, build, todo); err != nil {
				if ctx.Err() != nil || transient(err) || tx.Conn().IsClosed() {
					return batchError(p, todo, err)
				}
				return &refusedBatch{batchError(p, todo, err)}
			}
		}
		last := events[len(events)-1]
		res.Position, res.Events = last.Position, res.Events+int64(len(todo))
		at := last.RecordedAt
		lastAt = &at
		return nil
	}

	// Bulk phase: no lock, the live runner goes on. Where the next batch starts is known as soon
	// as this one is read, so it is read on another connection while this one is applied:
	// reading and writing then use both the client's and the server's CPU at once.
	type batch struct {
		events []eventstore.Envelope
		err    error
	}
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	next := make(chan batch, 1)
	readAfter := func(position int64) {
		go func() {
			events, err := postgres.ReadAll(readCtx, r.pool, position, r.rebuildBatch)
			next <- batch{events, err}
		}()
	}
	readAfter(0)
	for {
		b := <-next
		if b.err != nil {
			return res, b.err
		}
		if len(b.events) == 0 {
			break
		}
		more := len(b.events) == r.rebuildBatch
		if more {
			readAfter(b.events[len(b.events)-1].Position)
		}
		err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error { return apply(tx, b.events, false, builder != nil) })
		if refused := (*refusedBatch)(nil); errors.As(err, &refused) {
			err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error { return apply(tx, b.events, true, false) })
		}
		if err != nil {
			return res, err
		}
		if !more {
			break
		}
	}
	if builder != nil {
		err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
			if err := writeBuilt(ctx, tx, p, builder, build, true); err != nil {
				return err
			}
			return createIndexes(ctx, tx, deferred)
		})
		if err != nil {
			return res, err
		}
	}

	if err := analyzeSchema(ctx, conn, build); err != nil {
		return res, err
	}

	// Swap phase: under the projection lock, finish the tail and swap atomically.
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if err := lock(ctx, tx, name); err != nil {
			return err
		}
		// Under the lock nothing else can change the definition or the skips.
		if stored, found, err := storedDefinition(ctx, tx, name); err != nil {
			return err
		} else if found && stored.Version > mine.Version {
			return fmt.Errorf("%w: refusing to swap in %s: %s", ErrStoodDown, name, stored.mismatch(mine))
		}
		now, err := skippedPositions(ctx, tx, name)
		if err != nil {
			return err
		}
		if !slices.Equal(now, skipped) {
			return fmt.Errorf("projections: events of %s were skipped during its rebuild; run the rebuild again", name)
		}
		for {
			events, err := postgres.ReadAll(ctx, tx, res.Position, r.rebuildBatch)
			if err != nil {
				return err
			}
			if len(events) == 0 {
				break
			}
			if err := apply(tx, events, true, false); err != nil {
				return err
			}
		}
		live := pgx.Identifier{SchemaName(name)}.Sanitize()
		if _, err := tx.Exec(ctx, `DROP SCHEMA IF EXISTS `+live+` CASCADE`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `ALTER SCHEMA `+pgx.Identifier{build}.Sanitize()+` RENAME TO `+live); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name, position, schema_hash, definition_version, events_applied, last_event_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, now())
			ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, schema_hash = EXCLUDED.schema_hash,
			  definition_version = EXCLUDED.definition_version, events_applied = EXCLUDED.events_applied,
			  last_event_at = EXCLUDED.last_event_at, updated_at = now()`,
			name, res.Position, mine.SchemaHash, mine.Version, res.Events, lastAt); err != nil {
			return err
		}
		// The new read model has passed every event up to the head, a parked one included.
		_, err = tx.Exec(ctx, `DELETE FROM projection_failures WHERE name = $1`, name)
		return err
	})
	if err != nil {
		if failed := (*EventError)(nil); errors.As(err, &failed) {
			return res, err
		}
		return res, fmt.Errorf("projections: swap in rebuilt %s: %w", name, err)
	}
	res.Duration = time.Since(start)
	r.progress.Notify()
	r.changed.Notify()
	r.logger.Info("projection rebuilt", "projection", name, "events", res.Events, "duration", res.Duration, "events_per_second", int(res.EventsPerSecond()))
	return res, nil
}

// rebuildLock takes the session lock that allows one rebuild of a projection at a time on conn.
// When another process holds it, wait says whether to wait for it (bounded by WithRebuildWait
// and ctx) rather than fail with ErrRebuildRunning.
func (r *Runner) rebuildLock(ctx context.Context, conn *pgxpool.Conn, name string, wait bool) error {
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, lockNamespace+1, name).Scan(&got); err != nil {
		return err
	}
	switch {
	case got:
		return nil
	case !wait:
		return ErrRebuildRunning.WithMessage(fmt.Sprintf("a rebuild of %s is already running", name))
	}
	r.logger.Info("waiting for the rebuild of this projection that another process is running", "projection", name, "limit", r.rebuildWait)
	waitCtx, cancel := context.WithTimeout(ctx, r.rebuildWait)
	defer cancel()
	if _, err := conn.Exec(waitCtx, `SELECT pg_advisory_lock($1, hashtext($2))`, lockNamespace+1, name); err != nil {
		// The lock may have been granted as the wait was cancelled; a closed connection cannot
		// keep it, and the pool discards it.
		_ = conn.Conn().Close(context.WithoutCancel(ctx))
		if ctx.Err() == nil && waitCtx.Err() != nil {
			return fmt.Errorf("projections: waited %s for another process's rebuild of %s: %w", r.rebuildWait, name, ErrRebuildRunning)
		}
		return fmt.Errorf("projections: waiting for another process's rebuild of %s: %w", name, err)
	}
	r.logger.Info("the other rebuild finished", "projection", name)
	return nil
}

// skippedPositions lists the positions of a projection's skipped events, ascending.
func skippedPositions(ctx context.Context, q rowQuerier, name string) ([]int64, error) {
	var out []int64
	err := q.QueryRow(ctx, `SELECT ARRAY(SELECT position FROM projection_skips WHERE name = $1 ORDER BY position)`, name).Scan(&out)
	if err != nil {
		return nil, fmt.Errorf("projections: skipped events of %s: %w", name, err)
	}
	return out, nil
}

// analyzeSchema gathers the planner's statistics of every table of a rebuilt read model before
// it goes live. Tables filled in bulk have none until autovacuum analyzes them, and a server may
// run without autovacuum or reach them late: meanwhile PostgreSQL plans blind. On a log of a
// million events the dashboard's pending-deposit query combined a partial index holding 218,000
// dead entries with the primary key, 146 ms a request instead of 0.2 ms, until the table was
// analyzed (docs/benchmarks.md, "Cost as history grows"). The statistics belong to the tables,
// so they survive the rename into the live schema.
func analyzeSchema(ctx context.Context, conn *pgxpool.Conn, schema string) error {
	rows, err := conn.Query(ctx, `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, schema)
	if err != nil {
		return fmt.Errorf("projections: tables of %s: %w", schema, err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("projections: tables of %s: %w", schema, err)
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, `ANALYZE `+t); err != nil {
			return fmt.Errorf("projections: analyze %s: %w", t, err)
		}
	}
	return nil
}

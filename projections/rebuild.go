package projections

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// rebuildBatch is larger than the live batch: a rebuild is a bulk job with no one waiting on it,
// and a projection that upserts one row per stream rewrites each row once per batch, so fewer,
// larger batches write far less. Two batches are held in memory at a time (see the bulk phase).
const rebuildBatch = 20_000

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

// Rebuild builds the projection from position 0 into a fresh schema while the live read model
// keeps serving, then takes the projection's lock (pausing the live runner in every process),
// applies the last few events, and swaps the new schema in. Readers see the old or the new read
// model, never a half-built one.
func (r *Runner) Rebuild(ctx context.Context, name string) (RebuildResult, error) {
	p, ok := r.byName[name]
	if !ok {
		return RebuildResult{}, fmt.Errorf("projections: unknown projection %q (known: %v)", name, r.Names())
	}
	start := time.Now()
	res := RebuildResult{Name: name}

	// Only one rebuild of a projection at a time: both would write the same build schema.
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Release()
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, lockNamespace+1, name).Scan(&got); err != nil {
		return res, err
	}
	if !got {
		return res, fmt.Errorf("projections: a rebuild of %s is already running", name)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext($2))`, lockNamespace+1, name) //nolint:errcheck

	build := rebuildSchemaName(name)
	if err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error { return createSchema(ctx, tx, p, build) }); err != nil {
		return res, err
	}
	var lastAt *time.Time
	apply := func(tx pgx.Tx, events []eventstore.Envelope) error {
		if err := applyBatch(ctx, tx, p, build, events); err != nil {
			return err
		}
		last := events[len(events)-1]
		res.Position, res.Events = last.Position, res.Events+int64(len(events))
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
			events, err := postgres.ReadAll(readCtx, r.pool, position, rebuildBatch)
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
		more := len(b.events) == rebuildBatch
		if more {
			readAfter(b.events[len(b.events)-1].Position)
		}
		if err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error { return apply(tx, b.events) }); err != nil {
			return res, err
		}
		if !more {
			break
		}
	}

	// Swap phase: under the projection lock, finish the tail and swap atomically.
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if err := lock(ctx, tx, name); err != nil {
			return err
		}
		for {
			events, err := postgres.ReadAll(ctx, tx, res.Position, rebuildBatch)
			if err != nil {
				return err
			}
			if len(events) == 0 {
				break
			}
			if err := apply(tx, events); err != nil {
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
		_, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name, position, schema_hash, events_applied, last_event_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, now())
			ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, schema_hash = EXCLUDED.schema_hash,
			  events_applied = EXCLUDED.events_applied, last_event_at = EXCLUDED.last_event_at, updated_at = now()`,
			name, res.Position, schemaHash(p), res.Events, lastAt)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("projections: swap in rebuilt %s: %w", name, err)
	}
	res.Duration = time.Since(start)
	r.progress.Notify()
	r.logger.Info("projection rebuilt", "projection", name, "events", res.Events, "duration", res.Duration, "events_per_second", int(res.EventsPerSecond()))
	return res, nil
}

package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// lockNamespace is the first key of the per-projection advisory locks.
const lockNamespace = 0x43565052 // "CVPR"

// Runner keeps every registered projection up to date.
type Runner struct {
	pool        *pgxpool.Pool
	appended    *postgres.Signal // new events may be readable
	progress    *postgres.Signal // some checkpoint moved (in this process)
	projections []Projection
	byName      map[string]Projection
	logger      *slog.Logger
	batchSize   int
	idlePoll    time.Duration
	waitTimeout time.Duration
	waitPoll    time.Duration
	waits       waits
	metrics     *metrics

	// afterApply lets tests act between a batch's writes and its commit.
	afterApply func(name string, events []eventstore.Envelope)
}

// Option configures a Runner.
type Option func(*Runner)

// WithBatchSize sets how many events one transaction applies (default 1000).
func WithBatchSize(n int) Option { return func(r *Runner) { r.batchSize = n } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(r *Runner) { r.logger = l } }

// WithMetrics registers the runner's Prometheus collectors.
func WithMetrics(reg prometheus.Registerer) Option {
	return func(r *Runner) { r.metrics = newMetrics(reg) }
}

// WithWaitTimeout bounds how long WaitFor waits (default 3s).
func WithWaitTimeout(d time.Duration) Option { return func(r *Runner) { r.waitTimeout = d } }

// WithIdlePoll sets how often an idle runner looks again when no signal arrives (default 1s).
// It covers locks released by other processes and events held back by the xmin horizon.
func WithIdlePoll(d time.Duration) Option { return func(r *Runner) { r.idlePoll = d } }

// NewRunner returns a runner for the given projections on the store's database.
func NewRunner(pool *pgxpool.Pool, store *postgres.Store, projections []Projection, opts ...Option) (*Runner, error) {
	r := &Runner{
		pool: pool, appended: store.Signal(), progress: postgres.NewSignal(),
		byName: map[string]Projection{}, logger: slog.Default(),
		batchSize: 1000, idlePoll: time.Second, waitTimeout: 3 * time.Second, waitPoll: defaultWaitPoll,
	}
	for _, o := range opts {
		o(r)
	}
	if r.metrics == nil {
		r.metrics = newMetrics(nil)
	}
	for _, p := range projections {
		if err := checkName(p); err != nil {
			return nil, err
		}
		if _, dup := r.byName[p.Name()]; dup {
			return nil, fmt.Errorf("projections: %q registered twice", p.Name())
		}
		r.byName[p.Name()] = p
		r.projections = append(r.projections, p)
	}
	return r, nil
}

// Names lists the registered projections in registration order.
func (r *Runner) Names() []string {
	out := make([]string, len(r.projections))
	for i, p := range r.projections {
		out[i] = p.Name()
	}
	return out
}

// Prepare makes sure every projection has a live schema and a checkpoint. A projection whose
// schema changed since its read model was built is rebuilt, so code and tables never disagree.
func (r *Runner) Prepare(ctx context.Context) error {
	for _, p := range r.projections {
		var stored string
		err := r.pool.QueryRow(ctx, `SELECT schema_hash FROM projection_checkpoints WHERE name = $1`, p.Name()).Scan(&stored)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if err := r.createLive(ctx, p); err != nil {
				return err
			}
		case err != nil:
			return fmt.Errorf("projections: checkpoint of %s: %w", p.Name(), err)
		case stored != schemaHash(p):
			r.logger.Info("projection schema changed; rebuilding", "projection", p.Name())
			if _, err := r.Rebuild(ctx, p.Name()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *Runner) createLive(ctx context.Context, p Projection) error {
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if err := lock(ctx, tx, p.Name()); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM projection_checkpoints WHERE name = $1)`, p.Name()).Scan(&exists); err != nil || exists {
			return err // another process created it meanwhile
		}
		if err := createSchema(ctx, tx, p, SchemaName(p.Name())); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name, schema_hash) VALUES ($1, $2)`, p.Name(), schemaHash(p))
		return err
	})
}

func createSchema(ctx context.Context, tx pgx.Tx, p Projection, schema string) error {
	ident := pgx.Identifier{schema}.Sanitize()
	if _, err := tx.Exec(ctx, `DROP SCHEMA IF EXISTS `+ident+` CASCADE; CREATE SCHEMA `+ident); err != nil {
		return fmt.Errorf("projections: schema %s: %w", schema, err)
	}
	if err := useSchema(ctx, tx, schema); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, p.Schema()); err != nil {
		return fmt.Errorf("projections: create tables of %s: %w", p.Name(), err)
	}
	return nil
}

func useSchema(ctx context.Context, tx pgx.Tx, schema string) error {
	_, err := tx.Exec(ctx, `SELECT set_config('search_path', $1, true)`, pgx.Identifier{schema}.Sanitize()+", public")
	return err
}

// lock takes the projection's advisory lock for the rest of tx, waiting for it.
func lock(ctx context.Context, tx pgx.Tx, name string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockNamespace, name)
	return err
}

// tryLock takes the projection's advisory lock for the rest of tx, or reports that another
// transaction (another process's runner, or a rebuild's swap) holds it.
func tryLock(ctx context.Context, tx pgx.Tx, name string) (bool, error) {
	var ok bool
	err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, hashtext($2))`, lockNamespace, name).Scan(&ok)
	return ok, err
}

// Run keeps every projection up to date until ctx is done.
func (r *Runner) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, p := range r.projections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.runOne(ctx, p)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

func (r *Runner) runOne(ctx context.Context, p Projection) {
	backoff := 100 * time.Millisecond
	idle := time.NewTimer(r.idlePoll)
	defer idle.Stop()
	size := r.batchSize
	for ctx.Err() == nil {
		wake := r.appended.Wait()
		n, err := r.step(ctx, p.Name(), size)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.logger.Error("projection batch failed; retrying", "projection", p.Name(), "err", err, "backoff", backoff)
			r.metrics.failures.WithLabelValues(p.Name()).Inc()
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 10*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		if n == size {
			// Far behind: bigger batches amortise the per-transaction cost. Once caught up,
			// small batches keep each transaction (and read-your-writes waits) short.
			size = r.batchSize * catchUpBatchFactor
			continue
		}
		size = r.batchSize
		idle.Reset(r.idlePoll)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-idle.C:
		}
	}
}

// Step applies at most one batch to one projection and returns how many events it applied
// (0 when caught up, or when another process holds the projection).
func (r *Runner) Step(ctx context.Context, name string) (int, error) {
	return r.step(ctx, name, r.batchSize)
}

// catchUpBatchFactor multiplies the batch size while a projection is behind.
const catchUpBatchFactor = 5

func (r *Runner) step(ctx context.Context, name string, size int) (int, error) {
	p, ok := r.byName[name]
	if !ok {
		return 0, fmt.Errorf("projections: unknown projection %q", name)
	}
	var applied int
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if ok, err := tryLock(ctx, tx, name); err != nil || !ok {
			return err
		}
		var from int64
		if err := tx.QueryRow(ctx, `SELECT position FROM projection_checkpoints WHERE name = $1`, name).Scan(&from); err != nil {
			return fmt.Errorf("projections: checkpoint of %s: %w", name, err)
		}
		events, err := postgres.ReadAll(ctx, tx, from, size)
		if err != nil || len(events) == 0 {
			return err
		}
		if err := applyBatch(ctx, tx, p, SchemaName(name), events); err != nil {
			return err
		}
		if r.afterApply != nil {
			r.afterApply(name, events)
		}
		last := events[len(events)-1]
		if _, err := tx.Exec(ctx, `UPDATE projection_checkpoints
			SET position = $2, events_applied = events_applied + $3, last_event_at = $4, updated_at = now()
			WHERE name = $1`, name, last.Position, len(events), last.RecordedAt); err != nil {
			return fmt.Errorf("projections: save checkpoint of %s: %w", name, err)
		}
		applied = len(events)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if applied > 0 {
		r.metrics.applied.WithLabelValues(name).Add(float64(applied))
		r.progress.Notify()
	}
	return applied, nil
}

func applyBatch(ctx context.Context, tx pgx.Tx, p Projection, schema string, events []eventstore.Envelope) error {
	if err := useSchema(ctx, tx, schema); err != nil {
		return err
	}
	if err := p.Apply(ctx, tx, events); err != nil {
		return fmt.Errorf("projections: %s at positions %d..%d: %w", p.Name(), events[0].Position, events[len(events)-1].Position, err)
	}
	// Later statements in the transaction name their tables in full; reset to be safe.
	_, err := tx.Exec(ctx, `SELECT set_config('search_path', 'public', true)`)
	return err
}

// CatchUp applies batches until every projection has seen everything visible now. Tests and the
// CLI use it; serve uses Run.
func (r *Runner) CatchUp(ctx context.Context) error {
	for _, p := range r.projections {
		for {
			n, err := r.Step(ctx, p.Name())
			if err != nil {
				return err
			}
			if n < r.batchSize {
				break
			}
		}
	}
	return nil
}

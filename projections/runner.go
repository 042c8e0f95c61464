package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// DefaultCoalesce is the window of live batches under load (WithCoalesce). With ten projections and money commands over HTTP on two cores it gains about
// a tenth in throughput (docs/benchmarks.md, "Money features"), well within the lag target.
const DefaultCoalesce = 20 * time.Millisecond

// lockNamespace is the first key of the per-projection advisory locks.
const lockNamespace = 0x43565052 // "CVPR"

// Runner keeps every registered projection up to date.
type Runner struct {
	pool        *pgxpool.Pool
	store       *postgres.Store
	appended    *postgres.Signal // new events may be readable
	changed     *postgres.Signal // an operator retried or skipped (in this process)
	progress    *postgres.Signal // some checkpoint moved (in this process)
	projections []Projection
	byName      map[string]Projection
	defs        map[string]Definition
	logger      *slog.Logger
	batchSize   int
	// rebuildBatch is the number of events a rebuild reads and applies at a time.
	rebuildBatch int
	// bulkLimit is the longest log a Bulk projection rebuilds in memory (WithBulkLimit).
	bulkLimit   int64
	idlePoll    time.Duration
	waitTimeout time.Duration
	waitPoll    time.Duration
	waits       waits
	retryDelay  time.Duration
	rebuildWait time.Duration
	maxReadyLag time.Duration
	coalesce    time.Duration
	metrics     *metrics
	feed        *feed

	// afterApply lets tests act between a batch's writes and its commit.
	afterApply func(name string, events []eventstore.Envelope)
}

// Option configures a Runner.
type Option func(*Runner)

// WithCoalesce sets the window of live batches while appends keep coming (default
// DefaultCoalesce; 0 applies every append as it comes): under load a projection starts at most
// one batch per window, windows being slots of this length on the clock, shared by every
// projection. An append after a quiet spell is applied at once; under load the appends of the
// window share one transaction per projection instead of one each. A reader waiting for its own write may wait up
// to this much longer, and only under load.
func WithCoalesce(d time.Duration) Option { return func(r *Runner) { r.coalesce = d } }

// WithReadsSharedWith makes a reactor runner read the log through the projection runner's feed,
// so that it shares the projections' reads when it wakes with them.
func WithReadsSharedWith(p *Runner) Option {
	return func(r *Runner) { r.feed = p.feed }
}

// WithBatchSize sets how many events one transaction applies (default 1000).
func WithBatchSize(n int) Option { return func(r *Runner) { r.batchSize = n } }

// WithRebuildBatchSize sets how many events a rebuild reads and applies at a time (default
// 20,000); tests make it small so that a rebuild of a short log spans several batches.
func WithRebuildBatchSize(n int) Option { return func(r *Runner) { r.rebuildBatch = n } }

// WithBulkLimit sets the longest log, in events, that a Bulk projection rebuilds by folding it
// in memory (default 2,000,000). A builder holds what later events may still change, up to
// every request of the log (history: about 0.5 GB per million events), so a longer log is
// rebuilt through Apply, batch by batch, in memory that does not grow with it. 0 turns bulk
// rebuilds off.
func WithBulkLimit(events int64) Option { return func(r *Runner) { r.bulkLimit = events } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(r *Runner) { r.logger = l } }

// WithMetrics registers the runner's Prometheus collectors.
func WithMetrics(reg prometheus.Registerer) Option {
	return func(r *Runner) { r.metrics = newMetrics(reg) }
}

// WithWaitTimeout bounds how long WaitFor waits (default 3s).
func WithWaitTimeout(d time.Duration) Option { return func(r *Runner) { r.waitTimeout = d } }

// WithIdlePoll sets how often an idle runner looks again when no signal arrives (default 1s).
// It covers locks released by other processes, events held back by the xmin horizon, and
// retries and skips recorded by other processes.
func WithIdlePoll(d time.Duration) Option { return func(r *Runner) { r.idlePoll = d } }

// WithRetryDelay sets the first wait after a transient failure (default 100ms); it doubles
// after each further failure, up to maxRetryDelay.
func WithRetryDelay(d time.Duration) Option { return func(r *Runner) { r.retryDelay = d } }

// WithRebuildWait bounds how long Prepare waits for a rebuild that another process is running
// (default 30 minutes); the context passed to Prepare can end the wait sooner.
func WithRebuildWait(d time.Duration) Option { return func(r *Runner) { r.rebuildWait = d } }

// WithMaxReadyLag sets how old the oldest event a projection has not applied may be while
// NotReady still reports it ready (default DefaultMaxReadyLag).
func WithMaxReadyLag(d time.Duration) Option { return func(r *Runner) { r.maxReadyLag = d } }

// maxRetryDelay caps the backoff after transient failures.
const maxRetryDelay = 10 * time.Second

// NewRunner returns a runner for the given projections on the store's database.
func NewRunner(pool *pgxpool.Pool, store *postgres.Store, projections []Projection, opts ...Option) (*Runner, error) {
	r := &Runner{
		pool: pool, store: store, appended: store.Signal(), changed: postgres.NewSignal(), progress: postgres.NewSignal(),
		byName: map[string]Projection{}, defs: map[string]Definition{}, logger: slog.Default(),
		batchSize: 1000, rebuildBatch: rebuildBatch, bulkLimit: defaultBulkLimit, idlePoll: time.Second, waitTimeout: 3 * time.Second, waitPoll: defaultWaitPoll,
		retryDelay: 100 * time.Millisecond, rebuildWait: 30 * time.Minute, maxReadyLag: DefaultMaxReadyLag,
		coalesce: DefaultCoalesce,
	}
	for _, o := range opts {
		o(r)
	}
	if r.metrics == nil {
		r.metrics = newMetrics(nil)
	}
	if r.feed == nil {
		r.feed = newFeed(r.metrics.logReads)
	}
	for _, p := range projections {
		if err := checkName(p); err != nil {
			return nil, err
		}
		if _, dup := r.byName[p.Name()]; dup {
			return nil, fmt.Errorf("projections: %q registered twice", p.Name())
		}
		r.byName[p.Name()] = p
		r.defs[p.Name()] = DefinitionOf(p)
		r.projections = append(r.projections, p)
	}
	return r, nil
}

func (r *Runner) lookup(name string) (Projection, error) {
	p, ok := r.byName[name]
	if !ok {
		return nil, ErrUnknownProjection.WithMessage(fmt.Sprintf("no projection named %q (known: %s)", name, strings.Join(r.Names(), ", ")))
	}
	return p, nil
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
// read model was built by an older definition (a lower version, or the same version with
// another schema) is rebuilt, so code and tables never disagree; if another process is
// rebuilding it already, Prepare waits for that rebuild (at most WithRebuildWait) and then
// looks again. A read model built by a newer definition is left alone: this process stands down
// for it (see Versioned).
func (r *Runner) Prepare(ctx context.Context) error {
	for _, p := range r.projections {
		stored, found, err := storedDefinition(ctx, r.pool, p.Name())
		switch {
		case err != nil:
			return err
		case !found:
			if err := r.createLive(ctx, p); err != nil {
				return err
			}
			continue
		}
		mine := r.defs[p.Name()]
		switch {
		case stored == mine:
		case stored.Version > mine.Version:
			r.logger.Warn("projection stood down: its read model was built by a newer definition",
				"projection", p.Name(), "reason", stored.mismatch(mine))
		default:
			r.logger.Info("projection definition changed; rebuilding", "projection", p.Name(),
				"from_version", stored.Version, "to_version", mine.Version)
			if _, err := r.rebuild(ctx, p, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// storedDefinition reads the definition the live read model was built with.
func storedDefinition(ctx context.Context, q rowQuerier, name string) (d Definition, found bool, err error) {
	err = q.QueryRow(ctx, `SELECT definition_version, schema_hash FROM projection_checkpoints WHERE name = $1`, name).Scan(&d.Version, &d.SchemaHash)
	if errors.Is(err, pgx.ErrNoRows) {
		return Definition{}, false, nil
	}
	if err != nil {
		return Definition{}, false, fmt.Errorf("projections: checkpoint of %s: %w", name, err)
	}
	return d, true, nil
}

// rowQuerier is satisfied by a pool, a connection and a transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
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
		def := r.defs[p.Name()]
		_, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name, schema_hash, definition_version) VALUES ($1, $2, $3)`, p.Name(), def.SchemaHash, def.Version)
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

// State is what the runner does with a projection.
type State string

const (
	// StateRunning: the runner applies new events.
	StateRunning State = "running"
	// StateFailed: Apply refused an event on its own; the projection is parked just before it
	// until an operator retries or skips it.
	StateFailed State = "failed"
	// StateRetrying: a retry was requested and the runner has not passed the failed event yet.
	StateRetrying State = "retrying"
	// StateStoodDown: the read model was built by another definition than this process's, so
	// this process applies nothing to it (see Versioned).
	StateStoodDown State = "stood down"
)

// Run keeps every projection up to date until ctx is done. The running projections apply each
// window's events in one transaction (round, stepGroup); a projection that fails, is parked or
// stands down steps alone and waits on its own, and the others go on.
func (r *Runner) Run(ctx context.Context) error {
	ls := make([]*live, len(r.projections))
	for i, p := range r.projections {
		ls[i] = &live{p: p, state: StateRunning, size: r.batchSize, delay: r.retryDelay}
	}
	idle := time.NewTimer(r.idlePoll)
	defer idle.Stop()
	retry := time.NewTimer(r.idlePoll)
	defer retry.Stop()
	wake := wakeups{signal: r.appended, window: r.coalesce}
	for ctx.Err() == nil {
		since := wake.arm()
		changed := r.changed.Wait()
		began := time.Now()
		passed, behind, retryAt := r.round(ctx, ls, since)
		ended := time.Now()
		if behind {
			continue
		}
		idle.Reset(r.idlePoll)
		var retryC <-chan time.Time
		if !retryAt.IsZero() {
			retry.Reset(time.Until(retryAt))
			retryC = retry.C
		}
		select {
		case <-ctx.Done():
		case <-wake.next:
			// Under load (the last batch applied something), appends wait for the end of a
			// window and are applied together; an append after a quiet spell (an empty last
			// batch, or one that ended a window or more ago) goes at once.
			wake.coalesce(ctx, began, ended, passed)
		case <-changed:
		case <-idle.C:
		case <-retryC:
		}
		retry.Stop()
	}
	return ctx.Err()
}

// logTransition logs when a projection stops or resumes; a park is logged where it happens.
func (r *Runner) logTransition(name string, was State, res stepResult) {
	switch {
	case res.state == was || res.parkedNow:
	case res.state == StateStoodDown:
		r.logger.Warn("projection stood down: its read model was built by another definition", "projection", name, "reason", res.mismatch)
	case res.state == StateFailed:
		r.logger.Warn("projection is parked at a failed event", "projection", name, "position", res.failure.Position,
			"event_id", res.failure.EventID, "attempts", res.failure.Attempts)
	case was == StateFailed || was == StateStoodDown:
		r.logger.Info("projection resumed", "projection", name, "state", res.state)
	}
}

// Step applies at most one batch to one projection and returns how many events it applied (0
// when caught up). It waits for the projection's lock if another process holds it. It returns
// an error wrapping ErrParked or ErrStoodDown when the projection cannot advance.
func (r *Runner) Step(ctx context.Context, name string) (int, error) {
	p, err := r.lookup(name)
	if err != nil {
		return 0, err
	}
	res, err := r.step(ctx, p, r.batchSize, true, time.Now())
	if err != nil {
		return 0, err
	}
	return res.applied, res.blocked(name)
}

// catchUpBatchFactor multiplies the batch size while a projection is behind.
const catchUpBatchFactor = 5

type stepResult struct {
	state     State
	busy      bool // another transaction holds the projection's lock; nothing was looked at
	passed    int  // events the checkpoint moved past, applied or skipped
	applied   int  // events applied
	failure   *Failure
	parkedNow bool   // this step parked the projection
	mismatch  string // why this process stands down
}

// blocked explains why the projection cannot advance, or returns nil.
func (s stepResult) blocked(name string) error {
	switch s.state {
	case StateFailed:
		return fmt.Errorf("%w: %s at position %d (event %s, %s): %s", ErrParked, name, s.failure.Position, s.failure.EventID, s.failure.EventType, s.failure.Error)
	case StateStoodDown:
		return fmt.Errorf("%w: %s: %s", ErrStoodDown, name, s.mismatch)
	}
	return nil
}

// refusedBatch is a batch Apply refused for a reason that is not transient; the step is then
// repeated, applying the batch in halves to find the event at fault.
type refusedBatch struct{ err error }

func (e *refusedBatch) Error() string { return e.err.Error() }
func (e *refusedBatch) Unwrap() error { return e.err }

// step applies the next batch of events, which includes every event visible at since (see feed).
func (r *Runner) step(ctx context.Context, p Projection, size int, wait bool, since time.Time) (stepResult, error) {
	res, err := r.stepOnce(ctx, p, size, wait, false, since)
	if refused := (*refusedBatch)(nil); errors.As(err, &refused) {
		r.logger.Warn("projection batch refused; applying it in halves to find the event at fault", "projection", p.Name(), "err", refused.err)
		res, err = r.stepOnce(ctx, p, size, wait, true, since)
	}
	if err != nil {
		return stepResult{}, err
	}
	if res.applied > 0 || res.passed > 0 {
		r.metrics.applied.WithLabelValues(p.Name()).Add(float64(res.applied))
		r.progress.Notify()
	}
	return res, nil
}

// stepOnce runs one batch in one transaction: the read-model writes, the checkpoint, and, when an
// event fails on its own, the record of the failure commit together. In careful mode the batch
// is applied in halves, so the events before a failing one are kept and the projection parks at
// it.
func (r *Runner) stepOnce(ctx context.Context, p Projection, size int, wait, careful bool, since time.Time) (stepResult, error) {
	name := p.Name()
	res := stepResult{state: StateRunning}
	var failed *EventError
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		ctx := withDecodeCache(ctx) // the halves of a refused batch decode its events once
		if wait {
			if err := lock(ctx, tx, name); err != nil {
				return err
			}
		} else if ok, err := tryLock(ctx, tx, name); err != nil || !ok {
			res.busy = !ok
			return err
		}
		cp, err := readCheckpoint(ctx, tx, name)
		if err != nil {
			return err
		}
		if m := cp.def.mismatch(r.defs[name]); m != "" {
			res.state, res.mismatch = StateStoodDown, m
			return nil
		}
		if cp.failure.Parked() {
			f, err := scanFailure(tx.QueryRow(ctx, `SELECT `+failureColumns+` FROM projection_failures WHERE name = $1`, name))
			if err != nil || f == nil {
				return err
			}
			res.state, res.failure = StateFailed, f
			return nil
		}
		if cp.failure != nil {
			res.state, res.failure = StateRetrying, cp.failure
		}
		events, err := r.feed.read(ctx, tx, since, cp.position, size)
		if err != nil || len(events) == 0 {
			return err
		}
		todo := withoutPositions(events, cp.skips)
		applied := len(todo)
		if len(todo) > 0 {
			if careful {
				if applied, failed, err = applyInHalves(ctx, tx, p, SchemaName(name), todo); err != nil {
					return err
				}
			} else if err := applyBatch(ctx, tx, p, SchemaName(name), todo); err != nil {
				if ctx.Err() != nil || transient(err) || tx.Conn().IsClosed() {
					return batchError(p, todo, err)
				}
				return &refusedBatch{batchError(p, todo, err)}
			}
		}
		if r.afterApply != nil {
			r.afterApply(name, todo[:applied])
		}
		passed := events
		if failed != nil {
			if ctx.Err() != nil {
				return ctx.Err() // the process is stopping: never park for that
			}
			passed = events[:sort.Search(len(events), func(i int) bool { return events[i].Position >= failed.Event.Position })]
		}
		if len(passed) > 0 {
			last := passed[len(passed)-1]
			if _, err := tx.Exec(ctx, `UPDATE projection_checkpoints
				SET position = $2, events_applied = events_applied + $3, last_event_at = $4, updated_at = now()
				WHERE name = $1`, name, last.Position, applied, last.RecordedAt); err != nil {
				return fmt.Errorf("projections: save checkpoint of %s: %w", name, err)
			}
			if cp.failure != nil && last.Position >= cp.failure.Position {
				if _, err := tx.Exec(ctx, `DELETE FROM projection_failures WHERE name = $1`, name); err != nil {
					return fmt.Errorf("projections: clear the failure of %s: %w", name, err)
				}
				res.state, res.failure = StateRunning, nil
			}
		}
		if failed != nil {
			attempts, err := park(ctx, tx, failed)
			if err != nil {
				return err
			}
			res.state, res.parkedNow = StateFailed, true
			res.failure = &Failure{Position: failed.Event.Position, EventID: failed.Event.ID.String(), EventType: failed.Event.Type,
				StreamID: string(failed.Event.StreamID), Error: failed.Err.Error(), Attempts: attempts}
		}
		res.passed, res.applied = len(passed), applied
		return nil
	})
	if err != nil {
		return stepResult{}, err
	}
	if failed != nil {
		r.logger.Error("projection parked at a failed event; other projections go on", "projection", name,
			"position", failed.Event.Position, "event_id", failed.Event.ID, "type", failed.Event.Type,
			"stream", failed.Event.StreamID, "correlation_id", failed.Event.Metadata.CorrelationID, "attempts", res.failure.Attempts, "err", failureText(failed.Err))
	}
	return res, nil
}

// checkpointRow is what a step needs to know about a projection before reading events.
type checkpointRow struct {
	position int64
	def      Definition
	failure  *Failure // Position, Attempts and RetryRequestedAt only
	skips    []int64  // skipped positions after position, ascending
}

func readCheckpoint(ctx context.Context, tx pgx.Tx, name string) (checkpointRow, error) {
	var cp checkpointRow
	var failedAt *int64
	var attempts *int
	var retryAt *time.Time
	err := tx.QueryRow(ctx, `
		SELECT c.position, c.definition_version, c.schema_hash, f.position, f.attempts, f.retry_requested_at,
		  ARRAY(SELECT s.position FROM projection_skips s WHERE s.name = c.name AND s.position > c.position ORDER BY s.position)
		FROM projection_checkpoints c LEFT JOIN projection_failures f ON f.name = c.name
		WHERE c.name = $1`, name).Scan(&cp.position, &cp.def.Version, &cp.def.SchemaHash, &failedAt, &attempts, &retryAt, &cp.skips)
	if err != nil {
		return cp, fmt.Errorf("projections: checkpoint of %s: %w", name, err)
	}
	if failedAt != nil {
		cp.failure = &Failure{Position: *failedAt, Attempts: *attempts, RetryRequestedAt: retryAt}
	}
	return cp, nil
}

// withoutPositions returns events minus those at the given ascending positions.
func withoutPositions(events []eventstore.Envelope, skip []int64) []eventstore.Envelope {
	if len(skip) == 0 {
		return events
	}
	out := make([]eventstore.Envelope, 0, len(events))
	for _, e := range events {
		for len(skip) > 0 && skip[0] < e.Position {
			skip = skip[1:]
		}
		if len(skip) > 0 && skip[0] == e.Position {
			continue
		}
		out = append(out, e)
	}
	return out
}

// CatchUp applies batches until every projection has seen everything visible now, waiting for
// projections another process is applying. Tests and the CLI use it; serve uses Run. It goes on
// past a projection that is parked or stood down and returns an error naming each.
func (r *Runner) CatchUp(ctx context.Context) error {
	var blocked []error
	now := time.Now()
	for _, p := range r.projections {
		for {
			res, err := r.step(ctx, p, r.batchSize, true, now)
			if err != nil {
				return err
			}
			if err := res.blocked(p.Name()); err != nil {
				blocked = append(blocked, err)
				break
			}
			if res.passed < r.batchSize {
				break
			}
		}
	}
	return errors.Join(blocked...)
}

package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgavail"
)

// reactorLockNamespace is the first key of the per-reactor advisory locks; a reactor and a
// projection of the same name never share a lock.
const reactorLockNamespace = 0x43565245 // "CVRE"

// Reactor turns events into commands (a process manager). It follows the event log like a
// projection does, but its effects are commands, which commit in transactions of their own: they
// cannot commit with its checkpoint. React must therefore be idempotent by the event it is given
// (a command carrying the event's id as its causation, refused when its effect is already there),
// because after a crash between a command and the checkpoint the event is given again.
type Reactor interface {
	// Name is stable and short ([a-z][a-z0-9_]*): the key of its checkpoint and lock.
	Name() string
	// React handles one event, issuing whatever commands it causes. Events it does not care about
	// are ignored. An error stops the batch: the checkpoint stays before the event, which is given
	// again after a backoff, so React must not fail for an event it can never handle (it logs and
	// returns nil instead).
	React(ctx context.Context, e eventstore.Envelope) error
}

// ReactorRunner keeps one reactor up to date with the log. Every serve process runs it; an
// advisory lock per reactor lets one process react at a time while the others skip.
type ReactorRunner struct {
	pool       *pgxpool.Pool
	appended   *postgres.Signal
	reactor    Reactor
	logger     *slog.Logger
	batchSize  int
	idlePoll   time.Duration
	retryDelay time.Duration
	coalesce   time.Duration
	feed       *feed

	// afterReact lets tests act between an event's commands and the checkpoint's commit.
	afterReact func(e eventstore.Envelope) error
}

// NewReactorRunner returns a runner for reactor on the store's database. Options WithBatchSize,
// WithLogger, WithIdlePoll, WithRetryDelay and WithCoalesce apply as they do to the projection
// runner; WithReadsSharedWith lets it share the projections' reads of the log.
func NewReactorRunner(pool *pgxpool.Pool, store *postgres.Store, reactor Reactor, opts ...Option) (*ReactorRunner, error) {
	if !validName.MatchString(reactor.Name()) {
		return nil, fmt.Errorf("projections: invalid reactor name %q", reactor.Name())
	}
	// The options are the projection runner's; read back the ones a reactor uses.
	cfg := &Runner{logger: slog.Default(), batchSize: 100, idlePoll: time.Second, retryDelay: 100 * time.Millisecond, coalesce: DefaultCoalesce}
	for _, o := range opts {
		o(cfg)
	}
	if cfg.feed == nil {
		cfg.feed = newFeed(nil)
	}
	return &ReactorRunner{pool: pool, appended: store.Signal(), reactor: reactor, logger: cfg.logger,
		batchSize: cfg.batchSize, idlePoll: cfg.idlePoll, retryDelay: cfg.retryDelay, coalesce: cfg.coalesce, feed: cfg.feed}, nil
}

// SetAfterReact installs a hook run after each event's React, before the batch's checkpoint
// commits; an error it returns aborts the batch as a crash would. For tests.
func (r *ReactorRunner) SetAfterReact(f func(e eventstore.Envelope) error) { r.afterReact = f }

// Run reacts to new events until ctx is done, waking on appends and polling as a fallback.
// Failures are logged and retried with backoff (doubling up to 10 s), so the process goes on.
func (r *ReactorRunner) Run(ctx context.Context) error {
	delay := r.retryDelay
	idle := time.NewTimer(r.idlePoll)
	defer idle.Stop()
	wake := wakeups{signal: r.appended, window: r.coalesce}
	for ctx.Err() == nil {
		since := wake.arm()
		began := time.Now()
		n, err := r.step(ctx, false, since)
		ended := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			switch {
			case !pgavail.Unreachable(err):
				r.logger.Error("reactor batch failed; retrying", "reactor", r.reactor.Name(), "err", err, "backoff", delay)
			case delay == r.retryDelay: // the first failure of an outage; the retries are not news
				r.logger.Warn("reactor paused: the database is unreachable; retrying with backoff", "reactor", r.reactor.Name(), "err", err)
			default:
				r.logger.Debug("reactor batch failed; the database is still unreachable", "reactor", r.reactor.Name(), "err", err, "backoff", delay)
			}
			select {
			case <-ctx.Done():
			case <-time.After(delay):
			}
			delay = min(delay*2, maxRetryDelay)
			continue
		}
		delay = r.retryDelay
		if n == r.batchSize {
			continue
		}
		idle.Reset(r.idlePoll)
		select {
		case <-ctx.Done():
		case <-wake.next:
			wake.coalesce(ctx, began, ended, n)
		case <-idle.C:
		}
	}
	return ctx.Err()
}

// Step reacts to at most one batch, waiting for the reactor's lock if another process holds it,
// and returns how many events it passed (0 when caught up).
func (r *ReactorRunner) Step(ctx context.Context) (int, error) { return r.step(ctx, true, time.Now()) }

// CatchUp steps until the reactor has passed every event visible now.
func (r *ReactorRunner) CatchUp(ctx context.Context) error {
	now := time.Now()
	for {
		n, err := r.step(ctx, true, now)
		if err != nil || n < r.batchSize {
			return err
		}
	}
}

// step holds the reactor's lock for one batch: it reads the checkpoint and the events after it,
// reacts to each in turn (their commands commit on their own connections), and moves the
// checkpoint past the batch. If anything fails the checkpoint stays where it was and the whole
// batch is given again; the commands that did commit are refused by their aggregates the second
// time, so nothing happens twice. The batch includes every event visible at since (see feed).
func (r *ReactorRunner) step(ctx context.Context, wait bool, since time.Time) (int, error) {
	name := r.reactor.Name()
	passed := 0
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if wait {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, reactorLockNamespace, name); err != nil {
				return err
			}
		} else {
			var ok bool
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, hashtext($2))`, reactorLockNamespace, name).Scan(&ok); err != nil || !ok {
				return err // another process is reacting; it will pass these events
			}
		}
		var position int64
		err := tx.QueryRow(ctx, `SELECT position FROM reactor_checkpoints WHERE name = $1`, name).Scan(&position)
		if errors.Is(err, pgx.ErrNoRows) {
			// The first batch ever: the row is made under the reactor's lock, so only once.
			_, err = tx.Exec(ctx, `INSERT INTO reactor_checkpoints (name) VALUES ($1)`, name)
		}
		if err != nil {
			return fmt.Errorf("projections: checkpoint of reactor %s: %w", name, err)
		}
		events, err := r.feed.read(ctx, tx, since, position, r.batchSize)
		if err != nil || len(events) == 0 {
			return err
		}
		for _, e := range events {
			if err := r.react(ctx, e); err != nil {
				return fmt.Errorf("projections: reactor %s at position %d (event %s, %s in %s): %w", name, e.Position, e.ID, e.Type, e.StreamID, err)
			}
			if r.afterReact != nil {
				if err := r.afterReact(e); err != nil {
					return err
				}
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE reactor_checkpoints SET position = $2, updated_at = now() WHERE name = $1`,
			name, events[len(events)-1].Position); err != nil {
			return fmt.Errorf("projections: save checkpoint of reactor %s: %w", name, err)
		}
		passed = len(events)
		return nil
	})
	return passed, err
}

func (r *ReactorRunner) react(ctx context.Context, e eventstore.Envelope) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return r.reactor.React(ctx, e)
}

// ReactorPosition reads the reactor's checkpoint (0 before its first batch).
func ReactorPosition(ctx context.Context, pool *pgxpool.Pool, name string) (int64, error) {
	var pos int64
	err := pool.QueryRow(ctx, `SELECT position FROM reactor_checkpoints WHERE name = $1`, name).Scan(&pos)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return pos, err
}

// ReactorStatus describes one reactor for operators: how far it is behind the log.
type ReactorStatus struct {
	Name       string
	Position   int64
	Head       int64
	LagEvents  int64 // capped at lagCountCap, as for projections
	LagSeconds float64
	UpdatedAt  time.Time
}

// ReactorStatuses reports every reactor that has run on the database (each has a checkpoint
// row once its first batch ran), by name.
func ReactorStatuses(ctx context.Context, pool *pgxpool.Pool, store *postgres.Store) ([]ReactorStatus, error) {
	head, err := store.Head(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := pool.Query(ctx, `
		SELECT c.name, c.position, c.updated_at, `+lagColumns("$1", "$2")+`
		FROM reactor_checkpoints c ORDER BY c.name`, head, lagCountCap)
	if err != nil {
		return nil, fmt.Errorf("projections: reactor status: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ReactorStatus, error) {
		s := ReactorStatus{Head: head}
		err := row.Scan(&s.Name, &s.Position, &s.UpdatedAt, &s.LagEvents, &s.LagSeconds)
		return s, err
	})
}

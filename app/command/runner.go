// Package command runs commands against event-sourced aggregates. Every command handler goes
// through Execute, so the load → decide → append cycle, optimistic-concurrency retries and
// idempotency keys are written once:
//
//	res, err := command.Execute(ctx, runner, account.StreamID(userID), account.New, meta,
//		func(a *account.Account) error { return a.RequestWithdrawal(amount, now) })
package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
)

// ErrIdempotencyKeyReused is returned when an Idempotency-Key comes back with a different request
// body: replaying the first result would answer a question the client did not ask.
var ErrIdempotencyKeyReused = domainerr.New(domainerr.Conflict,
	"This Idempotency-Key was already used with a different request.")

// Aggregate is what the runner needs from an aggregate. Every type that embeds aggregate.Root
// satisfies it.
type Aggregate interface {
	aggregate.Aggregate
	Version() int64
	LoadedVersion() int64
	Changes() []aggregate.Event
}

const (
	defaultMaxAttempts = 5
	defaultPageSize    = 1000
	defaultBackoffBase = 5 * time.Millisecond
	defaultBackoffMax  = 100 * time.Millisecond
)

// Runner executes commands against one store. It is safe for concurrent use.
type Runner struct {
	store       eventstore.Store
	codec       *eventstore.Registry
	maxAttempts int
	pageSize    int
	backoffBase time.Duration
	backoffMax  time.Duration
	logger      *slog.Logger
}

// Option configures a Runner.
type Option func(*Runner)

// WithMaxAttempts sets how many times a command is tried when its stream keeps moving under it
// (default 5). Values below 1 mean 1.
func WithMaxAttempts(n int) Option { return func(r *Runner) { r.maxAttempts = max(n, 1) } }

// WithBackoff sets the wait before retry n: a random duration up to min(ceiling, base·2ⁿ⁻¹)
// (defaults 5ms and 100ms). The randomness keeps commands that collided once from colliding
// again in lockstep. A zero base retries at once.
func WithBackoff(base, ceiling time.Duration) Option {
	return func(r *Runner) { r.backoffBase, r.backoffMax = base, ceiling }
}

// WithPageSize sets how many events one stream read fetches while loading (default 1000).
func WithPageSize(n int) Option { return func(r *Runner) { r.pageSize = max(n, 1) } }

// WithLogger sets where retries are reported (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(r *Runner) { r.logger = l } }

// NewRunner returns a runner that reads and appends through store and encodes with codec.
func NewRunner(store eventstore.Store, codec *eventstore.Registry, opts ...Option) *Runner {
	if store == nil || codec == nil {
		panic("command: NewRunner needs a store and a codec")
	}
	r := &Runner{
		store:       store,
		codec:       codec,
		maxAttempts: defaultMaxAttempts,
		pageSize:    defaultPageSize,
		backoffBase: defaultBackoffBase,
		backoffMax:  defaultBackoffMax,
		logger:      slog.Default(),
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Result is what a command did.
type Result struct {
	// Position is the global position of the last appended event, for read-your-writes; 0 when
	// the command appended nothing.
	Position int64
	// Version is the stream's version after the command.
	Version int64
	// Events are the appended events (on a replay: the events the original request appended).
	Events []eventstore.Envelope
	// IdempotentReplay is true when the result is the stored result of an earlier request with the
	// same Idempotency-Key and nothing was decided now.
	IdempotentReplay bool
}

// Execute runs one command against one stream. It loads the stream into newAgg(), calls decide,
// and appends the events decide raised, expecting the version it loaded. Every appended event
// carries meta; when meta has no correlation id a fresh one is made, and the causation id
// defaults to the correlation id, so all events of one command can be found together.
//
// An error from decide is returned as it is, and nothing is stored. When another writer appended
// to the stream in between, Execute loads again and asks decide again, because the decision may
// differ on the new state; after the last attempt it returns the *eventstore.ConcurrencyError.
//
// When meta.IdempotencyKey is set, the stream is searched for events of an earlier request with
// that key: with the same meta.RequestHash their result is returned (IdempotentReplay) without
// calling decide; with another hash the answer is ErrIdempotencyKeyReused. Keys are scoped to the
// stream. A request that raised no events leaves no trace, so its retry is decided again.
func Execute[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, meta eventstore.Metadata, decide func(A) error) (Result, error) {
	if err := stream.Validate(); err != nil {
		return Result{}, err
	}
	if meta.CorrelationID == "" {
		meta.CorrelationID = eventstore.NewEventID().String()
	}
	if meta.CausationID == "" {
		meta.CausationID = meta.CorrelationID
	}
	for attempt := 1; ; attempt++ {
		res, conflict, err := attemptOnce(ctx, r, stream, newAgg, meta, decide)
		if conflict == nil {
			return res, err
		}
		if attempt >= r.maxAttempts {
			r.logger.WarnContext(ctx, "command gave up after concurrency conflicts",
				"stream", string(stream), "attempts", attempt, "err", conflict)
			return Result{}, fmt.Errorf("command on %s: %d attempts: %w", stream, attempt, conflict)
		}
		r.logger.DebugContext(ctx, "command retrying after concurrency conflict",
			"stream", string(stream), "attempt", attempt, "err", conflict)
		if err := r.wait(ctx, attempt); err != nil {
			return Result{}, err
		}
	}
}

// attemptOnce is one load → decide → append. It reports an append conflict separately from
// other errors, so that only the store's conflict is retried — never an error decide returned,
// whatever it wraps.
func attemptOnce[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, meta eventstore.Metadata, decide func(A) error) (res Result, conflict, err error) {
	agg, earlier, err := load(ctx, r, stream, newAgg, meta.IdempotencyKey)
	if err != nil {
		return Result{}, nil, err
	}
	if len(earlier) > 0 {
		for _, e := range earlier {
			if e.Metadata.RequestHash != meta.RequestHash {
				return Result{}, nil, ErrIdempotencyKeyReused
			}
		}
		last := earlier[len(earlier)-1]
		return Result{Position: last.Position, Version: last.Version, Events: earlier, IdempotentReplay: true}, nil, nil
	}

	if err := decide(agg); err != nil {
		return Result{}, nil, err
	}
	changes := agg.Changes()
	if len(changes) == 0 {
		return Result{Version: agg.Version()}, nil, nil
	}
	events := make([]eventstore.NewEvent, len(changes))
	for i, c := range changes {
		if events[i], err = r.codec.EncodeFor(stream, c, meta); err != nil {
			return Result{}, nil, fmt.Errorf("command on %s: %w", stream, err)
		}
	}
	stored, err := r.store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: agg.LoadedVersion(), Events: events})
	if errors.Is(err, eventstore.ErrConcurrency) {
		return Result{}, err, nil
	}
	if err != nil {
		return Result{}, nil, fmt.Errorf("command on %s: append: %w", stream, err)
	}
	last := stored[len(stored)-1]
	return Result{Position: last.Position, Version: last.Version, Events: stored}, nil, nil
}

// Load rebuilds the current state of a stream for reading. An unknown stream gives a fresh
// aggregate at version 0.
func Load[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A) (A, error) {
	agg, _, err := load(ctx, r, stream, newAgg, "")
	return agg, err
}

// load replays the whole stream page by page and collects the events of an earlier request with
// the idempotency key, if one is given. A page shorter than the page size is taken as the end of
// the stream, which both stores guarantee; and were a store ever to return less, a command would
// still be safe, since its append expects the version it loaded and would conflict.
func load[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, key string) (A, []eventstore.Envelope, error) {
	agg := newAgg()
	var version int64
	var keyed []eventstore.Envelope
	for {
		page, err := r.store.ReadStream(ctx, stream, version+1, r.pageSize)
		if err != nil {
			var zero A
			return zero, nil, fmt.Errorf("command: load %s: %w", stream, err)
		}
		history := make([]aggregate.Event, len(page))
		for i, env := range page {
			if env.Version != version+1 {
				var zero A
				return zero, nil, fmt.Errorf("command: load %s: version %d follows %d", stream, env.Version, version)
			}
			if history[i], err = r.codec.Decode(env); err != nil {
				var zero A
				return zero, nil, fmt.Errorf("command: load %s: %w", stream, err)
			}
			if key != "" && env.Metadata.IdempotencyKey == key {
				keyed = append(keyed, env)
			}
			version = env.Version
		}
		aggregate.Load(agg, version, history...)
		if len(page) < r.pageSize {
			return agg, keyed, nil
		}
	}
}

// wait sleeps before retry number attempt, or returns early with ctx's error.
func (r *Runner) wait(ctx context.Context, attempt int) error {
	ceiling := r.backoffBase
	for i := 1; i < attempt && ceiling < r.backoffMax; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, r.backoffMax)
	if ceiling <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(rand.N(ceiling) + 1)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

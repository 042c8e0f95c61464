// Package command runs commands against event-sourced aggregates. It is the only code that
// appends events for the application: the load → decide → append cycle, optimistic-concurrency
// and deadlock retries, the aggregate cache and idempotency keys are written once, here.
//
//	res, err := command.Execute(ctx, runner, account.StreamID(userID), account.New, meta,
//		func(a *account.Account) error { return a.RequestWithdrawal(amount, now) })
//
// A command that must also write rows outside the log (a uniqueness claim, an outbox message)
// runs with Submit: its events and those rows go to PostgreSQL in one round trip and commit
// together; rows that record no event go alone with Write. None of them holds a transaction
// across round trips, so a command cannot hold one connection while it asks for another:
// whatever a command reads, it reads before it decides, and a statement that writes checks that
// it still holds (docs/architecture.md, "The write path").
package command

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/platform/correlation"
)

// ErrIdempotencyKeyReused is returned when an Idempotency-Key comes back with a different request
// body: replaying the first result would answer a question the client did not ask.
var ErrIdempotencyKeyReused = domainerr.New(domainerr.RuleBroken,
	"This Idempotency-Key was already used with a different request.")

// Aggregate is what the runner needs from an aggregate. Every type that embeds aggregate.Root
// satisfies it.
//
// Loaded events may be shared between aggregates (the runner caches them), so Apply must read an
// event, never modify what it holds.
type Aggregate interface {
	aggregate.Aggregate
	Version() int64
	LoadedVersion() int64
	Changes() []aggregate.Event
}

// StreamStarter is implemented by aggregates that want to know when the first event of their
// stream was recorded (to show when an account was opened, say); the runner tells them after
// loading. Domain events carry business time, not storage time, so this is the way to it.
type StreamStarter interface {
	StreamStarted(at time.Time)
}

const (
	defaultMaxAttempts = 5
	defaultPageSize    = 1000
	defaultBackoffBase = 5 * time.Millisecond
	defaultBackoffMax  = 100 * time.Millisecond
	defaultCacheSize   = 10_000
	defaultCacheIdle   = 10 * time.Minute
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
	cache       *cache
	batches     *batcher
	locks       streamLocks

	snapshots     eventstore.SnapshotStore // nil: streams load from their first event
	snapshotEvery int
	snapshotted   map[string]func(eventstore.StreamID) Snapshotter // by stream category
	saving        sync.WaitGroup                                   // snapshots being saved
}

// Option configures a Runner.
type Option func(*Runner)

// WithMaxAttempts sets how many times a command is tried when its stream keeps moving under it
// or its transaction deadlocks (default 5). Values below 1 mean 1.
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

// WithCache keeps the loaded state of up to streams streams in memory (default 10,000; 0 turns
// the cache off), each dropped once unused for idle (default 10 minutes; 0: kept until
// crowded out). An entry behind the store (another process appended) costs a retry, never a
// wrong answer: see Execute.
func WithCache(streams int, idle time.Duration) Option {
	return func(r *Runner) { r.cache = newCache(streams, idle) }
}

// WithBatches lets up to streams commands that append at the same time share one append
// (default 64; 1 appends every command on its own), with up to appenders such appends running
// at once (default 2). See batcher for why this changes nothing a command can observe.
func WithBatches(streams, appenders int) Option {
	return func(r *Runner) { r.batches.max, r.batches.appenders = streams, max(appenders, 1) }
}

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
		cache:       newCache(defaultCacheSize, defaultCacheIdle),
		batches:     newBatcher(store, defaultBatchStreams, defaultBatchAppenders),
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Forget drops what the runner holds in memory about a stream, so that nothing decoded from it
// outlives, say, the erasure of the personal data it contained.
func (r *Runner) Forget(stream eventstore.StreamID) { r.cache.forget(stream) }

// Result is what a command did.
type Result struct {
	// Position is the global position of the last appended event, for read-your-writes; 0 when
	// the command appended nothing.
	Position int64
	// Version is the stream's version after the command (after an append to several streams:
	// the version of the last of them).
	Version int64
	// Events are the appended events (on a replay: the events the original request appended).
	Events []eventstore.Envelope
	// Raised are the domain events Events hold, as the aggregate raised them.
	Raised []aggregate.Event
	// IdempotentReplay is true when the result is the stored result of an earlier request with the
	// same Idempotency-Key and nothing was decided now.
	IdempotentReplay bool
}

// Execute runs one command against one stream. It loads the stream into newAgg(), calls decide,
// and appends the events decide raised, expecting the version it loaded. Every appended event
// carries meta; when meta has no correlation id a fresh one is made, and the causation id
// defaults to the correlation id, so all events of one command can be found together.
//
// The stream usually comes from the runner's cache, which costs no read. The append's expected
// version catches a cache that fell behind another process; when decide raises nothing or
// refuses, the stream's tail is read first and decide asked again if it moved, so neither answer
// rests on an old state.
//
// Commands on one stream take turns within the process (decide must therefore not run another
// command on its own stream), and the appends of concurrent commands may share one store append
// (see batcher). An error from decide is returned as it is, and nothing is stored. When another
// writer appended to the stream in between, or the append's transaction was chosen as a
// deadlock victim, Execute loads again and asks decide again, because the decision may differ
// on the new state; after the last attempt it returns the *eventstore.ConcurrencyError (or the
// deadlock, wrapped so that it also matches eventstore.ErrConcurrency).
//
// When meta.IdempotencyKey is set, the stream is searched for events of an earlier request with
// that key: with the same meta.RequestHash their result is returned (IdempotentReplay) without
// calling decide; with another hash the answer is ErrIdempotencyKeyReused. Keys are scoped to the
// stream. A request that raised no events leaves no trace, so its retry is decided again.
func Execute[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, meta eventstore.Metadata, decide func(A) error) (Result, error) {
	// Changes carried alongside (WithAlongside) are for the commands that say so, not this one.
	ctx = context.WithValue(ctx, alongsideKey{}, (*Alongside)(nil))
	return run(ctx, r, stream, newAgg, meta, func(agg A, _ *Writes) error { return decide(agg) })
}

// replay answers a repeated request with what it appended the first time.
func (r *Runner) replay(ctx context.Context, stream eventstore.StreamID, h *history, earlier []keyRef, hash string) (Result, error) {
	for _, k := range earlier {
		if k.hash != hash {
			return Result{}, ErrIdempotencyKeyReused
		}
	}
	first, last := earlier[0].version, earlier[len(earlier)-1].version
	envs, err := r.store.ReadStream(ctx, stream, first, int(last-first+1))
	if err != nil {
		return Result{}, fmt.Errorf("command: replay on %s: %w", stream, err)
	}
	var events []eventstore.Envelope
	for _, env := range envs {
		if env.Metadata.IdempotencyKey == earlier[0].key {
			events = append(events, env)
		}
	}
	if len(events) != len(earlier) {
		return Result{}, fmt.Errorf("command: replay on %s: found %d of the request's %d events", stream, len(events), len(earlier))
	}
	raised := make([]aggregate.Event, len(events))
	for i, env := range events {
		if env.Version > h.base {
			raised[i] = h.events[env.Version-h.base-1]
		} else if raised[i], err = r.codec.Decode(env); err != nil { // before the snapshot h starts from
			return Result{}, fmt.Errorf("command: replay on %s: %w", stream, err)
		}
	}
	end := events[len(events)-1]
	return Result{Position: end.Position, Version: end.Version, Events: events, Raised: raised, IdempotentReplay: true}, nil
}

func (r *Runner) encode(stream eventstore.StreamID, changes []aggregate.Event, meta eventstore.Metadata) ([]eventstore.NewEvent, error) {
	events := make([]eventstore.NewEvent, len(changes))
	for i, c := range changes {
		var err error
		if events[i], err = r.codec.EncodeFor(stream, c, meta); err != nil {
			return nil, fmt.Errorf("command on %s: %w", stream, err)
		}
	}
	return events, nil
}

// withIDs gives a command's metadata a correlation id (the one ctx carries, else a fresh one),
// and a causation id defaulting to it.
func withIDs(ctx context.Context, meta eventstore.Metadata) eventstore.Metadata {
	if meta.CorrelationID == "" {
		meta.CorrelationID = correlation.ID(ctx)
	}
	if meta.CorrelationID == "" {
		meta.CorrelationID = eventstore.NewEventID().String()
	}
	if meta.CausationID == "" {
		meta.CausationID = meta.CorrelationID
	}
	return meta
}

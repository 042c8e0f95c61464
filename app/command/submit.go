package command

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// PipelineStore appends together with checks and statements in one round trip, or runs checks
// and statements alone in one; *postgres.Store is one.
type PipelineStore interface {
	AppendWith(ctx context.Context, w postgres.With, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error)
	WriteWith(ctx context.Context, w postgres.With) error
}

// ErrNoPipeline is returned by Submit on a runner whose store is not a PipelineStore.
var ErrNoPipeline = errors.New("command: this runner's store cannot append with statements (PipelineStore)")

// ErrClaimed answers a request whose claim (WithClaim) was found taken by another request: the
// caller that set the claim decides what the client hears.
var ErrClaimed = domainerr.New(domainerr.Conflict, "This request was made already.")

// Writes are what a command run by Submit writes besides its events, all of it known once the
// command has decided: rows outside the log, and the other streams its decision rests on. They
// commit with the events or not at all.
type Writes struct {
	ctx       context.Context
	r         *Runner
	own       eventstore.StreamID
	with      postgres.With
	unique    map[string]error
	violation map[string]error
	consulted []consulted
}

type consulted struct {
	stream eventstore.StreamID
	h      *history
	cached bool
}

// Add queues a statement. Its result cannot be read: a statement that must not happen twice
// fails on a unique constraint instead (OnUnique), rather than doing nothing.
func (w *Writes) Add(sql string, args ...any) {
	w.with.Statements = append(w.with.Statements, postgres.Statement{SQL: sql, Args: args})
}

// OnUnique makes a unique violation of constraint, by any of the statements, fail the command
// with err.
func (w *Writes) OnUnique(constraint string, err error) {
	if w.unique == nil {
		w.unique = map[string]error{}
	}
	w.unique[constraint] = err
}

// OnViolation makes any integrity-constraint violation (SQLSTATE class 23) naming constraint,
// by any of the statements, fail the command with err: a statement that checks a condition in
// the command's transaction raises one (a function's RAISE ... USING CONSTRAINT), since its
// result cannot be read.
func (w *Writes) OnViolation(constraint string, err error) {
	if w.violation == nil {
		w.violation = map[string]error{}
	}
	w.violation[constraint] = err
}

// Consult returns the state of a stream the command decides on but appends nothing to (the
// investor whose verified e-mail address a deposit needs), as this process last saw it: no read
// when the stream is cached. The command's events commit only if the stream is still at that
// version when they do; if it moved, Submit decides again on its new state, as it does when a
// refusal was decided on a cached state.
func Consult[B Aggregate](w *Writes, stream eventstore.StreamID, newAgg func() B) (B, error) {
	var zero B
	if err := stream.Validate(); err != nil {
		return zero, err
	}
	if stream == w.own {
		return zero, fmt.Errorf("command: %s is the command's own stream, not one to consult", stream)
	}
	h, cached, err := w.r.load(w.ctx, stream)
	if err != nil {
		return zero, err
	}
	w.consulted = append(w.consulted, consulted{stream: stream, h: h, cached: cached})
	w.with.Checks = append(w.with.Checks, postgres.Check{Stream: stream, Version: h.version})
	return build(newAgg, h)
}

// Claim is what a request with an Idempotency-Key (api/idempotency) asks of the commands it runs
// through Submit. Statement is the key's record, written with the first command that commits,
// or not at all, so that it costs no round trip of its own and exists only if the command
// committed; Constraint is the unique constraint a request finding the key taken runs into.
// Key and Hash go into the metadata of the command's events, so that a repeat of the request
// is answered from the events themselves (Replayed) and needs no stored response.
type Claim struct {
	Statement  postgres.Statement
	Constraint string
	Key, Hash  string

	mu        sync.Mutex
	committed bool
	conflict  bool
	replayed  bool
	reused    bool
}

// Committed reports whether the claim committed with a command.
func (c *Claim) Committed() bool { return c.flag(&c.committed) }

// Conflicted reports whether a command found the claim's row taken (and failed with
// ErrClaimed).
func (c *Claim) Conflicted() bool { return c.flag(&c.conflict) }

// Replayed reports whether a command found the events of an earlier request with the key and
// the same hash, and returned them instead of deciding (Result.IdempotentReplay).
func (c *Claim) Replayed() bool { return c.flag(&c.replayed) }

// Reused reports whether a command found the key used by an earlier request with another hash
// (ErrIdempotencyKeyReused).
func (c *Claim) Reused() bool { return c.flag(&c.reused) }

func (c *Claim) flag(f *bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *f
}

func (c *Claim) set(f *bool) {
	c.mu.Lock()
	*f = true
	c.mu.Unlock()
}

type claimKey struct{}

// WithClaim gives a request's claim to the commands it runs.
func WithClaim(ctx context.Context, c *Claim) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

func claimFrom(ctx context.Context) *Claim {
	c, _ := ctx.Value(claimKey{}).(*Claim)
	return c
}

// Submit runs a command whose writes are all known once it has decided: decide raises events on
// the aggregate and queues the rest on w (rows, streams consulted). The events, the checks of
// the consulted streams, the rows and the request's claim (WithClaim) then go to PostgreSQL in
// one round trip, sharing a transaction with the commands submitted at the same time
// (postgres.Store.AppendWith, batcher): one round trip, shared, where a transaction held by the
// command would cost a BEGIN, a round trip per statement and a COMMIT.
//
// The aggregate, and the consulted streams, come from the cache without a read. The append's
// expected version and the checks catch a cache that fell behind another process: Submit then
// loads again and decides again. A refusal, or a decision to raise nothing, decided on a cached
// state, is confirmed on the streams' tails first, as in Execute. A decision that raises nothing
// but queues rows writes them, in one round trip with a check that the stream is still at the
// version decided on (a sign-in from a known browser records no event but starts a session). A unique violation named with
// OnUnique, or a violation named with OnViolation, fails the command with its error; commands
// on a stream take turns in the process.
//
// Changes of other streams carried in ctx (WithAlongside) are appended with the command's own
// events, after them, in the same round trip, even when the command itself raised nothing: an
// approval commits with the decision it approves. Result.Position is then the position of the
// last of them.
//
// As in Execute, a command whose metadata (or the request's claim) names an idempotency key
// found on the stream's events is answered with those events (Result.IdempotentReplay) when the
// request hash is the same, and refused with ErrIdempotencyKeyReused when it is not.
func Submit[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, meta eventstore.Metadata, decide func(A, *Writes) error) (Result, error) {
	if r.batches.pipe == nil {
		return Result{}, ErrNoPipeline
	}
	return run(ctx, r, stream, newAgg, meta, decide)
}

// run is Execute and Submit: the stream's turn, then load → decide → append until it stands or
// fails for good, reporting a replay or a reused key to the request's claim.
func run[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, meta eventstore.Metadata, decide func(A, *Writes) error) (Result, error) {
	if err := stream.Validate(); err != nil {
		return Result{}, err
	}
	claim := claimFrom(ctx)
	if claim != nil && meta.IdempotencyKey == "" {
		meta.IdempotencyKey, meta.RequestHash = claim.Key, claim.Hash
	}
	meta = withIDs(ctx, meta)
	unlock, err := r.locks.lock(ctx, stream)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	res, err := r.retrying(ctx, string(stream), func() (Result, error, error) {
		return runOnce(ctx, r, stream, newAgg, meta, decide)
	})
	claim.report(res, err)
	return res, err
}

// report tells the request's claim, when there is one, that a command answered it from an
// earlier request's events, or found its key used by another request.
func (c *Claim) report(res Result, err error) {
	switch {
	case c == nil:
	case res.IdempotentReplay:
		c.set(&c.replayed)
	case errors.Is(err, ErrIdempotencyKeyReused):
		c.set(&c.reused)
	}
}

// Earlier answers a request with a claim (WithClaim) whose key the stream's events already
// carry, as the command the request runs would (Result.IdempotentReplay, or
// ErrIdempotencyKeyReused), reading the stream's tail first; ok is false when ctx has no claim
// or the stream no such events. A request whose checks before its command rest on state its
// own first run changed asks when they refuse it: a repeated staff decision would otherwise be
// refused as "already decided" instead of getting its first answer.
func Earlier(ctx context.Context, r *Runner, stream eventstore.StreamID) (res Result, ok bool, err error) {
	claim := claimFrom(ctx)
	if claim == nil || claim.Key == "" {
		return Result{}, false, nil
	}
	h, cached, err := r.load(ctx, stream)
	if err == nil && cached {
		h, err = r.refresh(ctx, stream, h)
	}
	if err != nil {
		return Result{}, false, err
	}
	earlier, err := r.keyed(ctx, stream, h, claim.Key)
	if err != nil || len(earlier) == 0 {
		return Result{}, false, err
	}
	res, err = r.replay(ctx, stream, h, earlier, claim.Hash)
	claim.report(res, err)
	return res, true, err
}

// maxRedecisions bounds how often one attempt decides again because a stream it read from the
// cache had moved: streams that keep moving are a conflict like any other.
const maxRedecisions = 3

// runOnce is one load → decide → append. It reports what is worth retrying (an append
// conflict, a failed check, a deadlock) separately from other errors, so that an error decide
// returned is never retried, whatever it wraps. A command with no rows, checks or claim appends
// its events alone (Append); the others with them (AppendWith).
func runOnce[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, meta eventstore.Metadata, decide func(A, *Writes) error) (res Result, retry, err error) {
	h, cached, err := r.load(ctx, stream)
	if err != nil {
		return Result{}, nil, err
	}
	var (
		agg A
		w   *Writes
	)
	for n := 0; ; n++ {
		earlier, err := r.keyed(ctx, stream, h, meta.IdempotencyKey)
		if err != nil {
			return Result{}, nil, err
		}
		if len(earlier) > 0 {
			res, err := r.replay(ctx, stream, h, earlier, meta.RequestHash)
			return res, nil, err
		}
		if agg, err = lend(r, stream, newAgg, h); err != nil {
			return Result{}, nil, err
		}
		w = &Writes{ctx: ctx, r: r, own: stream}
		decideErr := decide(agg, w)
		if (decideErr != nil || len(agg.Changes()) == 0) && n < maxRedecisions {
			moved, err := refreshAll(ctx, r, stream, &h, &cached, w.consulted)
			if err != nil {
				return Result{}, nil, err
			}
			if moved {
				continue
			}
		}
		if decideErr != nil {
			settle(r, stream, agg)
			return Result{}, nil, decideErr
		}
		break
	}
	changes := agg.Changes()
	al, _ := ctx.Value(alongsideKey{}).(*Alongside)
	var appends []eventstore.StreamAppend
	if len(changes) > 0 {
		events, err := r.encode(stream, changes, meta)
		if err != nil {
			return Result{}, nil, err
		}
		appends = append(appends, eventstore.StreamAppend{Stream: stream, ExpectedVersion: agg.LoadedVersion(), Events: events})
	}
	if al != nil {
		more, err := al.streamAppends(r, stream, meta)
		if err != nil {
			return Result{}, nil, err
		}
		appends = append(appends, more...)
	}
	if len(appends) == 0 {
		settle(r, stream, agg)
		if len(w.with.Statements) == 0 {
			return Result{Version: agg.Version()}, nil, nil
		}
		return writeAlone(ctx, r, stream, agg.Version(), w)
	}
	claim := claimFrom(ctx)
	if claim != nil && claim.Committed() {
		claim = nil // the request's earlier command wrote it
	}
	with := w.with
	if claim != nil {
		with.Statements = append(slices.Clip(with.Statements), claim.Statement)
	}
	var stored []eventstore.Envelope
	if len(with.Statements) == 0 && len(with.Checks) == 0 {
		stored, err = r.batches.Append(ctx, appends...)
	} else {
		stored, err = r.batches.AppendWith(ctx, with, appends...)
	}
	if err != nil {
		settle(r, stream, agg)
		retry, err := w.failed(stream, err, claim)
		return Result{}, retry, err
	}
	if claim != nil {
		claim.set(&claim.committed)
	}
	if len(changes) > 0 {
		after := h.extended(stored[:len(changes)], changes)
		r.cache.put(stream, after)
		keepCommitted(ctx, r, stream, agg, after)
	} else {
		settle(r, stream, agg)
	}
	if al != nil {
		al.committed(r)
	}
	last := stored[len(stored)-1]
	return Result{Position: last.Position, Version: last.Version, Events: stored, Raised: changes}, nil, nil
}

// writeAlone sends the rows of a command that raised no event, with a check that its stream is
// still at the version it decided on, in one round trip: a sign-in from a known browser starts
// a session and records nothing. A stream that moved makes Submit decide again.
func writeAlone(ctx context.Context, r *Runner, stream eventstore.StreamID, version int64, w *Writes) (Result, error, error) {
	with := w.with
	with.Checks = append(slices.Clip(with.Checks), postgres.Check{Stream: stream, Version: version})
	if err := r.batches.pipe.WriteWith(ctx, with); err != nil {
		retry, err := w.failed(stream, err, nil)
		return Result{}, retry, err
	}
	return Result{Version: version}, nil, nil
}

// failed sorts out a command's failed round trip: a conflict or a deadlock is retried (retry),
// with what the cache held of the streams involved forgotten; a failed statement is the error
// named for it (statementError); anything else fails the command.
func (w *Writes) failed(stream eventstore.StreamID, err error, claim *Claim) (retry, _ error) {
	if errors.Is(err, eventstore.ErrConcurrency) || retryable(err) {
		w.r.cache.forget(stream)
		var ce *eventstore.ConcurrencyError
		if errors.As(err, &ce) {
			w.r.cache.forget(ce.Stream)
		}
		return err, nil
	}
	var se *postgres.StatementError
	if errors.As(err, &se) {
		return nil, w.statementError(se, claim)
	}
	return nil, fmt.Errorf("command on %s: %w", stream, err)
}

// Write sends writes that record no event (a one-time code and the e-mail that carries it, say)
// in one round trip, as Submit sends a command's: decide queues them on w, and a violation named
// with OnUnique or OnViolation fails Write with its error. Nothing is written when decide fails
// or queues nothing. A stream consulted (Consult) must still be at the version read, or Write
// fails with eventstore.ErrConcurrency.
func Write(ctx context.Context, r *Runner, decide func(*Writes) error) error {
	pipe, ok := r.store.(PipelineStore)
	if !ok {
		return ErrNoPipeline
	}
	w := &Writes{ctx: ctx, r: r}
	if err := decide(w); err != nil {
		return err
	}
	err := pipe.WriteWith(ctx, w.with)
	var se *postgres.StatementError
	if errors.As(err, &se) {
		return w.statementError(se, nil)
	}
	return err
}

// refreshAll reads the tails of a command's stream and of the streams it consulted that came
// from the cache, and reports whether any had moved.
func refreshAll(ctx context.Context, r *Runner, stream eventstore.StreamID, h **history, cached *bool, consulted []consulted) (bool, error) {
	moved := false
	if *cached {
		fresh, err := r.refresh(ctx, stream, *h)
		if err != nil {
			return false, err
		}
		if fresh != *h {
			*h, *cached, moved = fresh, false, true
		}
	}
	for _, c := range consulted {
		if !c.cached {
			continue
		}
		fresh, err := r.refresh(ctx, c.stream, c.h)
		if err != nil {
			return false, err
		}
		moved = moved || fresh != c.h
	}
	return moved, nil
}

// statementError turns a failed statement into the command's error: the claim's row taken, or
// a unique violation named with OnUnique, or else the failure itself.
func (w *Writes) statementError(se *postgres.StatementError, claim *Claim) error {
	var pg *pgconn.PgError
	unique := errors.As(se.Err, &pg) && pg.Code == sqlstateUniqueViolation
	if claim != nil && se.Index == len(w.with.Statements) {
		if unique && pg.ConstraintName == claim.Constraint {
			claim.set(&claim.conflict)
			return ErrClaimed
		}
		return fmt.Errorf("command: the request's claim: %w", se.Err)
	}
	if unique {
		if mapped, ok := w.unique[pg.ConstraintName]; ok {
			return mapped
		}
	}
	if pg != nil && strings.HasPrefix(pg.Code, "23") {
		if mapped, ok := w.violation[pg.ConstraintName]; ok {
			return mapped
		}
	}
	return fmt.Errorf("command: %w", se)
}

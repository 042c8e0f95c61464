package command

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
)

// ErrNoTransactions is returned by Update and InTx on a runner made without WithTransactions.
var ErrNoTransactions = errors.New("command: this runner cannot run commands in a transaction (WithTransactions)")

var errAppendedTwice = errors.New("command: a transaction appends once; pass every stream to one Append")

// Tx is the transaction of one attempt of a command run by Update or InTx. Its events go in with
// Append, first; the rows those events justify are written through the embedded pgx.Tx after
// that. The runner begins, commits and, on a conflict or deadlock, retries it: a Tx must not be
// committed, rolled back or kept after the function it was handed to returns.
type Tx struct {
	pgx.Tx
	r      *Runner
	meta   eventstore.Metadata
	loaded map[eventstore.StreamID]*history

	appended bool
	stored   []eventstore.Envelope
	updates  map[eventstore.StreamID]*history // to cache after the commit; nil: forget
	conflict error
}

// Change is one stream's part of an Append: the events its aggregate raised.
type Change struct {
	Stream    eventstore.StreamID
	Aggregate Aggregate
}

// Append appends the events the aggregates raised, each expecting the version its aggregate was
// loaded at, atomically, with the command's metadata. Call it once, before any other write of
// the transaction: positions come from the transaction's id, which the first write assigns, and
// the store's ordering guarantee needs the stream locks taken before that (eventstore.md,
// "Positions"). Aggregates that raised nothing are left out; if none raised anything, nothing
// is appended and Append may be called again.
func (t *Tx) Append(ctx context.Context, changes ...Change) error {
	if t.appended {
		return errAppendedTwice
	}
	if al, ok := ctx.Value(alongsideKey{}).(*Alongside); ok && al != nil {
		changes = append(changes, al.changes...)
		al.appended = true
	}
	var appends []eventstore.StreamAppend
	var raised [][]aggregate.Event
	for _, c := range changes {
		if err := c.Stream.Validate(); err != nil {
			return err
		}
		events := c.Aggregate.Changes()
		if len(events) == 0 {
			continue
		}
		encoded, err := t.r.encode(c.Stream, events, t.meta)
		if err != nil {
			return err
		}
		appends = append(appends, eventstore.StreamAppend{Stream: c.Stream, ExpectedVersion: c.Aggregate.LoadedVersion(), Events: encoded})
		raised = append(raised, events)
	}
	if len(appends) == 0 {
		return nil
	}
	t.appended = true
	stored, err := t.r.txStore.AppendTx(ctx, t.Tx, appends...)
	if errors.Is(err, eventstore.ErrConcurrency) {
		t.conflict = err
		return err
	}
	if err != nil {
		return fmt.Errorf("command: append: %w", err)
	}
	t.stored = stored
	t.updates = map[eventstore.StreamID]*history{}
	offset := 0
	for i, a := range appends {
		envs := stored[offset : offset+len(a.Events)]
		offset += len(a.Events)
		base := t.loaded[a.Stream]
		switch {
		case base != nil && base.version == a.ExpectedVersion:
		case a.ExpectedVersion == eventstore.NoStream:
			base = &history{}
		default:
			// An aggregate the runner did not load: what it was built from is unknown.
			t.updates[a.Stream] = nil
			continue
		}
		t.updates[a.Stream] = base.extended(envs, raised[i])
	}
	return nil
}

// Alongside carries changes of other streams that must commit with the next command run under
// its context, or not at all: an approval recorded on a proposal's stream commits in the very
// transaction that carries out the decision it approves, whichever service runs that decision
// (docs/security.md, "Separation of duties"). Tx.Append adds them to its own changes.
type Alongside struct {
	changes  []Change
	appended bool
}

type alongsideKey struct{}

// WithAlongside returns a context whose commands (Submit, Update and InTx; not Execute) append
// changes with their own, and the Alongside that tells whether one did.
func WithAlongside(ctx context.Context, changes ...Change) (context.Context, *Alongside) {
	al := &Alongside{changes: changes}
	return context.WithValue(ctx, alongsideKey{}, al), al
}

// streamAppends encodes the changes for a command run by Submit on stream, with its metadata.
// Changes that raised nothing are left out, as by Tx.Append.
func (a *Alongside) streamAppends(r *Runner, stream eventstore.StreamID, meta eventstore.Metadata) ([]eventstore.StreamAppend, error) {
	var out []eventstore.StreamAppend
	for _, c := range a.changes {
		if err := c.Stream.Validate(); err != nil {
			return nil, err
		}
		if c.Stream == stream {
			return nil, fmt.Errorf("command: %s is the command's own stream, not one to append alongside", stream)
		}
		events := c.Aggregate.Changes()
		if len(events) == 0 {
			continue
		}
		encoded, err := r.encode(c.Stream, events, meta)
		if err != nil {
			return nil, err
		}
		out = append(out, eventstore.StreamAppend{Stream: c.Stream, ExpectedVersion: c.Aggregate.LoadedVersion(), Events: encoded})
	}
	return out, nil
}

// committed records that a command run by Submit committed the changes. The runner did not
// load their aggregates, so what it has cached of their streams is forgotten, as by Tx.Append.
func (a *Alongside) committed(r *Runner) {
	a.appended = true
	for _, c := range a.changes {
		r.cache.forget(c.Stream)
	}
}

// Appended reports whether a transaction appended the changes. After a command that returned
// no error, false means it never reached Append, and the changes were not recorded.
func (a *Alongside) Appended() bool { return a.appended }

// InTx runs fn in one transaction and commits it, then announces the events fn appended.
// When an append conflicts or the transaction deadlocks, fn runs again in a new transaction,
// after the runner's backoff, up to the runner's attempts; any other error fn returns rolls the
// transaction back and is returned as it is. fn should decide on state read inside it (or
// through Update), since it may run more than once.
//
// fn must not use other connections while it holds the transaction: every command holds one
// connection at a time, or concurrent commands could exhaust the pool waiting for each other.
func (r *Runner) InTx(ctx context.Context, meta eventstore.Metadata, fn func(ctx context.Context, tx *Tx) error) (Result, error) {
	if r.db == nil {
		return Result{}, ErrNoTransactions
	}
	meta = withIDs(ctx, meta)
	return r.retrying(ctx, "transaction", func() (Result, error, error) {
		return r.inTxOnce(ctx, meta, nil, fn)
	})
}

// Update loads a stream's aggregate and runs fn on it in one transaction (InTx): fn decides,
// appends the aggregate's events with tx.Append, then writes the rows they justify, all of which
// commit together. The aggregate comes from the runner's cache after a read of the stream's
// tail, so fn decides on the stream as it is now even when it appends nothing; a conflict
// reloads it and runs fn again. Like Execute, it takes the stream's turn in this process.
func Update[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, meta eventstore.Metadata, fn func(ctx context.Context, agg A, tx *Tx) error) (Result, error) {
	if r.db == nil {
		return Result{}, ErrNoTransactions
	}
	if err := stream.Validate(); err != nil {
		return Result{}, err
	}
	meta = withIDs(ctx, meta)
	// The stream's turn is taken before any connection, so that waiting for it holds none.
	unlock, err := r.locks.lock(ctx, stream)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	return r.retrying(ctx, string(stream), func() (Result, error, error) {
		// Loaded before the transaction begins, so that no connection is held while reading.
		h, cached, err := r.load(ctx, stream)
		if err == nil && cached {
			h, err = r.refresh(ctx, stream, h)
		}
		if err != nil {
			return Result{}, nil, err
		}
		agg, err := lend(r, stream, newAgg, h)
		if err != nil {
			return Result{}, nil, err
		}
		res, retry, err := r.inTxOnce(ctx, meta, map[eventstore.StreamID]*history{stream: h}, func(ctx context.Context, tx *Tx) error {
			return fn(ctx, agg, tx)
		})
		if retry == nil && err == nil && len(agg.Changes()) > 0 {
			keepCommitted(ctx, r, stream, agg, r.cache.get(stream)) // the commit put its history there
		} else {
			settle(r, stream, agg)
		}
		return res, retry, err
	})
}

func (r *Runner) inTxOnce(ctx context.Context, meta eventstore.Metadata, loaded map[eventstore.StreamID]*history, fn func(context.Context, *Tx) error) (res Result, retry, err error) {
	ptx, err := r.db.Begin(ctx)
	if err != nil {
		return Result{}, nil, fmt.Errorf("command: begin: %w", err)
	}
	defer ptx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after the commit
	tx := &Tx{Tx: ptx, r: r, meta: meta, loaded: loaded}
	if err := fn(ctx, tx); err != nil {
		if tx.conflict != nil || retryable(err) {
			for stream := range loaded {
				r.cache.forget(stream)
			}
			if tx.conflict != nil {
				return Result{}, tx.conflict, nil
			}
			return Result{}, err, nil
		}
		return Result{}, nil, err
	}
	if err := ptx.Commit(ctx); err != nil {
		if retryable(err) {
			return Result{}, err, nil
		}
		return Result{}, nil, fmt.Errorf("command: commit: %w", err)
	}
	if len(tx.stored) == 0 {
		return Result{}, nil, nil
	}
	r.txStore.Announce()
	for stream, h := range tx.updates {
		if h == nil {
			r.cache.forget(stream)
		} else {
			r.cache.put(stream, h)
		}
	}
	last := tx.stored[len(tx.stored)-1]
	return Result{Position: last.Position, Version: last.Version, Events: tx.stored}, nil, nil
}

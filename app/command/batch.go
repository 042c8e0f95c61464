package command

import (
	"context"
	"errors"
	"slices"
	"sync"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

// defaultBatchStreams bounds how many commands share one append.
const defaultBatchStreams = 64

// defaultBatchAppenders is how many batch appends may run at once.
const defaultBatchAppenders = 2

// batcher lets the appends of commands that run at the same time share one store append: one
// transaction, one WAL flush and a handful of round trips for many commands instead of each.
// Appends to several streams are atomic, so the batch commits as a whole; what the commands see
// is what they would have seen alone: a command's events are stored exactly when its append
// succeeds, and an append that conflicts fails only its own command.
//
// Nothing waits for a batch to fill. A command that arrives while fewer than appenders appends
// run appends at once and leads; commands arriving while all of them run queue up, and when a
// leader is done the first queued command leads the next append with all of them (group
// commit). A lone command therefore appends exactly as it would without the batcher, and under
// load the batches grow by themselves. Two appends in flight rather than one keep both of a
// small machine's cores busy: PostgreSQL works on one batch while Go sends or answers the other.
type batcher struct {
	store eventstore.Store
	// pipe is the store, when it can append with statements (Submit's commands).
	pipe PipelineStore
	max  int
	// appenders bounds the appends running at once.
	appenders int

	mu      sync.Mutex
	queue   []*queued
	leaders int

	// joined, when set (by tests), runs right after a command has joined the queue.
	joined func(*queued)
}

type queued struct {
	// appends are the command's own stream first, then the streams whose changes commit with
	// it (Alongside).
	appends []eventstore.StreamAppend
	with    *postgres.With // nil: an append alone
	// appended and checked are the streams the command appends to and those it checks: no other
	// command of its batch may append to any of them (take).
	appended, checked []eventstore.StreamID

	done   chan struct{} // closed once the append's outcome is known
	turn   chan struct{} // closed to make this command lead the next batch
	turned bool          // the command leads, or has been told to (turn is closed)
	taken  bool
	stored []eventstore.Envelope
	err    error
}

func newBatcher(store eventstore.Store, streams, appenders int) *batcher {
	pipe, _ := store.(PipelineStore)
	return &batcher{store: store, pipe: pipe, max: streams, appenders: max(appenders, 1)}
}

// Append appends one command's events, possibly together with those of other commands. Once its
// append has been sent, it waits for the outcome even if ctx ends, since the events may commit.
// More than one append are one command's: they commit together or not at all.
func (b *batcher) Append(ctx context.Context, a ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	return b.appendWith(ctx, a, nil)
}

// AppendWith is Append with the checks and statements of w (postgres.Store.AppendWith), which
// commit with the command's events whichever batch they go in. A statement's failure comes back
// as a *postgres.StatementError indexed in w.Statements. The store must be a PipelineStore.
func (b *batcher) AppendWith(ctx context.Context, w postgres.With, a ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	if b.pipe == nil {
		return nil, ErrNoPipeline
	}
	return b.appendWith(ctx, a, &w)
}

func (b *batcher) appendWith(ctx context.Context, a []eventstore.StreamAppend, w *postgres.With) ([]eventstore.Envelope, error) {
	if b.max <= 1 {
		return b.send(ctx, []*queued{{appends: a, with: w}})
	}
	q := &queued{appends: a, with: w, done: make(chan struct{}), turn: make(chan struct{})}
	q.appended, q.checked = streamsOf(a, w)
	b.mu.Lock()
	b.queue = append(b.queue, q)
	if b.leaders < b.appenders {
		b.leaders++
		q.turned = true
	}
	lead := q.turned
	b.mu.Unlock()
	if b.joined != nil {
		b.joined(q)
	}
	if !lead && !b.await(ctx, q) {
		return q.stored, q.err
	}
	// Lead: append the queue's next batch until q's append has gone in one (this leader's or
	// another's), then pass the lead on to the first queued command without one, or give it up.
	for {
		b.flush(context.WithoutCancel(ctx), b.take())
		b.mu.Lock()
		if !q.taken {
			b.mu.Unlock()
			continue
		}
		if i := slices.IndexFunc(b.queue, func(o *queued) bool { return !o.turned }); i >= 0 {
			next := b.queue[i]
			next.turned = true
			close(next.turn)
		} else {
			b.leaders--
		}
		b.mu.Unlock()
		break
	}
	<-q.done
	return q.stored, q.err
}

// await waits until q's append is done (false) or q must lead (true): a command handed the
// lead holds one of the appenders' places and must lead even when its own append is done
// already. A command whose ctx ends while it is still queued leaves the queue.
func (b *batcher) await(ctx context.Context, q *queued) (lead bool) {
	select {
	case <-q.done:
	case <-q.turn:
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if q.turned {
		return true
	}
	select {
	case <-q.done:
		return false
	default:
	}
	if !q.taken {
		b.queue = slices.DeleteFunc(b.queue, func(o *queued) bool { return o == q })
		q.err = ctx.Err()
		close(q.done)
		return false
	}
	b.mu.Unlock()
	<-q.done
	b.mu.Lock()
	return q.turned
}

// take removes the next batch from the queue: queued appends in order, one per stream (two
// appends to one stream cannot share an append; the later one waits for the next batch).
// Commands take turns on a stream, so that happens only when a caller appends on its own. A
// stream a command checks cannot be appended to in the same batch either: the checks run after
// the appends, and would fail on the batch's own event. Commands that only check the same
// stream (every money command consults the settings) share a batch freely.
func (b *batcher) take() []*queued {
	b.mu.Lock()
	defer b.mu.Unlock()
	var batch []*queued
	appended, checked := map[eventstore.StreamID]bool{}, map[eventstore.StreamID]bool{}
	rest := b.queue[:0]
	for _, q := range b.queue {
		fits := len(batch) < b.max &&
			!slices.ContainsFunc(q.appended, func(s eventstore.StreamID) bool { return appended[s] || checked[s] }) &&
			!slices.ContainsFunc(q.checked, func(s eventstore.StreamID) bool { return appended[s] })
		if fits {
			for _, s := range q.appended {
				appended[s] = true
			}
			for _, s := range q.checked {
				checked[s] = true
			}
			q.taken = true
			batch = append(batch, q)
		} else {
			rest = append(rest, q)
		}
	}
	clear(b.queue[len(rest):])
	b.queue = rest
	return batch
}

// flush appends a batch and hands each command its outcome. When the batch fails on one
// stream's expected version, that command gets the conflict and the others are appended again
// without it; any other failure is isolated by appending each command alone.
func (b *batcher) flush(ctx context.Context, batch []*queued) {
	for len(batch) > 0 {
		stored, err := b.send(ctx, batch)
		if err == nil {
			for _, q := range batch {
				n := q.events()
				b.finish(q, stored[:n:n], nil)
				stored = stored[n:]
			}
			return
		}
		if len(batch) == 1 {
			b.finish(batch[0], nil, err)
			return
		}
		var ce *eventstore.ConcurrencyError
		if errors.As(err, &ce) {
			if i := slices.IndexFunc(batch, func(q *queued) bool { return q.expects(ce.Stream, ce.Expected) }); i >= 0 {
				b.finish(batch[i], nil, err)
				batch = slices.Delete(batch, i, i+1)
				continue
			}
		}
		var se *postgres.StatementError
		if errors.As(err, &se) {
			if i, local := statementOwner(batch, se.Index); i >= 0 {
				b.finish(batch[i], nil, &postgres.StatementError{Index: local, Err: se.Err})
				batch = slices.Delete(batch, i, i+1)
				continue
			}
		}
		for _, q := range batch {
			b.flush(ctx, []*queued{q})
		}
		return
	}
}

// send appends a batch in one store call: with the commands' checks and statements, in order,
// when any has some.
func (b *batcher) send(ctx context.Context, batch []*queued) ([]eventstore.Envelope, error) {
	var appends []eventstore.StreamAppend
	var with *postgres.With
	for _, q := range batch {
		appends = append(appends, q.appends...)
		if q.with != nil {
			if with == nil {
				with = &postgres.With{}
			}
			with.Checks = append(with.Checks, q.with.Checks...)
			with.Statements = append(with.Statements, q.with.Statements...)
		}
	}
	if with == nil {
		return b.store.Append(ctx, appends...)
	}
	return b.pipe.AppendWith(ctx, *with, appends...)
}

// statementOwner finds the command of a batch whose statements include the batch's statement
// index, and that statement's index among the command's own; -1 if none.
func statementOwner(batch []*queued, index int) (owner, local int) {
	for i, q := range batch {
		if q.with == nil {
			continue
		}
		if index < len(q.with.Statements) {
			return i, index
		}
		index -= len(q.with.Statements)
	}
	return -1, 0
}

// expects reports whether the command expects stream at version, by an append or a check: a
// conflict on it is the command's. Several commands of a batch may check one stream; the one
// whose expectation failed is the one that gets the conflict.
func (q *queued) expects(stream eventstore.StreamID, version int64) bool {
	for _, a := range q.appends {
		if a.Stream == stream && a.ExpectedVersion == version {
			return true
		}
	}
	if q.with != nil {
		for _, c := range q.with.Checks {
			if c.Stream == stream && c.Version == version {
				return true
			}
		}
	}
	return false
}

// events counts the events of a command's appends.
func (q *queued) events() int {
	n := 0
	for _, a := range q.appends {
		n += len(a.Events)
	}
	return n
}

// streamsOf lists the streams a command appends to, and those it checks.
func streamsOf(appends []eventstore.StreamAppend, w *postgres.With) (appended, checked []eventstore.StreamID) {
	for _, a := range appends {
		appended = append(appended, a.Stream)
	}
	if w != nil {
		for _, c := range w.Checks {
			checked = append(checked, c.Stream)
		}
	}
	return appended, checked
}

func (b *batcher) finish(q *queued, stored []eventstore.Envelope, err error) {
	q.stored, q.err = stored, err
	close(q.done)
}

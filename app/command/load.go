package command

import (
	"context"
	"fmt"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
)

// Load rebuilds the current state of a stream into an aggregate of the caller's own. An unknown
// stream gives a fresh aggregate at version 0. A cached stream costs one read of its tail, which
// is usually empty, and a replay (from its snapshot, for a stream that has one); Read costs
// neither.
func Load[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A) (A, error) {
	h, cached, err := r.load(ctx, stream)
	if err == nil && cached {
		h, err = r.refresh(ctx, stream, h)
	}
	if err != nil {
		var zero A
		return zero, err
	}
	return build(newAgg, h)
}

// Read lends the stream's current state to f, which reads it: the cache's built aggregate when
// there is one, so reading a long stream costs neither a restore from its snapshot nor a replay;
// else one built for f, which the cache keeps for the stream's next command. Whatever f raises
// on it is discarded with it. f must not keep the aggregate, or anything sharing its memory,
// past its return: the next command changes it. Load gives an aggregate of the caller's own.
func Read[A Aggregate](ctx context.Context, r *Runner, stream eventstore.StreamID, newAgg func() A, f func(A) error) error {
	h, cached, err := r.load(ctx, stream)
	if err == nil && cached {
		h, err = r.refresh(ctx, stream, h)
	}
	if err != nil {
		return err
	}
	agg, err := lend(r, stream, newAgg, h)
	if err != nil {
		return err
	}
	defer settle(r, stream, agg)
	return f(agg)
}

// Position returns the global position of a stream's last event, 0 for a stream without events,
// as fresh as Load (a cached stream costs one read of its tail). A query that waits for the read
// models to pass it sees everything the stream holds now, without waiting for anyone else's
// later events (docs/architecture.md, "Read-your-writes").
func Position(ctx context.Context, r *Runner, stream eventstore.StreamID) (int64, error) {
	h, cached, err := r.load(ctx, stream)
	if err == nil && cached {
		h, err = r.refresh(ctx, stream, h)
	}
	if err != nil {
		return 0, err
	}
	return h.position, nil
}

// lend returns the aggregate of a stream at h for a command holding the stream's turn, or for
// Read: the cache's built one when it is at h, else h replayed into newAgg(). Hand it back with
// settle. While it is lent, another command of the stream builds its own.
func lend[A Aggregate](r *Runner, stream eventstore.StreamID, newAgg func() A, h *history) (A, error) {
	if built, ok := r.cache.borrow(stream, h).(A); ok {
		return built, nil
	}
	return build(newAgg, h)
}

// settle ends a loan of agg that committed nothing of it: the cache keeps agg only if it raised
// nothing. A command whose events were stored hands agg back with keepCommitted.
func settle(r *Runner, stream eventstore.StreamID, agg Aggregate) {
	if len(agg.Changes()) > 0 {
		return
	}
	r.cache.giveBack(stream, agg)
}

// keepCommitted ends the loan of agg once its command's events are stored; after is the stream's
// history the cache holds now, with them. agg's changes become history, a stream that grew by
// the snapshot interval gets its snapshot (taken before the cache gets agg back, since a reader
// may borrow it from then on), and the cache keeps agg as the stream's state.
func keepCommitted(ctx context.Context, r *Runner, stream eventstore.StreamID, agg Aggregate, after *history) {
	aggregate.Load(agg, agg.Version())
	if after != nil && after.version == agg.Version() {
		r.maybeSnapshot(ctx, stream, agg, after)
	}
	r.cache.giveBack(stream, agg)
}

// build replays a history into a fresh aggregate, restoring the snapshot it starts from first.
func build[A Aggregate](newAgg func() A, h *history) (A, error) {
	agg := newAgg()
	if h.snap != nil {
		s, ok := any(agg).(Snapshotter)
		if !ok || s.SnapshotKind() != h.snap.kind {
			var zero A
			return zero, fmt.Errorf("command: %T cannot restore a %s snapshot", agg, h.snap.kind)
		}
		if err := s.UnmarshalState(h.snap.state); err != nil {
			var zero A
			return zero, fmt.Errorf("command: %w", err)
		}
	}
	replay(agg, h)
	return agg, nil
}

// replay applies h's events to agg, which holds the state h starts from.
func replay(agg Aggregate, h *history) {
	aggregate.Load(agg, h.version, h.events...)
	if s, ok := any(agg).(StreamStarter); ok && !h.started.IsZero() {
		s.StreamStarted(h.started)
	}
}

// load returns the stream's history from the cache (cached is then true, and the history may be
// behind the store), or else read from the store.
func (r *Runner) load(ctx context.Context, stream eventstore.StreamID) (h *history, cached bool, err error) {
	if h := r.cache.get(stream); h != nil {
		return h, true, nil
	}
	var restored Snapshotter
	if newAgg, ok := r.snapshotAggregate(stream); ok {
		h, restored, err = r.readFromSnapshot(ctx, stream, newAgg)
	} else {
		h, err = r.readAfter(ctx, stream, &history{})
	}
	if err != nil {
		return nil, false, err
	}
	r.cache.put(stream, h)
	if restored != nil { // the aggregate built from the snapshot serves the stream's next command
		r.cache.giveBack(stream, restored)
	}
	return h, false, nil
}

// refresh reads what was appended to the stream after h. It returns h itself when nothing was.
func (r *Runner) refresh(ctx context.Context, stream eventstore.StreamID, h *history) (*history, error) {
	fresh, err := r.readAfter(ctx, stream, h)
	if err != nil {
		r.cache.forget(stream)
		return nil, err
	}
	if fresh != h {
		r.cache.put(stream, fresh)
	}
	return fresh, nil
}

// readAfter reads the events after base page by page and returns base extended with them. A
// page shorter than the page size is taken as the end of the stream, which both stores
// guarantee; and were a store ever to return less, a command would still be safe, since its
// append expects the version it loaded and would conflict. A gap in the versions means the
// store is broken, and fails the load rather than decide on a state with a hole in it.
func (r *Runner) readAfter(ctx context.Context, stream eventstore.StreamID, base *history) (*history, error) {
	h := base
	for {
		page, err := r.store.ReadStream(ctx, stream, h.version+1, r.pageSize)
		if err != nil {
			return nil, fmt.Errorf("command: load %s: %w", stream, err)
		}
		if len(page) == 0 {
			return h, nil
		}
		if h, err = r.extendPage(stream, h, page); err != nil {
			return nil, err
		}
		if len(page) < r.pageSize {
			return h, nil
		}
	}
}

// extendPage returns h followed by a page of its stream's events, which must continue it.
func (r *Runner) extendPage(stream eventstore.StreamID, h *history, page []eventstore.Envelope) (*history, error) {
	events := make([]aggregate.Event, len(page))
	for i, env := range page {
		if env.Version != h.version+int64(i)+1 {
			return nil, fmt.Errorf("command: load %s: version %d follows %d", stream, env.Version, h.version+int64(i))
		}
		var err error
		if events[i], err = r.codec.Decode(env); err != nil {
			return nil, fmt.Errorf("command: load %s: %w", stream, err)
		}
	}
	return h.extended(page, events), nil
}

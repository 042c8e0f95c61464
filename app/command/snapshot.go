package command

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"time"

	"clearvest/eventstore"
)

// Snapshotter is an aggregate whose state can be saved and restored, so that a long stream
// loads from its latest snapshot and the events after it (WithSnapshots).
type Snapshotter interface {
	Aggregate
	// SnapshotKind names the state's format; a snapshot of another kind is never restored.
	SnapshotKind() string
	// MarshalState returns the state at LoadedVersion, with no changes pending.
	MarshalState() ([]byte, error)
	// UnmarshalState restores a fresh aggregate to what MarshalState returned.
	UnmarshalState([]byte) error
}

// WithSnapshots saves a snapshot of a stream of one of the categories newAgg names whenever a
// command leaves it at least every events past its latest one (and past the first every), and
// loads such streams from their snapshot. newAgg makes the stream's empty aggregate. A snapshot
// only shortens loading: the events stay the truth, and a snapshot that cannot be used is read
// past. The store must keep snapshots (eventstore.SnapshotStore).
func WithSnapshots(every int, newAgg map[string]func(eventstore.StreamID) Snapshotter) Option {
	return func(r *Runner) {
		s, ok := r.store.(eventstore.SnapshotStore)
		if !ok {
			panic("command: WithSnapshots needs a store that keeps snapshots")
		}
		r.snapshots, r.snapshotEvery, r.snapshotted = s, max(every, 1), newAgg
	}
}

// snapshotBase is what a history that starts from a snapshot has of the events before it.
type snapshotBase struct {
	kind  string
	state []byte // opened
	keys  keyPrints
}

// keyPrints are the idempotency keys of the events a snapshot covers, as 64-bit fingerprints
// with their events' versions, sorted. A key whose fingerprint is not there is not among those
// events; one that is costs a read of the events it points to, which confirm or deny it.
type keyPrints []keyPrint

type keyPrint struct {
	print   uint64
	version int64
}

func fingerprint(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key)) //nolint:errcheck // hashes never fail
	return h.Sum64()
}

// versionsOf returns the versions of the events whose key has key's fingerprint.
func (k keyPrints) versionsOf(key string) []int64 {
	p := fingerprint(key)
	i, _ := slices.BinarySearchFunc(k, p, func(e keyPrint, p uint64) int { return cmp.Compare(e.print, p) })
	var out []int64
	for ; i < len(k) && k[i].print == p; i++ {
		out = append(out, k[i].version)
	}
	return out
}

func (k keyPrints) encode() []byte {
	out := make([]byte, 0, 16*len(k))
	for _, e := range k {
		out = binary.LittleEndian.AppendUint64(out, e.print)
		out = binary.LittleEndian.AppendUint64(out, uint64(e.version))
	}
	return out
}

func decodeKeyPrints(b []byte) (keyPrints, error) {
	if len(b)%16 != 0 {
		return nil, errors.New("the snapshot's keys are damaged")
	}
	out := make(keyPrints, len(b)/16)
	for i := range out {
		out[i] = keyPrint{binary.LittleEndian.Uint64(b[16*i:]), int64(binary.LittleEndian.Uint64(b[16*i+8:]))}
		if i > 0 && compareKeyPrint(out[i-1], out[i]) > 0 {
			return nil, errors.New("the snapshot's keys are out of order")
		}
	}
	return out, nil
}

func compareKeyPrint(a, b keyPrint) int {
	return cmp.Or(cmp.Compare(a.print, b.print), cmp.Compare(a.version, b.version))
}

// keyPrints lists the keyed events of h: the snapshot's and those after it.
func (h *history) keyPrints() keyPrints {
	var out keyPrints
	if h.snap != nil {
		out = append(out, h.snap.keys...)
	}
	add := func(k keyRef) {
		if k.version > h.base && k.version <= h.version {
			out = append(out, keyPrint{fingerprint(k.key), k.version})
		}
	}
	if h.keys != nil {
		h.keys.mu.RLock()
		for _, refs := range h.keys.refs {
			for _, k := range refs {
				add(k)
			}
		}
		h.keys.mu.RUnlock()
	}
	for _, k := range h.pending {
		add(k)
	}
	slices.SortFunc(out, compareKeyPrint)
	return slices.CompactFunc(out, func(a, b keyPrint) bool { return a == b })
}

// snapshotAggregate returns the constructor of stream's aggregate when its category keeps
// snapshots.
func (r *Runner) snapshotAggregate(stream eventstore.StreamID) (func(eventstore.StreamID) Snapshotter, bool) {
	if r.snapshots == nil {
		return nil, false
	}
	newAgg, ok := r.snapshotted[stream.Category()]
	return newAgg, ok
}

// readFromSnapshot loads a stream from its latest usable snapshot and the events after it, and
// returns the aggregate it restored, at the history's version (nil without a snapshot). A
// snapshot that cannot be used is logged and the stream read in full.
func (r *Runner) readFromSnapshot(ctx context.Context, stream eventstore.StreamID, newAgg func(eventstore.StreamID) Snapshotter) (*history, Snapshotter, error) {
	agg := newAgg(stream)
	snap, page, err := r.snapshots.ReadFromSnapshot(ctx, stream, agg.SnapshotKind(), r.pageSize)
	if err != nil {
		return nil, nil, fmt.Errorf("command: load %s: %w", stream, err)
	}
	if snap == nil {
		h, err := r.extendRead(ctx, stream, &history{}, page)
		return h, nil, err
	}
	// The snapshot and the page were read in one transaction, so the page continues it.
	base, err := r.restore(stream, snap, agg)
	if err != nil {
		level := slog.LevelWarn
		if errors.Is(err, eventstore.ErrErased) {
			level = slog.LevelDebug // the subject's data is gone; the events replay with it erased
		}
		r.logger.Log(ctx, level, "command: snapshot not used", "stream", stream, "version", snap.Version, "err", err)
		h, err := r.readAfter(ctx, stream, &history{})
		return h, nil, err
	}
	h, err := r.extendRead(ctx, stream, base, page)
	if err != nil {
		return nil, nil, err
	}
	replay(agg, h)
	return h, agg, nil
}

// extendRead extends h with the first page of events after it, and reads on when the page was
// full.
func (r *Runner) extendRead(ctx context.Context, stream eventstore.StreamID, h *history, page []eventstore.Envelope) (*history, error) {
	if len(page) == 0 {
		return h, nil
	}
	h, err := r.extendPage(stream, h, page)
	if err != nil || len(page) < r.pageSize {
		return h, err
	}
	return r.readAfter(ctx, stream, h)
}

// restore opens a snapshot and restores it into agg, a fresh aggregate, returning the history
// the snapshot starts.
func (r *Runner) restore(stream eventstore.StreamID, snap *eventstore.Snapshot, agg Snapshotter) (*history, error) {
	state, err := r.codec.OpenState(stream, snap.State)
	if err != nil {
		return nil, err
	}
	keys, err := decodeKeyPrints(snap.Keys)
	if err != nil {
		return nil, err
	}
	if err := agg.UnmarshalState(state); err != nil {
		return nil, err
	}
	h := &history{
		version: snap.Version, position: snap.Position, started: snap.Started, base: snap.Version,
		snap: &snapshotBase{kind: snap.Kind, state: state, keys: keys},
	}
	return h, nil
}

// maybeSnapshot saves a snapshot of agg, which a command just left at h, when the stream has
// grown by the interval since its latest one. The state is taken now, before the cache gets agg
// back and another command changes it; compressing, sealing and writing it (most of the cost for
// a long account) happen after, off the command's path,
// so that the command that crosses the interval answers as fast as the others. A snapshot that
// cannot be saved is logged and tried again an interval later: the command's own result stands
// either way. SnapshotsSaved waits for the saves under way.
func (r *Runner) maybeSnapshot(ctx context.Context, stream eventstore.StreamID, agg Aggregate, h *history) {
	every := int64(r.snapshotEvery)
	if h.version-h.base < every { // most commands: a short stream, or one loaded from a recent snapshot
		return
	}
	if _, ok := r.snapshotAggregate(stream); !ok {
		return
	}
	s, ok := agg.(Snapshotter)
	if !ok || agg.Version() != h.version || h.version-r.cache.lastSnapshot(stream) < every {
		return
	}
	r.cache.snapshotSeen(stream, h.version)
	logFailure := func(err error) {
		if !errors.Is(err, eventstore.ErrErased) {
			r.logger.WarnContext(ctx, "command: snapshot not saved", "stream", stream, "version", h.version, "err", err)
		}
	}
	state, err := s.MarshalState()
	if err != nil {
		logFailure(err)
		return
	}
	snap := eventstore.Snapshot{Stream: stream, Version: h.version, Position: h.position, Kind: s.SnapshotKind(),
		Started: h.started, Keys: h.keyPrints().encode()}
	r.saving.Add(1)
	go func() {
		defer r.saving.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotSaveTimeout)
		defer cancel()
		kept, err := r.codec.SealState(stream, state)
		if err == nil {
			snap.State = kept
			err = r.snapshots.SaveSnapshot(ctx, snap)
		}
		if err != nil {
			logFailure(err)
		}
	}()
}

// snapshotSaveTimeout bounds a snapshot's save, which no request waits for.
const snapshotSaveTimeout = 30 * time.Second

// SnapshotsSaved waits until the snapshots being saved after commands are written (or have
// failed): serve calls it on its way out, and a test before it looks for them.
func (r *Runner) SnapshotsSaved() { r.saving.Wait() }

// keyedBefore returns the events of the snapshot h starts from that carry key, read from the
// store, since the history holds only the events after it.
func (r *Runner) keyedBefore(ctx context.Context, stream eventstore.StreamID, h *history, key string) ([]keyRef, error) {
	if h.snap == nil || key == "" {
		return nil, nil
	}
	versions := h.snap.keys.versionsOf(key)
	if len(versions) == 0 {
		return nil, nil
	}
	slices.Sort(versions)
	first, last := versions[0], versions[len(versions)-1]
	envs, err := r.store.ReadStream(ctx, stream, first, int(last-first+1))
	if err != nil {
		return nil, fmt.Errorf("command: keys of %s: %w", stream, err)
	}
	var out []keyRef
	for _, env := range envs {
		if env.Version <= h.base && env.Metadata.IdempotencyKey == key {
			out = append(out, keyRef{key: key, hash: env.Metadata.RequestHash, version: env.Version})
		}
	}
	return out, nil
}

// keyed returns the events of h's stream that carry key: those h holds, and those before the
// snapshot it starts from.
func (r *Runner) keyed(ctx context.Context, stream eventstore.StreamID, h *history, key string) ([]keyRef, error) {
	after := h.keyed(key)
	before, err := r.keyedBefore(ctx, stream, h, key)
	if err != nil || len(before) == 0 {
		return after, err
	}
	return append(before, after...), nil
}

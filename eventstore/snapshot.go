package eventstore

import (
	"context"
	"fmt"
	"time"
)

// Snapshot is a stream's aggregate state saved at a version, so that loading a long stream reads
// the snapshot and the events after it instead of every event. It is a cache and never the
// truth: the events stay, a snapshot may be dropped at any time, and one that cannot be used (of
// another kind, damaged, or sealed for a subject since erased) is ignored and the stream read in
// full.
type Snapshot struct {
	Stream  StreamID
	Version int64
	// Position is the global position of the stream's event at Version.
	Position int64
	// Kind names the aggregate's state format; a loader asks for the kind it can restore.
	Kind string
	// Started is when the stream's first event was recorded, which the events after the
	// snapshot no longer tell.
	Started time.Time
	// State is the aggregate's state, sealed for the stream's data subject (Registry.SealState).
	State []byte
	// Keys lists the idempotency keys of the events at or below Version, as the command runner
	// encodes them, so a request retried after the snapshot is still recognised.
	Keys []byte
}

// SnapshotStore is a Store that keeps snapshots.
type SnapshotStore interface {
	Store
	// ReadFromSnapshot returns the stream's snapshot of kind (nil when there is none) and up to
	// limit events after it, or after version 0 without one, in one read. The events continue
	// the snapshot's version without a gap unless a newer snapshot was saved in between; a
	// caller checks, and reads on from the snapshot's version when they do not.
	ReadFromSnapshot(ctx context.Context, stream StreamID, kind string, limit int) (*Snapshot, []Envelope, error)
	// SaveSnapshot keeps s unless the stream has a snapshot of the same kind at a later version.
	SaveSnapshot(ctx context.Context, s Snapshot) error
}

// A snapshot's state starts with one byte saying how the rest is kept.
const (
	statePlain  byte = 0
	stateSealed byte = 1
)

// SealState prepares an aggregate's state for a snapshot of stream: sealed for the stream's
// data subject, as personal fields are, so erasing the subject's key leaves it unreadable too.
// Without a cipher (tests and tools) it is kept as it is. Seal fails with ErrErased for an
// erased subject: no snapshot outlives an erasure.
func (r *Registry) SealState(stream StreamID, state []byte) ([]byte, error) {
	r.mu.RLock()
	cipher := r.cipher
	r.mu.RUnlock()
	if cipher == nil {
		return append([]byte{statePlain}, state...), nil
	}
	sealed, err := cipher.Seal(stream.ID(), string(state))
	if err != nil {
		return nil, fmt.Errorf("eventstore: seal the snapshot of %s: %w", stream, err)
	}
	return append([]byte{stateSealed}, sealed...), nil
}

// OpenState returns the state SealState prepared. It fails with ErrErased once the subject's
// data was erased, and with ErrNoCipher for a sealed state read without a cipher.
func (r *Registry) OpenState(stream StreamID, kept []byte) ([]byte, error) {
	if len(kept) == 0 {
		return nil, fmt.Errorf("eventstore: the snapshot of %s is empty", stream)
	}
	switch kept[0] {
	case statePlain:
		return kept[1:], nil
	case stateSealed:
		r.mu.RLock()
		cipher := r.cipher
		r.mu.RUnlock()
		if cipher == nil {
			return nil, ErrNoCipher
		}
		plain, err := cipher.Open(stream.ID(), string(kept[1:]))
		if err != nil {
			return nil, fmt.Errorf("eventstore: open the snapshot of %s: %w", stream, err)
		}
		return []byte(plain), nil
	default:
		return nil, fmt.Errorf("eventstore: the snapshot of %s is kept in an unknown way (%d)", stream, kept[0])
	}
}

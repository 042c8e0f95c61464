package eventstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
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
	stateSealed byte = 1 // sealed as text (FieldCipher.Seal), as the first snapshots were
	stateBinary byte = 2 // sealed as bytes (BinaryCipher), as snapshots were before compression
	// Compressed with zstd, then kept as it is (without a cipher) or sealed as bytes. A
	// 10,194-event account's state is 1.23 MB and compresses about five times (237 KB): reading
	// it on a cold load went from 5 to 6 ms to 1.2 to 2.5 ms, and each save writes a fifth as
	// much (docs/benchmarks.md, "Cost as history grows"). Compression comes before sealing,
	// which leaves nothing to compress; no one but the platform writes a state, so its length
	// tells no one anything.
	statePlainZstd  byte = 3
	stateBinaryZstd byte = 4
)

// maxState bounds what a compressed state may decompress to: damaged bytes fail the snapshot,
// which is then ignored, rather than exhaust memory.
const maxState = 1 << 30

// The zstd encoder and decoder are safe for concurrent EncodeAll and DecodeAll and hold buffers
// worth keeping between snapshots.
var (
	stateEncoder = sync.OnceValue(func() *zstd.Encoder {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			panic(err) // only for invalid options, which are fixed here
		}
		return enc
	})
	stateDecoder = sync.OnceValue(func() *zstd.Decoder {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxState))
		if err != nil {
			panic(err) // only for invalid options, which are fixed here
		}
		return dec
	})
)

// BinaryCipher is a FieldCipher that also seals bytes as bytes. A snapshot's state is large
// (hundreds of kilobytes for a long account): sealed as text, its encoding was a third of its
// size and a tenth of the time it took to load.
type BinaryCipher interface {
	SealBytes(subject string, plaintext []byte) ([]byte, error)
	OpenBytes(subject string, sealed []byte) ([]byte, error)
}

// SealState prepares an aggregate's state for a snapshot of stream: sealed for the stream's
// data subject, as personal fields are, so erasing the subject's key leaves it unreadable too.
// Without a cipher (tests and tools) it is kept as it is. Seal fails with ErrErased for an
// erased subject: no snapshot outlives an erasure.
func (r *Registry) SealState(stream StreamID, state []byte) ([]byte, error) {
	r.mu.RLock()
	cipher := r.cipher
	r.mu.RUnlock()
	if cipher == nil {
		return stateEncoder().EncodeAll(state, []byte{statePlainZstd}), nil
	}
	if bc, ok := cipher.(BinaryCipher); ok {
		sealed, err := bc.SealBytes(stream.ID(), stateEncoder().EncodeAll(state, nil))
		if err != nil {
			return nil, fmt.Errorf("eventstore: seal the snapshot of %s: %w", stream, err)
		}
		return append([]byte{stateBinaryZstd}, sealed...), nil
	}
	// A cipher that seals only text keeps the first snapshots' format.
	sealed, err := cipher.Seal(stream.ID(), string(state))
	if err != nil {
		return nil, fmt.Errorf("eventstore: seal the snapshot of %s: %w", stream, err)
	}
	return append([]byte{stateSealed}, sealed...), nil
}

// OpenState returns the state SealState prepared. It fails with ErrErased once the subject's
// data was erased, and with ErrNoCipher for a sealed state read without a cipher (or one sealed
// as bytes, read with a cipher that cannot open bytes).
func (r *Registry) OpenState(stream StreamID, kept []byte) ([]byte, error) {
	if len(kept) == 0 {
		return nil, fmt.Errorf("eventstore: the snapshot of %s is empty", stream)
	}
	switch kept[0] {
	case statePlain:
		return kept[1:], nil
	case statePlainZstd:
		return decompressState(stream, kept[1:])
	}
	r.mu.RLock()
	cipher := r.cipher
	r.mu.RUnlock()
	var (
		plain []byte
		err   error
	)
	switch bc, binary := cipher.(BinaryCipher); {
	case kept[0] != stateSealed && kept[0] != stateBinary && kept[0] != stateBinaryZstd:
		return nil, fmt.Errorf("eventstore: the snapshot of %s is kept in an unknown way (%d)", stream, kept[0])
	case cipher == nil, kept[0] != stateSealed && !binary:
		return nil, ErrNoCipher
	case kept[0] == stateSealed:
		var text string
		text, err = cipher.Open(stream.ID(), string(kept[1:]))
		plain = []byte(text)
	default:
		plain, err = bc.OpenBytes(stream.ID(), kept[1:])
	}
	if err != nil {
		return nil, fmt.Errorf("eventstore: open the snapshot of %s: %w", stream, err)
	}
	if kept[0] == stateBinaryZstd {
		return decompressState(stream, plain)
	}
	return plain, nil
}

func decompressState(stream StreamID, compressed []byte) ([]byte, error) {
	state, err := stateDecoder().DecodeAll(compressed, nil)
	if err != nil {
		return nil, fmt.Errorf("eventstore: decompress the snapshot of %s: %w", stream, err)
	}
	return state, nil
}

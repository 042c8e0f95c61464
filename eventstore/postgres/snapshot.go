package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
)

var _ eventstore.SnapshotStore = (*Store)(nil)

// ReadFromSnapshot implements eventstore.SnapshotStore: the snapshot and the events after it go
// out as one pipelined batch, one round trip, in one repeatable-read transaction so that the
// events continue the very snapshot read.
func (s *Store) ReadFromSnapshot(ctx context.Context, stream eventstore.StreamID, kind string, limit int) (*eventstore.Snapshot, []eventstore.Envelope, error) {
	batch := &pgx.Batch{}
	batch.Queue(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`)
	batch.Queue(`SELECT version, position, started, state, keys FROM snapshots WHERE stream_id = $1 AND kind = $2`, string(stream), kind)
	batch.Queue(`SELECT `+selectColumns+` FROM events WHERE stream_id = $1
		AND version > coalesce((SELECT version FROM snapshots WHERE stream_id = $1 AND kind = $2), 0)
		ORDER BY version LIMIT $3`, string(stream), kind, limit)
	batch.Queue(`COMMIT`)
	br := s.pool.SendBatch(ctx, batch)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, nil, fmt.Errorf("eventstore: read snapshot of %s: %w", stream, err)
	}
	snap := &eventstore.Snapshot{Stream: stream, Kind: kind}
	err := br.QueryRow().Scan(&snap.Version, &snap.Position, &snap.Started, &snap.State, &snap.Keys)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		snap = nil
	case err != nil:
		return nil, nil, fmt.Errorf("eventstore: read snapshot of %s: %w", stream, err)
	default:
		snap.Started = snap.Started.UTC()
	}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("eventstore: read stream after its snapshot: %w", err)
	}
	events, err := scanEnvelopes(rows, min(limit, 16))
	if err != nil {
		return nil, nil, err
	}
	if _, err := br.Exec(); err != nil {
		return nil, nil, fmt.Errorf("eventstore: read snapshot of %s: %w", stream, err)
	}
	return snap, events, br.Close()
}

// SaveSnapshot implements eventstore.SnapshotStore.
func (s *Store) SaveSnapshot(ctx context.Context, snap eventstore.Snapshot) error {
	if err := snap.Stream.Validate(); err != nil {
		return err
	}
	if snap.Version < 1 || snap.Kind == "" || snap.State == nil {
		return fmt.Errorf("eventstore: a snapshot of %s needs a version, a kind and a state", snap.Stream)
	}
	keys := snap.Keys
	if keys == nil {
		keys = []byte{}
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO snapshots AS s (stream_id, version, position, kind, started, state, keys)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, position = EXCLUDED.position, kind = EXCLUDED.kind,
		  started = EXCLUDED.started, state = EXCLUDED.state, keys = EXCLUDED.keys, saved_at = now()
		WHERE s.kind <> EXCLUDED.kind OR s.version < EXCLUDED.version`,
		string(snap.Stream), snap.Version, snap.Position, snap.Kind, snap.Started, snap.State, keys)
	if err != nil {
		return fmt.Errorf("eventstore: save snapshot of %s: %w", snap.Stream, err)
	}
	return nil
}

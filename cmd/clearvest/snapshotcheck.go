package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/account"
	"clearvest/eventstore"
)

// snapshotCheck compares each money stream's snapshot with the replay of its events up to the
// snapshot's version, so that an audit shows no command ever decided on a saved state the
// events do not give. The snapshots are listed before the replay and each state read when the
// replay reaches it: one at a time in memory, however many there are.
type snapshotCheck struct {
	ctx      context.Context
	pool     *pgxpool.Pool
	codec    *eventstore.Registry
	versions map[eventstore.StreamID]int64
	checked  int // snapshots compared
	sealed   int // snapshots of erased investors, which no one can read any more
}

func newSnapshotCheck(ctx context.Context, tx pgx.Tx, pool *pgxpool.Pool, codec *eventstore.Registry) (*snapshotCheck, error) {
	c := &snapshotCheck{ctx: ctx, pool: pool, codec: codec, versions: map[eventstore.StreamID]int64{}}
	rows, err := tx.Query(ctx, `SELECT stream_id, version FROM snapshots WHERE kind = $1`, account.SnapshotKind)
	if err != nil {
		return nil, fmt.Errorf("listing the snapshots: %w", err)
	}
	var (
		stream  string
		version int64
	)
	_, err = pgx.ForEachRow(rows, []any{&stream, &version}, func() error {
		c.versions[eventstore.StreamID(stream)] = version
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the snapshots: %w", err)
	}
	return c, nil
}

// check compares the snapshot of stream at version, if it has one, with acc, the replay of the
// stream's events up to that version.
func (c *snapshotCheck) check(stream eventstore.StreamID, version int64, acc *account.Account) error {
	if c == nil || c.versions[stream] != version {
		return nil
	}
	var kept []byte
	err := c.pool.QueryRow(c.ctx, `SELECT state FROM snapshots WHERE stream_id = $1 AND version = $2 AND kind = $3`,
		string(stream), version, account.SnapshotKind).Scan(&kept)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // replaced by a later one since the listing, which the log read did not reach
	}
	if err != nil {
		return fmt.Errorf("stream %s: reading its snapshot: %w", stream, err)
	}
	state, err := c.codec.OpenState(stream, kept)
	if errors.Is(err, eventstore.ErrErased) {
		c.sealed++
		return nil
	}
	if err != nil {
		return fmt.Errorf("stream %s: its snapshot at version %d does not open: %w", stream, version, err)
	}
	replayed, err := acc.MarshalState()
	if err != nil {
		return fmt.Errorf("stream %s: %w", stream, err)
	}
	c.checked++
	if !bytes.Equal(state, replayed) {
		return fmt.Errorf("stream %s: the snapshot at version %d differs from a replay of the events up to it", stream, version)
	}
	return nil
}

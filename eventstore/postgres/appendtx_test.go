package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
)

func TestAppendTxCommitsAndRollsBackWithTheCallersRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE side (k text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	stream := eventstore.NewStreamID("user", "u1")
	appendWithSide := func(key string, expected int64) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := s.AppendTx(ctx, tx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: expected,
				Events: []eventstore.NewEvent{eventstoretest.Event("user.registered", 1)}}); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO side VALUES ($1)`, key)
			return err
		})
	}
	if err := appendWithSide("a", eventstore.NoStream); err != nil {
		t.Fatal(err)
	}
	s.Announce()
	// The side row conflicts, so the event must not be stored either.
	if err := appendWithSide("a", 1); err == nil {
		t.Fatal("expected the duplicate side row to fail the transaction")
	}
	if err := appendWithSide("b", eventstore.NoStream); !errors.Is(err, eventstore.ErrConcurrency) {
		t.Fatalf("stale expected version: err = %v, want ErrConcurrency", err)
	}
	events, err := s.ReadStream(ctx, stream, 1, 10)
	if err != nil || len(events) != 1 {
		t.Fatalf("stream holds %d events (%v), want exactly the committed one", len(events), err)
	}
	var sides int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM side`).Scan(&sides); err != nil || sides != 1 {
		t.Fatalf("side table holds %d rows (%v), want 1", sides, err)
	}
	eventstoretest.WaitVisible(t, s, events[0].Position)
}

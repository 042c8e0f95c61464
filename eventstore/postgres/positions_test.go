package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
)

// simulateRestore puts the database in the state a pg_restore into a younger cluster leaves:
// the log's head far above the transaction ids the server hands out now. It returns the head.
func simulateRestore(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	var head int64
	err := pool.QueryRow(context.Background(), `
		WITH e AS (
			INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
			VALUES (((pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 1000000) << 16) | 1, gen_random_uuid(),
			        'account-restored', 1, 't.restored', 1, '{}', '{}', now())
			RETURNING position),
		s AS (INSERT INTO streams VALUES ('account-restored', 1))
		SELECT position FROM e`).Scan(&head)
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// TestRestoredLogIsRefusedUntilTheOffsetAdvances: in a restored database, appends are refused
// (they would land below what readers have passed) until AdvancePositionOffset runs; after it,
// new positions are above the restored head and readers past the head get them.
func TestRestoredLogIsRefusedUntilTheOffsetAdvances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, pool := newStore(t)
	head := simulateRestore(t, pool)

	if err := postgres.CheckPositions(ctx, pool); !errors.Is(err, postgres.ErrPositionsBehind) {
		t.Fatalf("CheckPositions after a restore = %v, want ErrPositionsBehind", err)
	}
	// A restored database is reached through new connections, which check before appending.
	fresh, err := pgxpool.New(ctx, pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	s := postgres.New(fresh)
	defer s.Close()
	one := eventstore.StreamAppend{Stream: "account-new", ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.new", 1)}}
	if _, err := s.Append(ctx, one); !errors.Is(err, postgres.ErrPositionsBehind) {
		t.Fatalf("append to a restored log = %v, want ErrPositionsBehind", err)
	}

	ch, err := postgres.AdvancePositionOffset(ctx, pool)
	if err != nil || !ch.Moved() || ch.Head != head {
		t.Fatalf("AdvancePositionOffset = %+v, %v; want it moved past head %d", ch, err, head)
	}
	if err := postgres.CheckPositions(ctx, pool); err != nil {
		t.Fatalf("CheckPositions after advancing: %v", err)
	}
	envs, err := s.Append(ctx, one)
	if err != nil {
		t.Fatal(err)
	}
	if envs[0].Position <= head {
		t.Fatalf("new position %d is not above the restored head %d", envs[0].Position, head)
	}
	waitHead(t, s, envs[0].Position)
	page, err := s.ReadAll(ctx, head, 10)
	if err != nil || len(page) != 1 || page[0].ID != envs[0].ID {
		t.Fatalf("a reader past the restored head got %d events (%v), want the new one", len(page), err)
	}
	if again, err := postgres.AdvancePositionOffset(ctx, pool); err != nil || again.Moved() || again.From != ch.To {
		t.Fatalf("second AdvancePositionOffset = %+v, %v; want no change", again, err)
	}
}

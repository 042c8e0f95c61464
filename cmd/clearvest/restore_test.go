package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
)

// TestMigrateResumesPositionsAfterARestore puts a database in the state a pg_restore into a
// younger cluster leaves (the log's head far above the transaction ids the server hands out
// now, with a projection's checkpoint at that head), runs `clearvest migrate` as the operator
// would, and appends: the new event must sort above the restored head, so readers that have
// passed it still get it, and verify must see the whole log.
func TestMigrateResumesPositionsAfterARestore(t *testing.T) {
	url, cli := operatorShell(t)
	ctx := testCtx(t)
	if out, err := cli("migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}

	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var head int64
	if err := pool.QueryRow(ctx, `
		WITH e AS (
			INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
			VALUES (((pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 1000000) << 16) | 1, gen_random_uuid(),
			        'test-restored', 1, 'test.opened', 1, '{"owner":"o"}', '{}', now())
			RETURNING position),
		s AS (INSERT INTO streams VALUES ('test-restored', 1))
		SELECT position FROM e`).Scan(&head); err != nil {
		t.Fatal(err)
	}

	out, err := cli("migrate")
	if err != nil {
		t.Fatalf("migrate after the restore: %v\n%s", err, out)
	}
	if !strings.Contains(out, "positions moved above the restored log") {
		t.Errorf("migrate after the restore did not say it moved positions:\n%s", out)
	}

	// New connections, as any process started after the restore has.
	appender, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer appender.Close()
	store := postgres.New(appender)
	defer store.Close()
	envs, err := store.Append(ctx, eventstore.StreamAppend{Stream: "test-new", ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{newEvent(t, "test.opened", testOpened{Owner: "n"}, eventstore.Metadata{})}})
	if err != nil {
		t.Fatal(err)
	}
	if envs[0].Position <= head {
		t.Fatalf("the first append after the restore got position %d, below the restored head %d: readers past the head would never see it", envs[0].Position, head)
	}
	eventstoretest.WaitVisible(t, store, envs[0].Position)
	page, err := store.ReadAll(context.Background(), head, 10)
	if err != nil || len(page) != 1 || page[0].ID != envs[0].ID {
		t.Fatalf("a reader at the restored head got %d events (%v), want the new one", len(page), err)
	}
	var report bytes.Buffer
	if err := verifyEvents(ctx, store, testRegistry(), &report, verifyOptions{Now: time.Now()}); err != nil || !strings.HasPrefix(report.String(), "verified 2 events in 2 streams") {
		t.Errorf("verify after the restore: %v\n%s", err, report.String())
	}
}

package projections

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/platform/pgtest"
)

// TestLongWriteInAnotherDatabaseDoesNotStallProjections: a transaction that writes in another
// database of the same server and stays open must not keep a running projection from applying
// new events, nor a read-your-writes wait from seeing them.
func TestLongWriteInAnotherDatabaseDoesNotStallProjections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `CREATE TABLE long_job (n int); INSERT INTO long_job VALUES (1)`); err != nil {
		t.Fatal(err)
	}

	// The wait is bounded generously so that a stall fails the test instead of hanging it.
	r := f.runner(t, []Projection{applied{}}, WithWaitTimeout(30*time.Second))
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	defer func() { stop(); <-done }()

	last := appendEvents(t, f.store, 5)
	if err := r.WaitFor(ctx, last); err != nil {
		t.Fatalf("waiting for position %d with a write open in another database: %v", last, err)
	}
	assertAppliedOnce(t, f.pool, 5)
	if status := conn.PgConn().TxStatus(); status != 'T' {
		t.Fatalf("the other database's transaction is no longer open (status %q)", status)
	}
}

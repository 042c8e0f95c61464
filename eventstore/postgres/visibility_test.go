package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgtest"
)

// openWriter starts a transaction on the database at url that writes a table and gets a
// transaction id, like a migration or a bulk import, and keeps it open until the test ends.
func openWriter(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = tx.Rollback(context.Background())
		_ = conn.Close(context.Background())
	})
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE long_job (n int); INSERT INTO long_job VALUES (1)`); err != nil {
		t.Fatal(err)
	}
}

// waitHead polls Head until it reaches pos, and fails the test if it does not within a
// generous deadline.
func waitHead(t *testing.T, s interface {
	Head(context.Context) (int64, error)
}, pos int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		head, err := s.Head(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if head >= pos {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("head is %d, still below the committed position %d", head, pos)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLongWriteElsewhereDoesNotHoldReadersBack opens a writing transaction that is not an
// append, in another database of the server and in the store's own, then appends: the event
// must become readable while that transaction is still open.
func TestLongWriteElsewhereDoesNotHoldReadersBack(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"another database", "the same database"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			s, pool := newStore(t)
			url := pgtest.NewDatabase(t)
			if where == "the same database" {
				url = pool.Config().ConnString()
			}
			openWriter(t, url)
			envs, err := s.Append(context.Background(), eventstore.StreamAppend{Stream: "account-a", ExpectedVersion: eventstore.NoStream,
				Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 1)}})
			if err != nil {
				t.Fatal(err)
			}
			waitHead(t, s, envs[0].Position)
			page, err := s.ReadAll(context.Background(), 0, 10)
			if err != nil || len(page) != 1 || page[0].ID != envs[0].ID {
				t.Fatalf("read-all = %d events, %v; want the appended one", len(page), err)
			}
		})
	}
}

// TestOpenAppendTxHoldsReadersBack holds a transaction open after AppendTx while a later append
// commits: readers must stop below the open one, even with an unrelated writer open too, and
// read both in order once it commits.
func TestOpenAppendTxHoldsReadersBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	openWriter(t, pgtest.NewDatabase(t))
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	held, err := s.AppendTx(ctx, tx, eventstore.StreamAppend{Stream: "user-held", ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{eventstoretest.Event("t.held", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	later, err := s.Append(ctx, eventstore.StreamAppend{Stream: "user-later", ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{eventstoretest.Event("t.later", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	if later[0].Position <= held[0].Position {
		t.Fatalf("the later append got %d, not above the open one's %d", later[0].Position, held[0].Position)
	}
	if head, err := s.Head(ctx); err != nil || head >= held[0].Position {
		t.Fatalf("head = %d (%v) while position %d is uncommitted", head, err, held[0].Position)
	}
	if page, err := s.ReadAll(ctx, 0, 10); err != nil || len(page) != 0 {
		t.Fatalf("read-all returned %d events (%v) while an older append was open", len(page), err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	waitHead(t, s, later[0].Position)
	page, err := s.ReadAll(ctx, 0, 10)
	if err != nil || len(page) != 2 || page[0].ID != held[0].ID || page[1].ID != later[0].ID {
		t.Fatalf("read-all = %d events (%v); want the held one, then the later one", len(page), err)
	}
}

// TestRepeatableReadReaderNeverSkips reads inside a REPEATABLE READ transaction whose snapshot
// was taken while an append was open and which reads only after that append committed: the
// snapshot cannot see the append, so the reader must stop below it rather than return the later
// event and move past it.
func TestRepeatableReadReaderNeverSkips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	held, err := s.AppendTx(ctx, tx, eventstore.StreamAppend{Stream: "user-held", ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{eventstoretest.Event("t.held", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	later, err := s.Append(ctx, eventstore.StreamAppend{Stream: "user-later", ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{eventstoretest.Event("t.later", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Rollback(ctx)                              //nolint:errcheck
	if _, err := reader.Exec(ctx, `SELECT 1`); err != nil { // takes the snapshot
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := postgres.ReadAll(ctx, reader, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page {
		if e.Position >= held[0].Position {
			t.Fatalf("a snapshot without the held append returned position %d, at or above it (%d)", e.Position, held[0].Position)
		}
	}
	waitHead(t, s, later[0].Position)
	if page, err := s.ReadAll(ctx, 0, 10); err != nil || len(page) != 2 {
		t.Fatalf("a fresh reader got %d events (%v), want 2", len(page), err)
	}
}

// TestAppendTxRefusesAfterAnotherWrite: a transaction that wrote before appending has its id
// from before the stream locks, so its events could be ordered before an earlier writer's and
// readers would not know to wait for it.
func TestAppendTxRefusesAfterAnotherWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE side (k text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	for name, events := range map[string][]eventstore.NewEvent{
		"one event":  {eventstoretest.Event("t.one", 1)},
		"two events": {eventstoretest.Event("t.one", 1), eventstoretest.Event("t.two", 2)},
	} {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO side VALUES ($1)`, name); err != nil {
				return err
			}
			_, err := s.AppendTx(ctx, tx, eventstore.StreamAppend{Stream: "user-u1", ExpectedVersion: eventstore.NoStream, Events: events})
			return err
		})
		if !errors.Is(err, postgres.ErrWriteBeforeAppend) {
			t.Errorf("%s: AppendTx after a write: err = %v, want ErrWriteBeforeAppend", name, err)
		}
	}
	var stored int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM side)`).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("%d rows stored (%v), want none", stored, err)
	}
}

// TestBoundForALaterReadIgnoresTransactionsThatEnded: a transaction that was running in the
// reader's snapshot and has ended since can only bound a read made in that same snapshot. A
// cursor keeps the snapshot of its declaration, so a writer committed between declaring and
// fetching shows both cases.
func TestBoundForALaterReadIgnoresTransactionsThatEnded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	other, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	writer, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback(ctx) //nolint:errcheck
	if _, err := writer.Exec(ctx, `CREATE TABLE job (n int)`); err != nil {
		t.Fatal(err)
	}
	envs, err := s.Append(ctx, eventstore.StreamAppend{Stream: "account-a", ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 1)}})
	if err != nil {
		t.Fatal(err)
	}

	reader, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Rollback(ctx) //nolint:errcheck
	if _, err := reader.Exec(ctx, `DECLARE bound CURSOR FOR SELECT eventstore_visible_below(true), eventstore_visible_below(false)`); err != nil {
		t.Fatal(err)
	}
	if err := writer.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var later, same int64
	if err := reader.QueryRow(ctx, `FETCH bound`).Scan(&later, &same); err != nil {
		t.Fatal(err)
	}
	if later <= envs[0].Position {
		t.Errorf("bound for a later read = %d, not above the committed append at %d: a writer that ended still held it back", later, envs[0].Position)
	}
	if same > envs[0].Position {
		t.Errorf("bound for a read in the same snapshot = %d, above %d: that snapshot cannot see what the ended writer did", same, envs[0].Position)
	}
}

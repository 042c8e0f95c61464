package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
)

func sideRow(key string) postgres.Statement {
	return postgres.Statement{SQL: `INSERT INTO side VALUES ($1)`, Args: []any{key}}
}

func newSideStore(t *testing.T) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	s, pool := newStore(t)
	if _, err := pool.Exec(context.Background(), `CREATE TABLE side (k text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	return s, pool
}

// stored returns how many events the stream holds and how many side rows there are.
func stored(t *testing.T, s *postgres.Store, pool *pgxpool.Pool, stream eventstore.StreamID) (events, sides int) {
	t.Helper()
	envs, err := s.ReadStream(context.Background(), stream, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM side`).Scan(&sides); err != nil {
		t.Fatal(err)
	}
	return len(envs), sides
}

func TestAppendWithCommitsTheEventsAndTheStatementsTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newSideStore(t)
	stream := eventstore.NewStreamID("user", "u1")
	envs, err := s.AppendWith(ctx, postgres.With{Statements: []postgres.Statement{sideRow("a"), sideRow("b")}},
		eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 1 || envs[0].Version != 1 || envs[0].Position == 0 {
		t.Fatalf("envelopes %+v, want one at version 1 with a position", envs)
	}
	if events, sides := stored(t, s, pool, stream); events != 1 || sides != 2 {
		t.Fatalf("stored %d events and %d rows, want 1 and 2", events, sides)
	}
	// Several streams and events take the general statement.
	other := eventstore.NewStreamID("user", "u2")
	envs, err = s.AppendWith(ctx, postgres.With{Statements: []postgres.Statement{sideRow("c")}},
		eventstore.StreamAppend{Stream: stream, ExpectedVersion: 1, Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 2)}},
		eventstore.StreamAppend{Stream: other, ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 3), eventstoretest.Event("t.happened", 4)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 3 || envs[0].Version != 2 || envs[2].StreamID != other || envs[2].Version != 2 {
		t.Fatalf("envelopes %+v, want version 2 of %s, then versions 1 and 2 of %s", envs, stream, other)
	}
	eventstoretest.WaitVisible(t, s, envs[2].Position)
}

func TestAppendWithStoresNothingWhenAStatementFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newSideStore(t)
	stream := eventstore.NewStreamID("user", "u1")
	if _, err := pool.Exec(ctx, `INSERT INTO side VALUES ('taken')`); err != nil {
		t.Fatal(err)
	}
	_, err := s.AppendWith(ctx, postgres.With{Statements: []postgres.Statement{sideRow("free"), sideRow("taken")}},
		eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 1)}})
	var se *postgres.StatementError
	if !errors.As(err, &se) || se.Index != 1 {
		t.Fatalf("err = %v, want the second statement's failure", err)
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "23505" {
		t.Fatalf("err = %v, want the unique violation inside", err)
	}
	if events, sides := stored(t, s, pool, stream); events != 0 || sides != 1 {
		t.Fatalf("stored %d events and %d rows, want none of the append's", events, sides)
	}
	// The connection went back to the pool in a usable state.
	if _, err := s.AppendWith(ctx, postgres.With{Statements: []postgres.Statement{sideRow("free")}},
		eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 1)}}); err != nil {
		t.Fatal(err)
	}
}

// A single-event append whose expectation fails writes nothing rather than failing; the rows
// sent with it must not commit on their own.
func TestAppendWithStoresNothingWhenTheAppendConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newSideStore(t)
	stream := eventstore.NewStreamID("user", "u1")
	ev := func() []eventstore.NewEvent { return []eventstore.NewEvent{eventstoretest.Event("t.happened", 1)} }
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: ev()}); err != nil {
		t.Fatal(err)
	}
	for _, expected := range []int64{eventstore.NoStream, 2} {
		_, err := s.AppendWith(ctx, postgres.With{Statements: []postgres.Statement{sideRow("x")}},
			eventstore.StreamAppend{Stream: stream, ExpectedVersion: expected, Events: ev()})
		var ce *eventstore.ConcurrencyError
		if !errors.As(err, &ce) || ce.Stream != stream || ce.Expected != expected || ce.Actual != 1 {
			t.Fatalf("expected %d: err = %v, want a conflict on %s at version 1", expected, err, stream)
		}
	}
	if events, sides := stored(t, s, pool, stream); events != 1 || sides != 0 {
		t.Fatalf("stored %d events and %d rows, want only the first event", events, sides)
	}
}

func TestAppendWithCommitsOnlyIfTheCheckedStreamsHaveNotMoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newSideStore(t)
	stream := eventstore.NewStreamID("account", "u1")
	user := eventstore.NewStreamID("user", "u1")
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: user, ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 1), eventstoretest.Event("t.happened", 2)}}); err != nil {
		t.Fatal(err)
	}
	appendChecking := func(version int64) error {
		// A stream that does not exist is at version 0: the first check holds, the second decides.
		checks := []postgres.Check{{Stream: eventstore.NewStreamID("user", "nobody"), Version: 0}, {Stream: user, Version: version}}
		_, err := s.AppendWith(ctx, postgres.With{Checks: checks, Statements: []postgres.Statement{sideRow("x")}},
			eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{eventstoretest.Event("t.happened", 3)}})
		return err
	}
	err := appendChecking(1)
	var ce *eventstore.ConcurrencyError
	if !errors.As(err, &ce) || ce.Stream != user || ce.Expected != 1 || ce.Actual != 2 {
		t.Fatalf("err = %v, want a conflict on %s, at 2 rather than 1", err, user)
	}
	if events, sides := stored(t, s, pool, stream); events != 0 || sides != 0 {
		t.Fatalf("stored %d events and %d rows after a failed check, want none", events, sides)
	}
	if err := appendChecking(2); err != nil {
		t.Fatal(err)
	}
	if events, sides := stored(t, s, pool, stream); events != 1 || sides != 1 {
		t.Fatalf("stored %d events and %d rows, want 1 and 1", events, sides)
	}
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/eventstore"
)

// Statement is a write outside the log (a uniqueness claim, a reference row, an outbox message)
// that commits with an append or not at all.
type Statement struct {
	SQL  string
	Args []any
}

// Check names a stream a decision rests on without appending to it, at the version the
// decision saw.
type Check struct {
	Stream  eventstore.StreamID
	Version int64
}

// With is what AppendWith commits together with the events.
type With struct {
	Checks     []Check
	Statements []Statement
}

// StatementError is the failure of one of With.Statements; nothing of the append was stored.
// Index is the statement's place in With.Statements.
type StatementError struct {
	Index int
	Err   error
}

func (e *StatementError) Error() string {
	return fmt.Sprintf("eventstore: statement %d of the append: %v", e.Index, e.Err)
}

func (e *StatementError) Unwrap() error { return e.Err }

// AppendWith appends, checks that every stream of w.Checks is still at its version and runs
// w.Statements, atomically, in one round trip: the statements are sent together (a pipeline)
// and PostgreSQL runs them as one implicit transaction, committed at its end. That is what lets
// a command with rows outside the log cost what an append alone costs, where a transaction of
// AppendTx costs a round trip for each statement, its BEGIN and its COMMIT.
//
// A failed expectation, of an append or of a check, is a *eventstore.ConcurrencyError naming
// its stream; a failed statement a *StatementError. Either way nothing was stored. Unlike
// Append it does not answer a retry of an append that succeeded with what was stored: the
// statements' effects cannot be told apart from another request's.
func (s *Store) AppendWith(ctx context.Context, w With, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	total, err := checkAppend(appends)
	if err != nil {
		return nil, err
	}
	if total == 0 {
		return nil, fmt.Errorf("%w: AppendWith needs at least one event", eventstore.ErrInvalidEvent)
	}
	start := time.Now()
	envs, err := s.appendWith(ctx, w, appends, total)
	s.metrics.observe(start, total, err, errors.Is(err, eventstore.ErrConcurrency))
	if err != nil {
		return nil, err
	}
	s.announce()
	return envs, nil
}

func (s *Store) appendWith(ctx context.Context, w With, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("eventstore: %w", err)
	}
	defer conn.Release()
	if err := checkConnPositions(ctx, conn.Conn()); err != nil {
		return nil, err
	}

	// The append comes first: it must be the transaction's first write (AppendTx).
	b := &pgx.Batch{}
	one := len(appends) == 1 && total == 1
	if one {
		a := appends[0]
		sql, args := oneQuery(a)
		b.Queue(sql, args...)
		// appendOne's statement writes nothing when its expectation fails: this fails the
		// transaction then (migrations/0003_expect.sql).
		b.Queue(`SELECT eventstore_expect_event($1, $2)`, [16]byte(a.Events[0].ID), string(a.Stream))
	} else {
		b.Queue(appendManySQL, manyArgs(appends, total)...)
	}
	queueWrites(b, w)

	br := conn.SendBatch(ctx, b)
	envs, err := readAppendWith(br, appends, total, one, w.Checks, len(w.Statements))
	if closeErr := br.Close(); err == nil && closeErr != nil {
		err = fmt.Errorf("eventstore: append: %w", closeErr)
	}
	if err != nil {
		return nil, err
	}
	return envs, nil
}

// WriteWith runs w's checks and statements atomically in one round trip, as AppendWith does with
// its append, for writes that record no event: a one-time code and the e-mail that carries it,
// say. A failed check is a *eventstore.ConcurrencyError, a failed statement a *StatementError;
// either way nothing was written.
func (s *Store) WriteWith(ctx context.Context, w With) error {
	if len(w.Statements) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	queueWrites(b, w)
	br := s.pool.SendBatch(ctx, b)
	err := readWrites(br, w.Checks, len(w.Statements))
	if closeErr := br.Close(); err == nil && closeErr != nil {
		err = fmt.Errorf("eventstore: write: %w", closeErr)
	}
	return err
}

// queueWrites queues w's checks, as one call of eventstore_expect, then its statements.
func queueWrites(b *pgx.Batch, w With) {
	if len(w.Checks) > 0 {
		streams, versions := make([]string, len(w.Checks)), make([]int64, len(w.Checks))
		for i, c := range w.Checks {
			streams[i], versions[i] = string(c.Stream), c.Version
		}
		b.Queue(`SELECT eventstore_expect($1, $2)`, streams, versions)
	}
	for _, st := range w.Statements {
		b.Queue(st.SQL, st.Args...)
	}
}

// readWrites reads the results of queueWrites' checks and statements, up to the first failure.
func readWrites(br pgx.BatchResults, checks []Check, statements int) error {
	if len(checks) > 0 {
		if _, err := br.Exec(); err != nil {
			return checkError(err, checks)
		}
	}
	for i := range statements {
		if _, err := br.Exec(); err != nil {
			return &StatementError{Index: i, Err: err}
		}
	}
	return nil
}

// readAppendWith reads the results of AppendWith's statements in order, up to the first
// failure: PostgreSQL skips the rest and rolls the transaction back.
func readAppendWith(br pgx.BatchResults, appends []eventstore.StreamAppend, total int, one bool, checks []Check, statements int) ([]eventstore.Envelope, error) {
	var envs []eventstore.Envelope
	if one {
		var r oneRow
		err := br.QueryRow().Scan(&r.position, &r.version, &r.recordedAt)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			// The check after it says which version the stream is at.
		case err != nil:
			return nil, appendError(err, appends)
		default:
			envs = r.envelopes(appends[0])
		}
		if _, err := br.Exec(); err != nil {
			return nil, checkError(err, []Check{{Stream: appends[0].Stream, Version: appends[0].ExpectedVersion}})
		}
	} else {
		var r manyRow
		if err := br.QueryRow().Scan(&r.base, &r.recordedAt, &r.versions); err != nil {
			return nil, appendError(err, appends)
		}
		envs = r.envelopes(appends, total)
	}
	if err := readWrites(br, checks, statements); err != nil {
		return nil, err
	}
	return envs, nil
}

// checkError turns a failed check (migrations/0003_expect.sql; DETAIL "<index from 1> <actual
// version>") into the store's conflict on that check's stream.
func checkError(err error, checks []Check) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == codeConflict {
		k, actual, _ := strings.Cut(pg.Detail, " ")
		i, err1 := strconv.Atoi(k)
		v, err2 := strconv.ParseInt(actual, 10, 64)
		if err1 == nil && err2 == nil && i >= 1 && i <= len(checks) {
			c := checks[i-1]
			return &eventstore.ConcurrencyError{Stream: c.Stream, Expected: c.Version, Actual: v}
		}
	}
	return fmt.Errorf("eventstore: check: %w", err)
}

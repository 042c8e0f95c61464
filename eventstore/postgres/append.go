package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/eventstore"
)

// ErrWriteBeforeAppend is returned by AppendTx when its transaction has written something
// already: its transaction id would then not come after the stream locks, which both the order
// of a stream's events and the readers' visibility bound depend on.
var ErrWriteBeforeAppend = errors.New("eventstore: AppendTx must come before any other write in its transaction")

// SQLSTATEs raised by the append statements (migrations/0002_positions.sql).
const (
	codeWriteBeforeAppend = "CVA01"
	codeConflict          = "CVA09"
)

// Append implements eventstore.Store. An append is a single statement in a transaction of its
// own: one round trip, with no BEGIN or COMMIT of its own to send.
func (s *Store) Append(ctx context.Context, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	total, err := checkAppend(appends)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var envs []eventstore.Envelope
	if s.beforeCommit == nil {
		envs, err = s.appendAlone(ctx, appends, total)
	} else {
		envs, err = s.appendHeld(ctx, appends, total)
	}
	s.metrics.observe(start, total, err, errors.Is(err, eventstore.ErrConcurrency))
	if err != nil {
		// A retry of an append that already succeeded fails its version check or hits the
		// unique event id: answer it with what was stored the first time.
		if total > 0 && (errors.Is(err, eventstore.ErrConcurrency) || isUniqueViolation(err, "events_event_id_key")) {
			if stored, ok, lookupErr := s.lookupExisting(ctx, appends, total); lookupErr != nil {
				return nil, lookupErr
			} else if ok {
				return stored, nil
			}
			if isUniqueViolation(err, "events_event_id_key") {
				return nil, fmt.Errorf("%w: some event ids are stored already", eventstore.ErrDuplicateEvent)
			}
		}
		return nil, err
	}
	if total > 0 {
		s.announce()
	}
	return envs, nil
}

// appendAlone appends in a transaction of its own: the statement's.
func (s *Store) appendAlone(ctx context.Context, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("eventstore: %w", err)
	}
	defer conn.Release()
	if err := checkConnPositions(ctx, conn.Conn()); err != nil {
		return nil, err
	}
	return writeEvents(ctx, conn, appends, total)
}

// appendHeld appends in an explicit transaction and runs the test hook before committing it.
func (s *Store) appendHeld(ctx context.Context, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("eventstore: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	if err := checkConnPositions(ctx, tx.Conn()); err != nil {
		return nil, err
	}
	envs, err := writeEvents(ctx, tx, appends, total)
	if err != nil {
		return nil, err
	}
	s.beforeCommit(ctx, envs)
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("eventstore: commit: %w", err)
	}
	return envs, nil
}

// AppendTx appends inside the caller's transaction, so that rows outside the log (a uniqueness
// index, credentials, an outbox message) commit atomically with the events that justify them.
// It must be the transaction's first write, and is refused with ErrWriteBeforeAppend
// otherwise; the transaction must be READ COMMITTED (PostgreSQL's default). Commit, then call
// Announce. It does not answer retries idempotently the way Append does.
func (s *Store) AppendTx(ctx context.Context, tx pgx.Tx, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	total, err := checkAppend(appends)
	if err != nil {
		return nil, err
	}
	if err := checkConnPositions(ctx, tx.Conn()); err != nil {
		return nil, err
	}
	return writeEvents(ctx, tx, appends, total)
}

// Announce tells subscribers in every process that new events were committed by AppendTx.
func (s *Store) Announce() { s.announce() }

// checkAppend validates an append before any I/O and counts its events.
func checkAppend(appends []eventstore.StreamAppend) (int, error) {
	if err := eventstore.ValidateAppend(appends); err != nil {
		return 0, err
	}
	total := 0
	for _, a := range appends {
		total += len(a.Events)
	}
	if total > maxEventsPerAppend {
		return 0, fmt.Errorf("%w: at most %d events per append", eventstore.ErrInvalidEvent, maxEventsPerAppend)
	}
	return total, nil
}

// queryRower is a pooled connection (an append in a transaction of its own) or a transaction.
type queryRower interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// writeEvents runs appendOne's statement or the eventstore_append function
// (migrations/0002_positions.sql). Both take the streams' locks before the transaction gets its
// id, so within a stream position order is version order, and readers know which running
// transactions may still add events.
func writeEvents(ctx context.Context, q queryRower, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, error) {
	if len(appends) == 1 && total == 1 {
		return appendOne(ctx, q, appends[0])
	}
	return appendMany(ctx, q, appends, total)
}

// appendOne appends one event to one stream, the shape of almost every command, as a single
// statement with scalar arguments: no arrays to build on either side, and less server time than
// the general function. It keeps the function's order: the guard, then the stream's lock, then
// the version check, whose write gives the transaction its id, then the insert.
func appendOne(ctx context.Context, q queryRower, a eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	sql, args := oneQuery(a)
	var r oneRow
	err := q.QueryRow(ctx, sql, args...).Scan(&r.position, &r.version, &r.recordedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		// The expectation failed and nothing was written.
		var actual int64
		if err := q.QueryRow(ctx, `SELECT coalesce((SELECT version FROM streams WHERE stream_id = $1), 0)`, string(a.Stream)).Scan(&actual); err != nil {
			return nil, fmt.Errorf("eventstore: stream version: %w", err)
		}
		return nil, &eventstore.ConcurrencyError{Stream: a.Stream, Expected: a.ExpectedVersion, Actual: actual}
	}
	if err != nil {
		return nil, appendError(err, []eventstore.StreamAppend{a})
	}
	return r.envelopes(a), nil
}

// oneQuery is appendOne's statement and arguments.
func oneQuery(a eventstore.StreamAppend) (string, []any) {
	e := &a.Events[0]
	meta := appendMetadata(make([]byte, 0, 256), &e.Metadata)
	return appendOneSQL[expectationOf(a.ExpectedVersion)],
		[]any{string(a.Stream), a.ExpectedVersion, [16]byte(e.ID), e.Type, int32(e.SchemaVersion), []byte(e.Data), meta}
}

// oneRow is what appendOne's statement returns.
type oneRow struct {
	position, version int64
	recordedAt        time.Time
}

func (r oneRow) envelopes(a eventstore.StreamAppend) []eventstore.Envelope {
	e := &a.Events[0]
	return []eventstore.Envelope{{
		ID: e.ID, StreamID: a.Stream, Version: r.version, Position: r.position,
		Type: e.Type, SchemaVersion: e.SchemaVersion, Data: append(json.RawMessage(nil), e.Data...),
		Metadata: e.Metadata, RecordedAt: r.recordedAt.UTC(),
	}}
}

type expectation int

const (
	expectAny expectation = iota
	expectNoStream
	expectExact
)

func expectationOf(expected int64) expectation {
	switch expected {
	case eventstore.AnyVersion:
		return expectAny
	case eventstore.NoStream:
		return expectNoStream
	}
	return expectExact
}

// appendOneSQL holds appendOne's statement for each kind of expectation. Arguments: $1 stream,
// $2 expected version, $3 id, $4 type, $5 schema version, $6 data, $7 metadata. It returns the
// event's position, version and time, or no row when the expectation failed (and wrote nothing).
//
// The order is forced by references, since a statement's parts run when their results are
// needed: the version check (v) runs only once the offset is read and the stream locked (o),
// which the guard lets happen only in a transaction without an id (else it raises CVA01); the
// check's write gives the transaction its id, and the insert's position reads it. Tables are
// locked before the statement's snapshot is taken, so the offset read is the one
// AdvancePositionOffset left. A snapshot taken before waiting for the stream lock cannot see the
// version another append committed meanwhile, but the update re-reads a row changed under it.
var appendOneSQL = func() map[expectation]string {
	const head = `WITH o AS (
			SELECT xid_offset, pg_advisory_xact_lock(` + streamLockNamespaceSQL + `, hashtext($1))
			FROM event_position_offset
			WHERE CASE WHEN pg_current_xact_id_if_assigned() IS NULL THEN true ELSE eventstore_write_before_append() END),
		v AS (`
	const tail = `)
		INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
		SELECT ((pg_current_xact_id()::text::bigint + (SELECT xid_offset FROM o)) << 16) | 1, $3, $1, v.version, $4, $5, $6, $7, now()
		FROM v
		RETURNING position, version, recorded_at`
	// Every variant takes the same arguments, so those that need no expected version still
	// name $2 (in a condition that always holds) for PostgreSQL to know its type.
	return map[expectation]string{
		expectAny: head + `INSERT INTO streams AS s (stream_id, version) SELECT $1, 1 WHERE $2::bigint = -1 AND EXISTS (SELECT FROM o)
			ON CONFLICT (stream_id) DO UPDATE SET version = s.version + 1
			RETURNING s.version` + tail,
		expectNoStream: head + `INSERT INTO streams AS s (stream_id, version) SELECT $1, 1 WHERE $2::bigint = 0 AND EXISTS (SELECT FROM o)
			ON CONFLICT (stream_id) DO UPDATE SET version = s.version + 1 WHERE s.version = 0
			RETURNING s.version` + tail,
		expectExact: head + `UPDATE streams AS s SET version = s.version + 1
			WHERE s.stream_id = $1 AND s.version = $2 AND EXISTS (SELECT FROM o)
			RETURNING s.version` + tail,
	}
}()

func appendMany(ctx context.Context, q queryRower, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, error) {
	var r manyRow
	err := q.QueryRow(ctx, appendManySQL, manyArgs(appends, total)...).Scan(&r.base, &r.recordedAt, &r.versions)
	if err != nil {
		return nil, appendError(err, appends)
	}
	return r.envelopes(appends, total), nil
}

const appendManySQL = `SELECT base, recorded_at, versions FROM eventstore_append($1, $2, $3, $4, $5, $6, $7, $8)`

// manyArgs are the arguments of appendManySQL: one array per column.
func manyArgs(appends []eventstore.StreamAppend, total int) []any {
	var (
		streams  = make([]string, len(appends))
		expected = make([]int64, len(appends))
		counts   = make([]int32, len(appends))
		ids      = make([][16]byte, 0, total) // not uuid.UUID, whose driver.Valuer goes through text
		types    = make([]string, 0, total)
		schemas  = make([]int32, 0, total)
		datas    = make([][]byte, 0, total)
		metas    = make([][]byte, 0, total)
		buf      = make([]byte, 0, 256*total)
	)
	for k, a := range appends {
		streams[k], expected[k], counts[k] = string(a.Stream), a.ExpectedVersion, int32(len(a.Events))
		for i := range a.Events {
			e := &a.Events[i]
			ids = append(ids, [16]byte(e.ID))
			types = append(types, e.Type)
			schemas = append(schemas, int32(e.SchemaVersion))
			datas = append(datas, e.Data)
			// Earlier slices keep pointing at the old array when buf grows; it is not changed.
			from := len(buf)
			buf = appendMetadata(buf, &e.Metadata)
			metas = append(metas, buf[from:len(buf):len(buf)])
		}
	}
	return []any{streams, expected, counts, ids, types, schemas, datas, metas}
}

// manyRow is what appendManySQL returns.
type manyRow struct {
	base       int64
	recordedAt time.Time
	versions   []int64
}

func (r manyRow) envelopes(appends []eventstore.StreamAppend, total int) []eventstore.Envelope {
	recordedAt := r.recordedAt.UTC()
	envs := make([]eventstore.Envelope, 0, total)
	var index int64
	for k, a := range appends {
		first := r.versions[k] - int64(len(a.Events)) + 1
		for i := range a.Events {
			e := &a.Events[i]
			index++
			envs = append(envs, eventstore.Envelope{
				ID: e.ID, StreamID: a.Stream, Version: first + int64(i), Position: r.base | index,
				Type: e.Type, SchemaVersion: e.SchemaVersion, Data: append(json.RawMessage(nil), e.Data...),
				Metadata: e.Metadata, RecordedAt: recordedAt,
			})
		}
	}
	return envs
}

// appendError turns what the append functions raise into the store's errors.
func appendError(err error, appends []eventstore.StreamAppend) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return fmt.Errorf("eventstore: append: %w", err)
	}
	switch pg.Code {
	case codeConflict:
		// DETAIL is "<index of the stream in the append, from 1> <its actual version>".
		k, actual, ok := strings.Cut(pg.Detail, " ")
		i, err1 := strconv.Atoi(k)
		v, err2 := strconv.ParseInt(actual, 10, 64)
		if !ok || err1 != nil || err2 != nil || i < 1 || i > len(appends) {
			return fmt.Errorf("eventstore: append: unreadable conflict %q: %w", pg.Detail, err)
		}
		a := appends[i-1]
		return &eventstore.ConcurrencyError{Stream: a.Stream, Expected: a.ExpectedVersion, Actual: v}
	case codeWriteBeforeAppend:
		return ErrWriteBeforeAppend
	case "22P02": // invalid_text_representation: not JSON
		return fmt.Errorf("%w: data or metadata is not valid JSON", eventstore.ErrInvalidEvent)
	case "22P05": // untranslatable_character: \u0000, which jsonb cannot hold
		return fmt.Errorf("%w: %w", eventstore.ErrInvalidEvent, eventstore.ErrNullCharacter)
	}
	return fmt.Errorf("eventstore: append: %w", err)
}

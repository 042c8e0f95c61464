// Package postgres is the PostgreSQL implementation of eventstore.Store.
//
// Global positions are (writer's transaction id << 16) | index. Readers only return events whose
// transaction id is below the xmin of their snapshot: every transaction below xmin has finished, so
// nothing can ever commit behind what a reader has already seen. This is what keeps projections
// from skipping events when transactions commit out of order, without serialising all writers on
// one lock (which would forfeit group commit).
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations is the event store's schema.
var Migrations = pgmigrate.MustFromFS("eventstore", migrationFS, "migrations")

// Channel is the NOTIFY channel announcing appends.
const Channel = "clearvest_events"

// streamLockNamespace is the first key of the per-stream advisory locks taken by appends.
const streamLockNamespace = 0x43564553 // "CVES"

// maxEventsPerAppend follows from the 16 index bits in a position.
const maxEventsPerAppend = 1<<16 - 1

// safeBelow is the exclusive upper bound of positions a reader may see now.
const safeBelow = `(pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16)`

const selectColumns = `position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at`

// Store is the PostgreSQL event store. Create it with New; Close stops its listener.
type Store struct {
	pool    *pgxpool.Pool
	logger  *slog.Logger
	signal  *Signal
	notifyQ chan struct{}

	pollInterval time.Duration
	metrics      *metrics
	// beforeCommit lets tests hold an append's transaction open after it has its position.
	beforeCommit func(context.Context, []eventstore.Envelope)
	startOnce    sync.Once
	cancel       context.CancelFunc
	wg           sync.WaitGroup
}

// Option configures a Store.
type Option func(*Store)

// WithPollInterval sets how often subscribers poll when no notification arrives (default 1s).
// Polling is only the fallback: appends are announced with NOTIFY.
func WithPollInterval(d time.Duration) Option { return func(s *Store) { s.pollInterval = d } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.logger = l } }

// New returns a store on pool. The schema must be migrated (Migrations).
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool, logger: slog.Default(), signal: NewSignal(), notifyQ: make(chan struct{}, 1), pollInterval: time.Second}
	for _, o := range opts {
		o(s)
	}
	return s
}

// start launches the LISTEN loop and the NOTIFY sender on first use.
func (s *Store) start() {
	s.startOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		s.wg.Add(2)
		go func() { defer s.wg.Done(); s.listen(ctx) }()
		go func() { defer s.wg.Done(); s.notifier(ctx) }()
	})
}

// Close stops background goroutines. It does not close the pool.
func (s *Store) Close() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
}

// Signal returns the broadcaster woken whenever new events may be readable (appends by this
// process, NOTIFY from others, or the poll ticker).
func (s *Store) Signal() *Signal {
	s.start()
	return s.signal
}

// Append implements eventstore.Store.
func (s *Store) Append(ctx context.Context, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	if err := eventstore.ValidateAppend(appends); err != nil {
		return nil, err
	}
	total := 0
	for _, a := range appends {
		total += len(a.Events)
	}
	if total > maxEventsPerAppend {
		return nil, fmt.Errorf("%w: at most %d events per append", eventstore.ErrInvalidEvent, maxEventsPerAppend)
	}
	start := time.Now()
	envs, err := s.appendTx(ctx, appends, total)
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

func (s *Store) appendTx(ctx context.Context, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("eventstore: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	envs, err := writeEvents(ctx, tx, appends, total)
	if err != nil {
		return nil, err
	}
	if s.beforeCommit != nil {
		s.beforeCommit(ctx, envs)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("eventstore: commit: %w", err)
	}
	return envs, nil
}

// AppendTx appends inside the caller's transaction, so that rows outside the log (a uniqueness
// index, credentials, an outbox message) commit atomically with the events that justify them.
// Call it before the transaction writes anything else (the stream-order guarantee depends on
// it), commit, then call Announce. It does not answer retries idempotently the way Append does.
func (s *Store) AppendTx(ctx context.Context, tx pgx.Tx, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	if err := eventstore.ValidateAppend(appends); err != nil {
		return nil, err
	}
	total := 0
	for _, a := range appends {
		total += len(a.Events)
	}
	if total > maxEventsPerAppend {
		return nil, fmt.Errorf("%w: at most %d events per append", eventstore.ErrInvalidEvent, maxEventsPerAppend)
	}
	return writeEvents(ctx, tx, appends, total)
}

// Announce tells subscribers in every process that new events were committed by AppendTx.
func (s *Store) Announce() { s.announce() }

func writeEvents(ctx context.Context, tx pgx.Tx, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, error) {
	// Lock the streams before the transaction writes anything. Advisory locks assign no
	// transaction id, so the id this transaction gets afterwards is higher than that of every
	// earlier writer of these streams: within a stream, position order is version order.
	// Sorted order avoids deadlocks between multi-stream appends.
	streamNames := make([]string, len(appends))
	for i, a := range appends {
		streamNames[i] = string(a.Stream)
	}
	slices.Sort(streamNames)
	// The lock, the transaction id and the stream versions go to the server in one round trip.
	// It runs them in order, so the id is still assigned only once the locks are held.
	batch := &pgx.Batch{}
	batch.Queue(`SELECT pg_advisory_xact_lock($1, hashtext(s)) FROM unnest($2::text[]) WITH ORDINALITY AS u(s, n) ORDER BY n`,
		streamLockNamespace, streamNames)
	batch.Queue(`SELECT pg_current_xact_id()::text::bigint, now()`)
	for _, a := range appends {
		queueReserveVersions(batch, a)
	}
	xid, recordedAt, newVersions, err := readReservations(ctx, tx, tx.SendBatch(ctx, batch), appends)
	if err != nil {
		return nil, err
	}
	recordedAt = recordedAt.UTC()

	envs := make([]eventstore.Envelope, 0, total)
	var (
		positions = make([]int64, 0, total)
		ids       = make([]uuid.UUID, 0, total)
		streamIDs = make([]string, 0, total)
		versions  = make([]int64, 0, total)
		types     = make([]string, 0, total)
		schemas   = make([]int32, 0, total)
		datas     = make([]string, 0, total)
		metadatas = make([]string, 0, total)
		index     int64
	)
	for k, a := range appends {
		first := newVersions[k] - int64(len(a.Events)) + 1
		for i, e := range a.Events {
			index++
			meta, err := json.Marshal(e.Metadata)
			if err != nil {
				return nil, fmt.Errorf("eventstore: metadata: %w", err)
			}
			env := eventstore.Envelope{
				ID: e.ID, StreamID: a.Stream, Version: first + int64(i), Position: xid<<16 | index,
				Type: e.Type, SchemaVersion: e.SchemaVersion, Data: append(json.RawMessage(nil), e.Data...),
				Metadata: e.Metadata, RecordedAt: recordedAt,
			}
			envs = append(envs, env)
			positions = append(positions, env.Position)
			ids = append(ids, env.ID)
			streamIDs = append(streamIDs, string(env.StreamID))
			versions = append(versions, env.Version)
			types = append(types, env.Type)
			schemas = append(schemas, int32(env.SchemaVersion))
			datas = append(datas, string(env.Data))
			metadatas = append(metadatas, string(meta))
		}
	}
	if total > 0 {
		_, err := tx.Exec(ctx, `INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
			SELECT p, i, s, v, t, sv, d::jsonb, m::jsonb, $9
			FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::text[], $8::text[])
			  AS u(p, i, s, v, t, sv, d, m)`,
			positions, ids, streamIDs, versions, types, schemas, datas, metadatas, recordedAt)
		if err != nil {
			if isInvalidJSON(err) {
				return nil, fmt.Errorf("%w: data or metadata is not valid JSON", eventstore.ErrInvalidEvent)
			}
			return nil, fmt.Errorf("eventstore: insert: %w", err)
		}
	}
	return envs, nil
}

// queueReserveVersions queues the statement that moves a stream's version forward by
// len(a.Events), checking the expectation; it returns the new version, or no row when the
// expectation fails. The streams row stays locked until commit.
func queueReserveVersions(batch *pgx.Batch, a eventstore.StreamAppend) {
	n := int64(len(a.Events))
	switch {
	case n == 0:
		// Nothing to write: only the expectation is checked (by readReservations).
		batch.Queue(`SELECT coalesce((SELECT version FROM streams WHERE stream_id = $1), 0)`, string(a.Stream))
	case a.ExpectedVersion == eventstore.AnyVersion:
		batch.Queue(`INSERT INTO streams (stream_id, version) VALUES ($1, $2)
			ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + EXCLUDED.version
			RETURNING version`, string(a.Stream), n)
	case a.ExpectedVersion == eventstore.NoStream:
		batch.Queue(`INSERT INTO streams (stream_id, version) VALUES ($1, $2)
			ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + EXCLUDED.version
			  WHERE streams.version = 0
			RETURNING version`, string(a.Stream), n)
	default:
		batch.Queue(`UPDATE streams SET version = version + $2 WHERE stream_id = $1 AND version = $3
			RETURNING version`, string(a.Stream), n, a.ExpectedVersion)
	}
}

// readReservations reads the results of writeEvents' batch: the transaction id, the time, and
// each stream's new version, or the first failed expectation as a *eventstore.ConcurrencyError.
func readReservations(ctx context.Context, tx pgx.Tx, br pgx.BatchResults, appends []eventstore.StreamAppend) (xid int64, recordedAt time.Time, versions []int64, err error) {
	defer func() {
		if closeErr := br.Close(); err == nil && closeErr != nil {
			err = fmt.Errorf("eventstore: stream version: %w", closeErr)
		}
	}()
	if _, err := br.Exec(); err != nil {
		return 0, time.Time{}, nil, fmt.Errorf("eventstore: lock streams: %w", err)
	}
	if err := br.QueryRow().Scan(&xid, &recordedAt); err != nil {
		return 0, time.Time{}, nil, fmt.Errorf("eventstore: transaction id: %w", err)
	}
	versions = make([]int64, len(appends))
	for i, a := range appends {
		err := br.QueryRow().Scan(&versions[i])
		if len(a.Events) == 0 && err == nil && a.ExpectedVersion != eventstore.AnyVersion && versions[i] != a.ExpectedVersion {
			return 0, time.Time{}, nil, &eventstore.ConcurrencyError{Stream: a.Stream, Expected: a.ExpectedVersion, Actual: versions[i]}
		}
		if errors.Is(err, pgx.ErrNoRows) {
			if err := br.Close(); err != nil {
				return 0, time.Time{}, nil, fmt.Errorf("eventstore: stream version: %w", err)
			}
			var actual int64
			if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT version FROM streams WHERE stream_id = $1), 0)`, string(a.Stream)).Scan(&actual); err != nil {
				return 0, time.Time{}, nil, fmt.Errorf("eventstore: stream version: %w", err)
			}
			return 0, time.Time{}, nil, &eventstore.ConcurrencyError{Stream: a.Stream, Expected: a.ExpectedVersion, Actual: actual}
		}
		if err != nil {
			return 0, time.Time{}, nil, fmt.Errorf("eventstore: stream version: %w", err)
		}
	}
	return xid, recordedAt, versions, nil
}

// lookupExisting returns the stored envelopes when every event of the append is stored already,
// in the same streams and with the same types.
func (s *Store) lookupExisting(ctx context.Context, appends []eventstore.StreamAppend, total int) ([]eventstore.Envelope, bool, error) {
	ids := make([]uuid.UUID, 0, total)
	for _, a := range appends {
		for _, e := range a.Events {
			ids = append(ids, e.ID)
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT `+selectColumns+` FROM events WHERE event_id = ANY($1)`, ids)
	if err != nil {
		return nil, false, fmt.Errorf("eventstore: lookup: %w", err)
	}
	found, err := scanEnvelopes(rows, total)
	if err != nil {
		return nil, false, err
	}
	if len(found) == 0 {
		return nil, false, nil
	}
	byID := make(map[uuid.UUID]eventstore.Envelope, len(found))
	for _, e := range found {
		byID[e.ID] = e
	}
	out := make([]eventstore.Envelope, 0, total)
	for _, a := range appends {
		for _, e := range a.Events {
			got, ok := byID[e.ID]
			if !ok || got.StreamID != a.Stream || got.Type != e.Type {
				return nil, false, fmt.Errorf("%w: event %s", eventstore.ErrDuplicateEvent, e.ID)
			}
			out = append(out, got)
		}
	}
	return out, true, nil
}

// ReadStream implements eventstore.Store. Stream reads are not limited by the xmin horizon:
// a stream's versions are gap-free by construction, and a command must see its own stream's
// latest committed state.
func (s *Store) ReadStream(ctx context.Context, stream eventstore.StreamID, fromVersion int64, limit int) ([]eventstore.Envelope, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+selectColumns+` FROM events WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3`,
		string(stream), fromVersion, limit)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read stream: %w", err)
	}
	// Most streams are short and every command reads one: a large up-front slice would cost
	// more to allocate and clear than growing a small one for the rare long stream.
	return scanEnvelopes(rows, min(limit, 16))
}

// ReadAll implements eventstore.Store.
func (s *Store) ReadAll(ctx context.Context, after int64, limit int) ([]eventstore.Envelope, error) {
	return ReadAll(ctx, s.pool, after, limit)
}

// Querier is satisfied by a pool, a connection and a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// ReadAll reads up to limit events after a position through any querier, so a projection can
// read inside its own transaction.
func ReadAll(ctx context.Context, q Querier, after int64, limit int) ([]eventstore.Envelope, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, `SELECT `+selectColumns+` FROM events WHERE position > $1 AND position < `+safeBelow+` ORDER BY position LIMIT $2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read all: %w", err)
	}
	return scanEnvelopes(rows, min(limit, 1024))
}

// Head implements eventstore.Store.
func (s *Store) Head(ctx context.Context) (int64, error) {
	var head int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM events WHERE position < `+safeBelow).Scan(&head)
	if err != nil {
		return 0, fmt.Errorf("eventstore: head: %w", err)
	}
	return head, nil
}

// Subscribe implements eventstore.Store.
func (s *Store) Subscribe(ctx context.Context, after int64, fn func(context.Context, []eventstore.Envelope) error) error {
	s.start()
	const batch = 1000
	for {
		wake := s.signal.Wait()
		events, err := s.ReadAll(ctx, after, batch)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if len(events) > 0 {
			if err := fn(ctx, events); err != nil {
				return err
			}
			after = events[len(events)-1].Position
			if len(events) == batch {
				continue
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

func scanEnvelopes(rows pgx.Rows, capacity int) ([]eventstore.Envelope, error) {
	defer rows.Close()
	out := make([]eventstore.Envelope, 0, capacity)
	for rows.Next() {
		var (
			e          eventstore.Envelope
			stream     string
			schema     int32
			data, meta []byte
		)
		// The id goes in as bytes and data as plain bytes: uuid.UUID's sql.Scanner would parse
		// the id from text, and json.RawMessage would be validated again by encoding/json,
		// though jsonb can only hold valid JSON. Rebuilds scan every row of the log.
		if err := rows.Scan(&e.Position, (*[16]byte)(&e.ID), &stream, &e.Version, &e.Type, &schema, &data, &meta, &e.RecordedAt); err != nil {
			return nil, fmt.Errorf("eventstore: scan: %w", err)
		}
		e.StreamID = eventstore.StreamID(stream)
		e.SchemaVersion = int(schema)
		e.Data = data
		e.RecordedAt = e.RecordedAt.UTC()
		if err := decodeMetadata(meta, &e.Metadata); err != nil {
			return nil, fmt.Errorf("eventstore: metadata of %s: %w", e.ID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventstore: read: %w", err)
	}
	return out, nil
}

// decodeMetadata is json.Unmarshal into m. Metadata as the store writes it (a flat object of
// plain ASCII strings under the exact field names) is decoded without reflection, which is
// most of the cost of reading the log; anything else — escapes, other keys, other value
// types — is left to encoding/json, so the result is always the same.
func decodeMetadata(b []byte, m *eventstore.Metadata) error {
	if decodeFlatMetadata(b, m) {
		return nil
	}
	*m = eventstore.Metadata{}
	return json.Unmarshal(b, m)
}

func decodeFlatMetadata(b []byte, m *eventstore.Metadata) bool {
	i := skipJSONSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false
	}
	if i = skipJSONSpace(b, i+1); i < len(b) && b[i] == '}' {
		return skipJSONSpace(b, i+1) == len(b)
	}
	for {
		key, next, ok := plainJSONString(b, i)
		if !ok {
			return false
		}
		if i = skipJSONSpace(b, next); i == len(b) || b[i] != ':' {
			return false
		}
		value, next, ok := plainJSONString(b, skipJSONSpace(b, i+1))
		if !ok {
			return false
		}
		var field *string
		switch string(key) {
		case "correlationId":
			field = &m.CorrelationID
		case "causationId":
			field = &m.CausationID
		case "actorId":
			field = &m.ActorID
		case "actorRole":
			field = &m.ActorRole
		case "impersonatorId":
			field = &m.ImpersonatorID
		case "idempotencyKey":
			field = &m.IdempotencyKey
		case "requestHash":
			field = &m.RequestHash
		case "clientIp":
			field = &m.ClientIP
		default:
			return false
		}
		*field = string(value)
		if i = skipJSONSpace(b, next); i == len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return skipJSONSpace(b, i+1) == len(b)
		case ',':
			i = skipJSONSpace(b, i+1)
		default:
			return false
		}
	}
}

// plainJSONString returns the contents of the string starting at b[i] and the index after it,
// if it is made of printable ASCII without escapes.
func plainJSONString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func isUniqueViolation(err error, constraint string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505" && pg.ConstraintName == constraint
}

func isInvalidJSON(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "22P02"
}

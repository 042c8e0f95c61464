// Package postgres is the PostgreSQL implementation of eventstore.Store.
//
// Global positions are ((writer's transaction id + offset) << 16) | index. The offset, kept in
// the database, keeps positions increasing when a dump is restored into another cluster, whose
// transaction ids start again low (positions.go). Appends take their streams' advisory locks
// before their transaction gets an id; readers only return events below the lowest id of a
// running transaction that may still be such an append (eventstore_visible_below), so nothing
// can ever commit behind what a reader has already seen. This keeps projections from skipping
// events when transactions commit out of order, without serialising all writers on one lock
// (which would forfeit group commit), and without waiting for transactions that write anything
// else, in this database or another.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
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

// streamLockNamespaceSQL is the first key of the per-stream advisory locks taken by appends,
// 0x43564553 ("CVES"); migrations/0002_positions.sql names it too, and readers look for it.
const streamLockNamespaceSQL = "1129727315"

// maxEventsPerAppend follows from the 16 index bits in a position.
const maxEventsPerAppend = 1<<16 - 1

// Readers compute the visibility bound (migrations/0002_positions.sql) in one statement and
// read below it in the next, sent together in one round trip: in READ COMMITTED the second
// statement's snapshot is later than the first, so transactions that ended in between need not
// hold the read back, and the bound never goes down from one read to the next. The bound goes
// from one statement to the other as a setting local to the transaction.
const (
	setVisibleBelow = `SELECT set_config('clearvest.visible_below', eventstore_visible_below(true)::text, true)`
	visibleBelow    = `current_setting('clearvest.visible_below')::bigint`
)

const selectColumns = `position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at`

// Store is the PostgreSQL event store. Create it with New; Close stops its listener.
type Store struct {
	pool    *pgxpool.Pool
	logger  *slog.Logger
	signal  *Signal
	notifyQ chan struct{}

	pollInterval time.Duration
	metrics      *metrics
	// beforeCommit lets tests hold an append's transaction open after it has its position;
	// with it, appends run in an explicit transaction.
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

// ReadStream implements eventstore.Store. Stream reads are not limited by the visibility bound:
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
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// ReadAll reads up to limit events after a position through any querier, so a projection can
// read inside its own transaction (READ COMMITTED or REPEATABLE READ).
func ReadAll(ctx context.Context, q Querier, after int64, limit int) ([]eventstore.Envelope, error) {
	return readAll(ctx, q, after, limit,
		`SELECT `+selectColumns+` FROM events WHERE position > $1 AND position < `+visibleBelow+` ORDER BY position LIMIT $2`)
}

// ReadAllWithoutPayloads reads like ReadAll, but leaves Data and Metadata empty for the events of
// the streams of the given categories. A reader that reads those streams again anyway (`events
// verify`) spares the server writing out their JSON: on a log of ten million events, that is
// two thirds of what reading it costs the server.
func (s *Store) ReadAllWithoutPayloads(ctx context.Context, after int64, limit int, categories []string) ([]eventstore.Envelope, error) {
	const bare = `split_part(stream_id, '-', 1) = ANY($3)`
	return readAll(ctx, s.pool, after, limit,
		`SELECT position, event_id, stream_id, version, type, schema_version,
			CASE WHEN `+bare+` THEN NULL ELSE data END, CASE WHEN `+bare+` THEN NULL ELSE metadata END, recorded_at
		FROM events WHERE position > $1 AND position < `+visibleBelow+` ORDER BY position LIMIT $2`, categories)
}

// readAll runs query, which reads up to $2 events after position $1 below the visibility bound,
// with any further arguments.
func readAll(ctx context.Context, q Querier, after int64, limit int, query string, args ...any) ([]eventstore.Envelope, error) {
	if limit <= 0 {
		return nil, nil
	}
	batch := &pgx.Batch{}
	batch.Queue(setVisibleBelow)
	batch.Queue(query, append([]any{after, limit}, args...)...)
	br := q.SendBatch(ctx, batch)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("eventstore: read all: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("eventstore: read all: %w", err)
	}
	events, err := scanEnvelopes(rows, min(limit, 1024))
	if err != nil {
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("eventstore: read all: %w", err)
	}
	return events, nil
}

// Head implements eventstore.Store.
func (s *Store) Head(ctx context.Context) (int64, error) {
	batch := &pgx.Batch{}
	batch.Queue(setVisibleBelow)
	batch.Queue(`SELECT coalesce(max(position), 0) FROM events WHERE position < ` + visibleBelow)
	br := s.pool.SendBatch(ctx, batch)
	defer br.Close()
	var head int64
	if _, err := br.Exec(); err != nil {
		return 0, fmt.Errorf("eventstore: head: %w", err)
	}
	if err := br.QueryRow().Scan(&head); err != nil {
		return 0, fmt.Errorf("eventstore: head: %w", err)
	}
	if err := br.Close(); err != nil {
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
		if meta != nil { // nil: left out by ReadAllWithoutPayloads (the column is NOT NULL)
			if err := decodeMetadata(meta, &e.Metadata); err != nil {
				return nil, fmt.Errorf("eventstore: metadata of %s: %w", e.ID, err)
			}
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventstore: read: %w", err)
	}
	return out, nil
}

func isUniqueViolation(err error, constraint string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505" && pg.ConstraintName == constraint
}

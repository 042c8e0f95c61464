// Package catalogue is the auditors' overview of the event log: every stream with its version and
// last event, and how many events of each type exist. It reads only envelopes, never payloads, so
// it covers every event type, including ones added later.
package catalogue

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_catalogue.
const Name = "catalogue"

// Projection implements projections.Projection.
type Projection struct{}

var _ projections.Projection = Projection{}

// Name implements projections.Projection.
func (Projection) Name() string { return Name }

// Schema implements projections.Projection.
func (Projection) Schema() string {
	return `
CREATE TABLE streams (
    stream_id     text        PRIMARY KEY,
    category      text        NOT NULL,
    version       bigint      NOT NULL,
    last_type     text        NOT NULL,
    last_position bigint      NOT NULL,
    first_at      timestamptz NOT NULL,
    last_at       timestamptz NOT NULL
) WITH (fillfactor = 80);
-- Nearly every event rewrites its stream's row. Indexing only columns that never change (and
-- leaving room on each page) lets PostgreSQL update rows in place (HOT) instead of writing new
-- index entries for every event.
CREATE INDEX streams_by_category ON streams (category);
CREATE TABLE event_types (
    type          text        PRIMARY KEY,
    events        bigint      NOT NULL,
    last_position bigint      NOT NULL
);`
}

type streamRow struct {
	version, lastPosition int64
	lastType              string
	firstAt, lastAt       time.Time
}

type typeRow struct{ events, lastPosition int64 }

// Apply folds the batch in memory and writes one upsert per table, so a batch costs two
// statements however many events it holds.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	streams := map[eventstore.StreamID]*streamRow{}
	types := map[string]*typeRow{}
	for _, e := range events {
		s := streams[e.StreamID]
		if s == nil {
			s = &streamRow{firstAt: e.RecordedAt}
			streams[e.StreamID] = s
		}
		s.version, s.lastPosition, s.lastType, s.lastAt = e.Version, e.Position, e.Type, e.RecordedAt
		t := types[e.Type]
		if t == nil {
			t = &typeRow{}
			types[e.Type] = t
		}
		t.events++
		t.lastPosition = e.Position
	}
	var (
		ids, cats, lastTypes []string
		versions, positions  []int64
		firsts, lasts        []time.Time
	)
	for id, s := range streams {
		ids = append(ids, string(id))
		cats = append(cats, id.Category())
		versions = append(versions, s.version)
		lastTypes = append(lastTypes, s.lastType)
		positions = append(positions, s.lastPosition)
		firsts = append(firsts, s.firstAt)
		lasts = append(lasts, s.lastAt)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO streams (stream_id, category, version, last_type, last_position, first_at, last_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::timestamptz[], $7::timestamptz[])
		ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, last_type = EXCLUDED.last_type,
		  last_position = EXCLUDED.last_position, last_at = EXCLUDED.last_at`,
		ids, cats, versions, lastTypes, positions, firsts, lasts); err != nil {
		return fmt.Errorf("streams: %w", err)
	}
	var names []string
	var counts, lastPositions []int64
	for name, t := range types {
		names = append(names, name)
		counts = append(counts, t.events)
		lastPositions = append(lastPositions, t.lastPosition)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO event_types (type, events, last_position)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
		ON CONFLICT (type) DO UPDATE SET events = event_types.events + EXCLUDED.events, last_position = EXCLUDED.last_position`,
		names, counts, lastPositions); err != nil {
		return fmt.Errorf("event types: %w", err)
	}
	return nil
}

// Stream is one row of the catalogue.
type Stream struct {
	StreamID     string    `json:"streamId"`
	Category     string    `json:"category"`
	Version      int64     `json:"version"`
	LastType     string    `json:"lastType"`
	LastPosition int64     `json:"lastPosition"`
	FirstAt      time.Time `json:"firstAt"`
	LastAt       time.Time `json:"lastAt"`
}

// TypeCount is how many events of one type exist.
type TypeCount struct {
	Type   string `json:"type"`
	Events int64  `json:"events"`
}

// Streams lists the streams of a category, most recently changed first.
func Streams(ctx context.Context, pool *pgxpool.Pool, category string, limit int) ([]Stream, error) {
	rows, err := pool.Query(ctx, `SELECT stream_id, category, version, last_type, last_position, first_at, last_at
		FROM rm_catalogue.streams WHERE category = $1 ORDER BY last_position DESC LIMIT $2`, category, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Stream, error) {
		var s Stream
		err := row.Scan(&s.StreamID, &s.Category, &s.Version, &s.LastType, &s.LastPosition, &s.FirstAt, &s.LastAt)
		s.FirstAt, s.LastAt = s.FirstAt.UTC(), s.LastAt.UTC()
		return s, err
	})
}

// EventTypes lists event counts by type, by name.
func EventTypes(ctx context.Context, pool *pgxpool.Pool) ([]TypeCount, error) {
	rows, err := pool.Query(ctx, `SELECT type, events FROM rm_catalogue.event_types`)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[TypeCount])
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out, err
}

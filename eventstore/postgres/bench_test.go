package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/eventstore/postgres/postgrestest"
	"clearvest/platform/pgtest"
)

func benchStore(b *testing.B, pool *pgxpool.Pool) *postgres.Store {
	s := postgres.New(pool, postgres.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	b.Cleanup(s.Close)
	return s
}

// benchEvent is shaped like a command's event: a small payload and the metadata Execute adds.
func benchEvent(n int) eventstore.NewEvent {
	id := eventstore.NewEventID()
	return eventstore.NewEvent{
		ID: id, Type: postgrestest.EventTypes[n%len(postgrestest.EventTypes)], SchemaVersion: 1,
		Data:     json.RawMessage(fmt.Sprintf(`{"amount":"%d.00","currency":"EUR","reference":"ref-%08d"}`, 100+n%900, n)),
		Metadata: eventstore.Metadata{CorrelationID: id.String(), CausationID: id.String(), ActorID: "user-bench", ActorRole: "customer"},
	}
}

// BenchmarkAppendBatch10 appends 10 events to one stream per call, expecting its version, beside
// one multi-row INSERT of the same 10 rows per transaction. Compare with: benchstat -col /impl.
func BenchmarkAppendBatch10(b *testing.B) {
	const batch, streamEvents = 10, 100
	b.Run("impl=clearvest", func(b *testing.B) {
		pool := postgrestest.Pool(b)
		store := benchStore(b, pool)
		ctx := context.Background()
		var latencies []time.Duration
		cpu := pgtest.NewCPUMeter(pool)
		cpu.Start()
		start := time.Now()
		for i := 0; b.Loop(); i++ {
			events := make([]eventstore.NewEvent, batch)
			for j := range events {
				events[j] = benchEvent(i*batch + j)
			}
			stream := eventstore.StreamID(fmt.Sprintf("account-%d", i*batch/streamEvents))
			t0 := time.Now()
			if _, err := store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: int64(i * batch % streamEvents), Events: events}); err != nil {
				b.Fatal(err)
			}
			latencies = append(latencies, time.Since(t0))
		}
		reportBatches(b, latencies, time.Since(start), batch)
		cpu.Report(b, float64(len(latencies)), "us/op")
	})
	b.Run("impl=raw-sql", func(b *testing.B) {
		pool := postgrestest.Pool(b)
		ctx := context.Background()
		// Same columns, types, keys and indexes as the log; no streams table, lock or trigger.
		if _, err := pool.Exec(ctx, `CREATE TABLE raw_events (LIKE events INCLUDING ALL)`); err != nil {
			b.Fatal(err)
		}
		var sql strings.Builder
		sql.WriteString(`INSERT INTO raw_events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at) VALUES `)
		for j := range batch {
			if j > 0 {
				sql.WriteString(", ")
			}
			p := j*7 + 1
			fmt.Fprintf(&sql, "($%d, $%d, $%d, $%d, $%d, 1, $%d, $%d, now())", p, p+1, p+2, p+3, p+4, p+5, p+6)
		}
		var latencies []time.Duration
		args := make([]any, 0, batch*7)
		cpu := pgtest.NewCPUMeter(pool)
		cpu.Start()
		start := time.Now()
		for i := 0; b.Loop(); i++ {
			events := make([]eventstore.NewEvent, batch)
			for j := range events {
				events[j] = benchEvent(i*batch + j)
			}
			stream := fmt.Sprintf("account-%d", i*batch/streamEvents)
			t0 := time.Now()
			args = args[:0]
			for j, e := range events {
				meta, err := json.Marshal(e.Metadata)
				if err != nil {
					b.Fatal(err)
				}
				args = append(args, int64(i*batch+j+1), e.ID, stream, int64(i*batch%streamEvents+j+1), e.Type, string(e.Data), string(meta))
			}
			if _, err := pool.Exec(ctx, sql.String(), args...); err != nil {
				b.Fatal(err)
			}
			latencies = append(latencies, time.Since(t0))
		}
		reportBatches(b, latencies, time.Since(start), batch)
		cpu.Report(b, float64(len(latencies)), "us/op")
	})
}

// BenchmarkAppend appends one event per call with its expected version, the shape of almost every
// command, from 1 and from 10 concurrent writers (each on its own streams), beside a single-row
// INSERT per transaction of the same row. Compare with: benchstat -col /impl.
func BenchmarkAppend(b *testing.B) {
	const streamEvents = 20
	for _, writers := range []int{1, 10} {
		b.Run(fmt.Sprintf("writers=%d/impl=clearvest", writers), func(b *testing.B) {
			pool := postgrestest.Pool(b)
			store := benchStore(b, pool)
			pgtest.RunWriters(b, pool, writers, "appends/s", func(ctx context.Context, w, op int) error {
				stream := eventstore.StreamID(fmt.Sprintf("account-w%d-%d", w, op/streamEvents))
				_, err := store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: int64(op % streamEvents),
					Events: []eventstore.NewEvent{benchEvent(op)}})
				return err
			})
		})
		b.Run(fmt.Sprintf("writers=%d/impl=raw-sql", writers), func(b *testing.B) {
			pool := postgrestest.Pool(b)
			if _, err := pool.Exec(context.Background(), `CREATE TABLE raw_events (LIKE events INCLUDING ALL)`); err != nil {
				b.Fatal(err)
			}
			var position atomic.Int64
			pgtest.RunWriters(b, pool, writers, "appends/s", func(ctx context.Context, w, op int) error {
				e := benchEvent(op)
				meta, err := json.Marshal(e.Metadata)
				if err != nil {
					return err
				}
				_, err = pool.Exec(ctx, `INSERT INTO raw_events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
					VALUES ($1, $2, $3, $4, $5, 1, $6, $7, now())`,
					position.Add(1), e.ID, fmt.Sprintf("account-w%d-%d", w, op/streamEvents), int64(op%streamEvents)+1, e.Type, string(e.Data), string(meta))
				return err
			})
		})
	}
}

func reportBatches(b *testing.B, latencies []time.Duration, elapsed time.Duration, batch int) {
	b.ReportMetric(float64(len(latencies)*batch)/elapsed.Seconds(), "events/s")
	pgtest.ReportLatencies(b, latencies)
}

// BenchmarkReadAll reads a log of 100,000 events from the start in pages of 1,000, beside a
// keyset-paged SELECT of the same rows into the same envelopes (rawReadPage). Compare with:
// benchstat -col /impl.
func BenchmarkReadAll(b *testing.B) {
	const events, streams, page = 100_000, 1_000, 1_000
	pool := postgrestest.Pool(b)
	store := benchStore(b, pool)
	last := postgrestest.FillLog(b, pool, events, streams)
	ctx := context.Background()
	// A transaction left open elsewhere on the server holds the log back (the xmin horizon);
	// reading before every event is visible would read less, not faster.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		head, err := store.Head(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if head >= last {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the log is visible up to %d of %d after a minute: a transaction on the server is holding the xmin horizon", head, last)
		}
	}

	readAll := func(b *testing.B, next func(after int64) ([]eventstore.Envelope, error)) {
		total := 0
		cpu := pgtest.NewCPUMeter(pool)
		cpu.Start()
		for b.Loop() {
			var after int64
			for {
				got, err := next(after)
				if err != nil {
					b.Fatal(err)
				}
				total += len(got)
				if len(got) < page {
					break
				}
				after = got[len(got)-1].Position
			}
		}
		if total%events != 0 {
			b.Fatalf("read %d events, not a multiple of %d", total, events)
		}
		b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
		cpu.Report(b, float64(total), "ns/event")
	}
	b.Run("impl=clearvest", func(b *testing.B) {
		readAll(b, func(after int64) ([]eventstore.Envelope, error) { return store.ReadAll(ctx, after, page) })
	})
	b.Run("impl=raw-sql", func(b *testing.B) {
		readAll(b, func(after int64) ([]eventstore.Envelope, error) { return rawReadPage(ctx, pool, after, page) })
	})
}

// rawReadPage is the plain-SQL version of one ReadAll page: no visibility bound, each column
// scanned the cheapest way pgx offers, metadata decoded with encoding/json.
func rawReadPage(ctx context.Context, pool *pgxpool.Pool, after int64, limit int) ([]eventstore.Envelope, error) {
	rows, err := pool.Query(ctx, `SELECT position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at
		FROM events WHERE position > $1 ORDER BY position LIMIT $2`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]eventstore.Envelope, 0, limit)
	for rows.Next() {
		var (
			e          eventstore.Envelope
			stream     string
			schema     int32
			data, meta []byte
		)
		if err := rows.Scan(&e.Position, (*[16]byte)(&e.ID), &stream, &e.Version, &e.Type, &schema, &data, &meta, &e.RecordedAt); err != nil {
			return nil, err
		}
		e.StreamID, e.SchemaVersion, e.Data, e.RecordedAt = eventstore.StreamID(stream), int(schema), data, e.RecordedAt.UTC()
		if err := json.Unmarshal(meta, &e.Metadata); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

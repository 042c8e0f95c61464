package projections_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/eventstore/postgres/postgrestest"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/catalogue"
)

type benchFixture struct {
	pool   *pgxpool.Pool
	runner *projections.Runner
	last   int64 // position of the last event
}

// newBenchFixture opens a fresh database (pool sized like serve's), writes a log of n events
// over the given number of streams, and prepares a runner with the catalogue projection.
func newBenchFixture(b *testing.B, n, streams int) benchFixture {
	b.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 20
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if err := pgmigrate.Apply(ctx, pool, postgres.Migrations, projections.Migrations); err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := postgres.New(pool, postgres.WithLogger(quiet))
	b.Cleanup(store.Close)
	runner, err := projections.NewRunner(pool, store, []projections.Projection{catalogue.Projection{}},
		projections.WithLogger(quiet), projections.WithWaitTimeout(5*time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	if err := runner.Prepare(ctx); err != nil {
		b.Fatal(err)
	}
	f := benchFixture{pool: pool, runner: runner, last: postgrestest.FillLog(b, pool, n, streams)}
	// A transaction left open elsewhere on the server holds the log back (the xmin horizon);
	// measuring before every event is visible would time that wait instead.
	deadline := time.Now().Add(time.Minute)
	for {
		head, err := store.Head(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if head >= f.last {
			return f
		}
		if time.Now().After(deadline) {
			b.Fatalf("the log is visible up to %d of %d after a minute: a transaction on the server is holding the xmin horizon", head, f.last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// catalogueChecksum fingerprints the rows of a catalogue read model in schema, so that a
// baseline can prove it produced the same rows as the projection.
func catalogueChecksum(b *testing.B, pool *pgxpool.Pool, schema string) string {
	b.Helper()
	s := pgx.Identifier{schema}.Sanitize()
	var sum string
	err := pool.QueryRow(context.Background(), `SELECT
		  (SELECT coalesce(md5(string_agg(format('%s|%s|%s|%s|%s|%s|%s', stream_id, category, version, last_type, last_position, first_at, last_at), ',' ORDER BY stream_id)), '') FROM `+s+`.streams)
		  || (SELECT coalesce(md5(string_agg(format('%s|%s|%s', type, events, last_position), ',' ORDER BY type)), '') FROM `+s+`.event_types)`).Scan(&sum)
	if err != nil {
		b.Fatal(err)
	}
	return sum
}

// sameRows fails the benchmark when two checksums were both taken and differ.
func sameRows(b *testing.B, a, c string) {
	if a != "" && c != "" && a != c {
		b.Fatalf("the raw-SQL baseline built other rows than the projection")
	}
}

// catalogueInsertSQL builds the catalogue's rows from the events of the relation `from`. Within a
// stream of these logs, versions, positions and times rise together, so max and min pick the
// same values the projection keeps from the last and the first event.
func catalogueInsertSQL(streams, types, from string) (string, string) {
	return `INSERT INTO ` + streams + ` AS t (stream_id, category, version, last_type, last_position, first_at, last_at)
		SELECT stream_id, split_part(stream_id, '-', 1), max(version), (array_agg(type ORDER BY position DESC))[1],
		  max(position), min(recorded_at), max(recorded_at)
		FROM ` + from + ` GROUP BY stream_id
		ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, last_type = EXCLUDED.last_type,
		  last_position = EXCLUDED.last_position, last_at = EXCLUDED.last_at`,
		`INSERT INTO ` + types + ` AS t (type, events, last_position)
		SELECT type, count(*), max(position) FROM ` + from + ` GROUP BY type
		ON CONFLICT (type) DO UPDATE SET events = t.events + EXCLUDED.events, last_position = EXCLUDED.last_position`
}

// BenchmarkRebuild rebuilds the catalogue over 200,000 events in 2,000 streams. Baselines: raw-sql
// builds the same rows inside the database with one INSERT ... SELECT ... GROUP BY per table
// (the floor: no row leaves the server); raw-read only reads the same rows into envelopes in
// keyset pages of the rebuild's size (what any Go-side rebuild has to pay before applying).
func BenchmarkRebuild(b *testing.B) {
	const events, streams = 200_000, 2_000
	f := newBenchFixture(b, events, streams)
	ctx := context.Background()
	var projected, raw string

	b.Run("impl=clearvest", func(b *testing.B) {
		var total int64
		cpu := pgtest.NewCPUMeter(f.pool)
		cpu.Start()
		for b.Loop() {
			res, err := f.runner.Rebuild(ctx, catalogue.Name)
			if err != nil {
				b.Fatal(err)
			}
			total += res.Events
		}
		if total%events != 0 {
			b.Fatalf("rebuilt %d events, not a multiple of %d", total, events)
		}
		b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
		cpu.Report(b, float64(total), "ns/event")
		projected = catalogueChecksum(b, f.pool, projections.SchemaName(catalogue.Name))
	})
	b.Run("impl=raw-sql", func(b *testing.B) {
		const schema = "rm_catalogue_rawsql"
		insertStreams, insertTypes := catalogueInsertSQL(schema+".streams", schema+".event_types", "events")
		rebuilds := 0
		cpu := pgtest.NewCPUMeter(f.pool)
		cpu.Start()
		for b.Loop() {
			rebuilds++
			err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
				for _, sql := range []string{
					`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`,
					`CREATE SCHEMA ` + schema,
					`SET LOCAL search_path = ` + schema + `, public`,
					catalogue.Projection{}.Schema(),
					insertStreams,
					insertTypes,
				} {
					if _, err := tx.Exec(ctx, sql); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(events*rebuilds)/b.Elapsed().Seconds(), "events/s")
		cpu.Report(b, float64(events*rebuilds), "ns/event")
		raw = catalogueChecksum(b, f.pool, schema)
		sameRows(b, projected, raw)
	})
	b.Run("impl=raw-read", func(b *testing.B) {
		const page = 20_000 // the rebuild's batch
		total := 0
		cpu := pgtest.NewCPUMeter(f.pool)
		cpu.Start()
		for b.Loop() {
			var after int64
			for {
				got, err := rawReadPage(ctx, f.pool, after, page)
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
		b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
		cpu.Report(b, float64(total), "ns/event")
	})
}

// BenchmarkLiveCatchUp starts the live runner (Run) 100,000 events behind, as after downtime or
// a burst, and times it until WaitFor sees the checkpoint at the last position. Baseline: raw-sql
// applies the same batches of 1,000 events, one transaction each, as a single statement that
// selects the batch, upserts the same rows and moves the checkpoint (no row leaves the server).
func BenchmarkLiveCatchUp(b *testing.B) {
	const events, streams = 100_000, 2_000
	f := newBenchFixture(b, events, streams)
	ctx := context.Background()
	live := projections.SchemaName(catalogue.Name)
	var projected, raw string

	// reset puts the read model and its checkpoint back to the empty start.
	reset := func(b *testing.B) {
		b.Helper()
		err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `TRUNCATE `+live+`.streams, `+live+`.event_types`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE projection_checkpoints SET position = 0, events_applied = 0, last_event_at = NULL WHERE name = $1`, catalogue.Name)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	applied := func(b *testing.B) int64 {
		b.Helper()
		var n int64
		if err := f.pool.QueryRow(ctx, `SELECT events_applied FROM projection_checkpoints WHERE name = $1`, catalogue.Name).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}

	b.Run("impl=clearvest", func(b *testing.B) {
		var total int64
		cpu := pgtest.NewCPUMeter(f.pool)
		for b.Loop() {
			b.StopTimer()
			reset(b)
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			cpu.Start()
			b.StartTimer()
			go func() { done <- f.runner.Run(runCtx) }()
			err := f.runner.WaitFor(ctx, f.last)
			b.StopTimer()
			cpu.Stop()
			stop()
			<-done
			if err != nil {
				b.Fatal(err)
			}
			total += applied(b)
			b.StartTimer()
		}
		b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
		cpu.Report(b, float64(total), "ns/event")
		projected = catalogueChecksum(b, f.pool, live)
	})
	b.Run("impl=raw-sql", func(b *testing.B) {
		const batch = 1000 // the live runner's default
		insertStreams, insertTypes := catalogueInsertSQL(live+".streams", live+".event_types", "batch")
		step := `WITH batch AS (
			  SELECT position, stream_id, version, type, recorded_at FROM events
			  WHERE position > (SELECT position FROM projection_checkpoints WHERE name = $1)
			  ORDER BY position LIMIT $2),
			s AS (` + insertStreams + `),
			ty AS (` + insertTypes + `),
			cp AS (UPDATE projection_checkpoints
			  SET position = (SELECT max(position) FROM batch), events_applied = events_applied + (SELECT count(*) FROM batch),
			    last_event_at = (SELECT max(recorded_at) FROM batch), updated_at = now()
			  WHERE name = $1 AND EXISTS (SELECT FROM batch))
			SELECT count(*) FROM batch`
		var total int64
		cpu := pgtest.NewCPUMeter(f.pool)
		for b.Loop() {
			b.StopTimer()
			reset(b)
			cpu.Start()
			b.StartTimer()
			for {
				var n int
				if err := f.pool.QueryRow(ctx, step, catalogue.Name, batch).Scan(&n); err != nil {
					b.Fatal(err)
				}
				if n < batch {
					break
				}
			}
			b.StopTimer()
			cpu.Stop()
			total += applied(b)
			b.StartTimer()
		}
		b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
		cpu.Report(b, float64(total), "ns/event")
		raw = catalogueChecksum(b, f.pool, live)
		sameRows(b, projected, raw)
	})
}

// rawReadPage reads one keyset page of the log with plain SQL into the same envelopes ReadAll
// returns: no visibility bound, each column scanned the cheapest way pgx offers, metadata
// decoded with encoding/json.
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

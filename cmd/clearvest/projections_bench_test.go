package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore/postgres"
	"clearvest/eventstore/postgres/postgrestest"
	"clearvest/platform/pgtest"
	"clearvest/projections"
)

// BenchmarkLiveCatchUpAll starts the live runner (Run) with every read model of the product
// (allProjections) at the start of a log of money events and times it until WaitFor sees every
// checkpoint at the head: the shared windows in which several read models apply the same events.
// The log is one scripts/cmdbench/moneylog wrote into a migrated database named by
// BENCH_MONEYLOG_URL (docs/benchmarks.md, "Projections: rebuild and live catch-up"); the read
// models in it are emptied before each run. events/s counts events of the log, each passed by
// every read model; the CPU meter splits the time per event into this process's and the
// database server's.
func BenchmarkLiveCatchUpAll(b *testing.B) {
	ctx := context.Background()
	pool, store, runner := moneylogRunner(b, projections.WithWaitTimeout(10*time.Minute))
	if err := runner.Prepare(ctx); err != nil {
		b.Fatal(err)
	}
	head, err := store.Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil {
		b.Fatal(err)
	}
	names := runner.Names()
	schemas := make([]string, len(names))
	for i, n := range names {
		schemas[i] = projections.SchemaName(n)
	}
	reset := func() {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var tables []string
			rows, err := tx.Query(ctx, `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = ANY($1)`, schemas)
			if err != nil {
				return err
			}
			if tables, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
				return err
			}
			for _, t := range tables {
				if _, err := tx.Exec(ctx, `TRUNCATE `+t+` CASCADE`); err != nil {
					return err
				}
			}
			_, err = tx.Exec(ctx, `UPDATE projection_checkpoints SET position = 0, events_applied = 0, last_event_at = NULL WHERE name = ANY($1)`, names)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}

	var total int64
	cpu := pgtest.NewCPUMeter(pool)
	for b.Loop() {
		b.StopTimer()
		reset()
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		cpu.Start()
		b.StartTimer()
		go func() { done <- runner.Run(runCtx) }()
		err := runner.WaitFor(ctx, head)
		b.StopTimer()
		cpu.Stop()
		stop()
		<-done
		if err != nil {
			b.Fatal(err)
		}
		total += events
		b.StartTimer()
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
	cpu.Report(b, float64(total), "us/event")
}

// BenchmarkRebuildMoneylog rebuilds read models from zero on a money log, as `clearvest
// projections rebuild` does, so a CPU profile (-cpuprofile) shows where a rebuild's time goes
// (docs/benchmarks.md, "Cost as history grows"). BENCH_MONEYLOG_URL names the database, as for
// BenchmarkLiveCatchUpAll; BENCH_REBUILD the read models, comma-separated (default: every one).
// events/s counts the log's events once per read model rebuilt; the CPU meter splits the time per
// event into this process's and the database server's, which on a shared machine varies less
// than the wall time.
func BenchmarkRebuildMoneylog(b *testing.B) {
	ctx := context.Background()
	pool, _, runner := moneylogRunner(b)
	if err := runner.Prepare(ctx); err != nil {
		b.Fatal(err)
	}
	names := runner.Names()
	if s := os.Getenv("BENCH_REBUILD"); s != "" {
		names = strings.Split(s, ",")
	}
	var events int64
	cpu := pgtest.NewCPUMeter(pool)
	for b.Loop() {
		cpu.Start()
		for _, name := range names {
			res, err := runner.Rebuild(ctx, name)
			if err != nil {
				b.Fatal(err)
			}
			events += int64(res.Events)
		}
		cpu.Stop()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	cpu.Report(b, float64(events), "us/event")
}

// BenchmarkVerifyMoneylog runs `clearvest events verify` on the money log BENCH_MONEYLOG_URL
// names, in this process, so a CPU profile (-cpuprofile) shows where the audit's time goes
// (docs/benchmarks.md, "Cost as history grows"). BENCH_DATA_DIR names the data directory whose
// keys open the log's sealed fields, if it has any.
func BenchmarkVerifyMoneylog(b *testing.B) {
	url := os.Getenv("BENCH_MONEYLOG_URL")
	if url == "" {
		b.Skip("BENCH_MONEYLOG_URL names no database with a money log")
	}
	b.Setenv("DATABASE_URL", url)
	b.Setenv("CLEARVEST_ENV", "development")
	// A log with signed-up users has sealed personal fields: their keys are in the data
	// directory of the server that wrote them (BENCH_DATA_DIR).
	dir := os.Getenv("BENCH_DATA_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	b.Setenv("CLEARVEST_DATA_DIR", dir)
	for b.Loop() {
		if err := run(context.Background(), []string{"events", "verify"}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// moneylogRunner opens the database of a money log BENCH_MONEYLOG_URL names (skipping the
// benchmark when it names none) and returns its pool, store and a quiet runner of every read model.
func moneylogRunner(b *testing.B, opts ...projections.Option) (*pgxpool.Pool, *postgres.Store, *projections.Runner) {
	b.Helper()
	url := os.Getenv("BENCH_MONEYLOG_URL")
	if url == "" {
		b.Skip("BENCH_MONEYLOG_URL names no database with a money log")
	}
	pool := postgrestest.PoolAt(b, url)
	quiet := slog.New(slog.DiscardHandler)
	store := postgres.New(pool, postgres.WithLogger(quiet))
	b.Cleanup(store.Close)
	runner, err := projections.NewRunner(pool, store, allProjections(newRegistry()), append([]projections.Option{projections.WithLogger(quiet)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	return pool, store, runner
}

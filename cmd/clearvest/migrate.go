package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
)

const migrateUsage = `Usage: clearvest migrate

Applies every pending database migration (event store first, then read models) and reports
what it did. After a restore into another PostgreSQL cluster it also moves event positions
above the restored log (docs/eventstore.md, "Backups and restores"). Safe to run while other
processes use the database, and to run twice.
`

func runMigrate(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, migrateUsage)
			return nil
		}
		return fmt.Errorf("%w: migrate: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: migrate: unexpected argument %q", errUsage, fs.Arg(0))
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	pool, _, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := migrate(ctx, pool, allMigrations(), stdout); err != nil {
		return err
	}
	ch, err := resumePositions(ctx, pool, logger)
	if err != nil {
		return err
	}
	if ch.Moved() {
		fmt.Fprintf(stdout, "eventstore: positions moved above the restored log's head %d (transaction id offset %d -> %d)\n", ch.Head, ch.From, ch.To)
	}
	return nil
}

// resumePositions makes new event positions sort above the log's head again when the database
// was restored into another PostgreSQL cluster, whose transaction ids start lower; otherwise it
// changes nothing. serve and migrate run it after migrating, so a restored database is never
// served before it is repaired.
func resumePositions(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) (postgres.OffsetChange, error) {
	ch, err := postgres.AdvancePositionOffset(ctx, pool)
	if err != nil {
		return ch, err
	}
	if ch.Moved() {
		logger.Warn("event positions moved above the restored log", "head", ch.Head, "offset_from", ch.From, "offset_to", ch.To)
	}
	return ch, nil
}

// migrate applies sets and reports, per set, which migrations are new and where it now stands.
// The report compares the applied versions before and after, so a migration applied at the same
// moment by another process (Apply lets only one run it) is reported by both.
func migrate(ctx context.Context, pool *pgxpool.Pool, sets []pgmigrate.Set, w io.Writer) error {
	before, err := appliedVersions(ctx, pool)
	if err != nil {
		return err
	}
	if err := pgmigrate.Apply(ctx, pool, sets...); err != nil {
		return err
	}
	after, err := appliedVersions(ctx, pool)
	if err != nil {
		return err
	}
	for _, set := range sets {
		latest := latestVersion(set)
		applied := 0
		for _, m := range set.Migrations {
			if m.Version > before[set.Name] && m.Version <= after[set.Name] {
				fmt.Fprintf(w, "%s: applied %s\n", set.Name, m.Name)
				applied++
			}
		}
		switch {
		case after[set.Name] > latest:
			// Expected during a rolling upgrade: a newer binary already migrated. Migrations only
			// add, so this binary keeps working; it must not try to undo anything.
			fmt.Fprintf(w, "%s: database is at version %d, newer than this binary's %d; left as is\n", set.Name, after[set.Name], latest)
		case applied == 0:
			fmt.Fprintf(w, "%s: up to date at version %d\n", set.Name, after[set.Name])
		default:
			fmt.Fprintf(w, "%s: now at version %d\n", set.Name, after[set.Name])
		}
	}
	return nil
}

// appliedVersions returns the highest applied migration of each set; empty before the first
// migration, when even the bookkeeping table is missing.
func appliedVersions(ctx context.Context, pool *pgxpool.Pool) (map[string]int, error) {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("reading migration state: %w", err)
	}
	out := map[string]int{}
	if !exists {
		return out, nil
	}
	rows, err := pool.Query(ctx, `SELECT set_name, max(version) FROM schema_migrations GROUP BY set_name`)
	if err != nil {
		return nil, fmt.Errorf("reading migration state: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var version int
		if err := rows.Scan(&name, &version); err != nil {
			return nil, fmt.Errorf("reading migration state: %w", err)
		}
		out[name] = version
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading migration state: %w", err)
	}
	return out, nil
}

func latestVersion(set pgmigrate.Set) int {
	if len(set.Migrations) == 0 {
		return 0
	}
	return set.Migrations[len(set.Migrations)-1].Version
}

// requireSchema refuses to go on when set is not fully applied. Read-only tools use it instead of
// migrating themselves: an export or an audit must never be the thing that changes a schema.
func requireSchema(ctx context.Context, pool *pgxpool.Pool, set pgmigrate.Set) error {
	applied, err := appliedVersions(ctx, pool)
	if err != nil {
		return err
	}
	if have, want := applied[set.Name], latestVersion(set); have < want {
		return fmt.Errorf("the %s schema is at version %d, this binary needs %d: run clearvest migrate first", set.Name, have, want)
	}
	return nil
}

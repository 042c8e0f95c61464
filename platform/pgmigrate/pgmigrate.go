// Package pgmigrate applies versioned, embedded SQL migrations. Each package that owns tables
// (the event store, the projection engine, each read model) ships its own numbered set, so a
// newcomer finds a table's history next to the code that uses it.
package pgmigrate

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Migration is one numbered SQL script.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Set is a named, ordered list of migrations.
type Set struct {
	Name       string
	Migrations []Migration
}

// FromFS reads files named NNNN_description.sql from dir.
func FromFS(name string, fsys fs.FS, dir string) (Set, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return Set{}, fmt.Errorf("pgmigrate: read %s: %w", dir, err)
	}
	set := Set{Name: name}
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return Set{}, fmt.Errorf("pgmigrate: %s: file name must start with a positive number and '_'", e.Name())
		}
		if other, dup := seen[v]; dup {
			return Set{}, fmt.Errorf("pgmigrate: %s and %s share version %d", other, e.Name(), v)
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return Set{}, err
		}
		set.Migrations = append(set.Migrations, Migration{Version: v, Name: e.Name(), SQL: string(body)})
	}
	sort.Slice(set.Migrations, func(i, j int) bool { return set.Migrations[i].Version < set.Migrations[j].Version })
	return set, nil
}

// MustFromFS is FromFS for embedded files, where an error is a build mistake.
func MustFromFS(name string, fsys fs.FS, dir string) Set {
	s, err := FromFS(name, fsys, dir)
	if err != nil {
		panic(err)
	}
	return s
}

// lockKey serialises migrators across processes; the value is arbitrary but fixed.
const lockKey = 7_134_221_009

// Apply runs the pending migrations of each set, in order, each in its own transaction. Several
// processes may call it at once: an advisory lock makes the others wait and then find nothing to do.
func Apply(ctx context.Context, pool *pgxpool.Pool, sets ...Set) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("pgmigrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return fmt.Errorf("pgmigrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey) //nolint:errcheck // released with the session anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		set_name   text        NOT NULL,
		version    integer     NOT NULL,
		name       text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (set_name, version))`); err != nil {
		return fmt.Errorf("pgmigrate: bookkeeping table: %w", err)
	}
	for _, set := range sets {
		var current int
		if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations WHERE set_name = $1`, set.Name).Scan(&current); err != nil {
			return fmt.Errorf("pgmigrate: %s: %w", set.Name, err)
		}
		for _, m := range set.Migrations {
			if m.Version <= current {
				continue
			}
			err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, m.SQL); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (set_name, version, name) VALUES ($1, $2, $3)`, set.Name, m.Version, m.Name)
				return err
			})
			if err != nil {
				return fmt.Errorf("pgmigrate: %s %s: %w", set.Name, m.Name, err)
			}
		}
	}
	return nil
}

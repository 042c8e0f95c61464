package command_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// pgRunner is a runner as serve wires it: a PostgreSQL store and the default cache.
func pgRunner(t *testing.T, pool *pgxpool.Pool, opts ...command.Option) (*command.Runner, *postgres.Store) {
	t.Helper()
	store := postgres.New(pool, postgres.WithLogger(quiet))
	t.Cleanup(store.Close)
	return newRunner(store, opts...), store
}

// pgPool is a fresh migrated database with one table of rows outside the log.
func pgPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, postgres.Migrations); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `CREATE TABLE side (id text PRIMARY KEY, n int NOT NULL DEFAULT 0)`); err != nil {
		t.Fatal(err)
	}
	return pool
}

func sideRows(t *testing.T, pool *pgxpool.Pool) map[string]int {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT id, n FROM side`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

package postgrestest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate/pgmigratetest"
)

// Pool opens a fresh database with the event store's schema and a pool sized like serve's
// (cmd/clearvest/db.go), so that ten benchmark writers get ten connections instead of pgxpool's
// default of max(4, cores).
func Pool(b testing.TB) *pgxpool.Pool {
	b.Helper()
	return PoolAt(b, pgmigratetest.NewDatabase(b, postgres.Migrations))
}

// PoolAt opens a pool sized like serve's on the database url names, closed when b ends.
func PoolAt(b testing.TB, url string) *pgxpool.Pool {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 20
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

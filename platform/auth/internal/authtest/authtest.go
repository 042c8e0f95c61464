// Package authtest gives the auth packages' tests a migrated database of their own.
package authtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/platform/auth"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// NewDB returns a pool on a fresh database with the auth schema applied.
func NewDB(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, auth.Migrations); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return pool
}

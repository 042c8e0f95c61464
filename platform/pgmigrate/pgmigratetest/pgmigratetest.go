// Package pgmigratetest gives tests a fresh database with migration sets already applied, copied
// from a template database that has them (pgtest.NewDatabaseWith), instead of migrating each
// test's database again.
package pgmigratetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// NewDatabase is pgtest.NewDatabase with sets applied; it returns the database's URL.
func NewDatabase(t testing.TB, sets ...pgmigrate.Set) string {
	t.Helper()
	return pgtest.NewDatabaseWith(t, Schema(sets...))
}

// NewPool is NewDatabase with a pool on it, closed when the test ends.
func NewPool(t testing.TB, sets ...pgmigrate.Set) *pgxpool.Pool {
	t.Helper()
	return pgtest.NewPoolWith(t, Schema(sets...))
}

// Schema is the template schema of sets: named after which sets they are, versioned by every
// migration's number, name and text.
func Schema(sets ...pgmigrate.Set) pgtest.Schema {
	names := make([]string, len(sets))
	content := sha256.New()
	for i, s := range sets {
		names[i] = s.Name
		fmt.Fprintf(content, "%s\x00", s.Name)
		for _, m := range s.Migrations {
			fmt.Fprintf(content, "%d\x00%s\x00%s\x00", m.Version, m.Name, m.SQL)
		}
	}
	return pgtest.Schema{
		Name:    strings.Join(names, ","),
		Version: hex.EncodeToString(content.Sum(nil)),
		Apply: func(ctx context.Context, pool *pgxpool.Pool) error {
			return pgmigrate.Apply(ctx, pool, sets...)
		},
	}
}

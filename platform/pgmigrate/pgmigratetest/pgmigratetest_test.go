package pgmigratetest_test

import (
	"context"
	"testing"

	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgmigrate/pgmigratetest"
)

func set(sql string) pgmigrate.Set {
	return pgmigrate.Set{Name: "notes", Migrations: []pgmigrate.Migration{{Version: 1, Name: "0001_notes.sql", SQL: sql}}}
}

func TestSchemaVersionFollowsEveryMigrationsText(t *testing.T) {
	a := pgmigratetest.Schema(set(`CREATE TABLE notes (body text)`))
	if b := pgmigratetest.Schema(set(`CREATE TABLE notes (body text)`)); a.Name != b.Name || a.Version != b.Version {
		t.Fatalf("the same sets give %+v and %+v", a, b)
	}
	if c := pgmigratetest.Schema(set(`CREATE TABLE notes (body text, author text)`)); c.Name != a.Name || c.Version == a.Version {
		t.Fatalf("a changed migration keeps the name and changes the version: %q %q, %q %q", a.Name, a.Version, c.Name, c.Version)
	}
	other := set(`CREATE TABLE notes (body text)`)
	other.Name = "memos"
	if d := pgmigratetest.Schema(other); d.Name == a.Name {
		t.Fatalf("another set has the same schema name %q", d.Name)
	}
}

func TestCopiesHaveTheMigrationsApplied(t *testing.T) {
	ctx := context.Background()
	s := set(`CREATE TABLE notes (body text NOT NULL)`)
	s.Name = "pgmigratetest_notes"
	pool := pgmigratetest.NewPool(t, s)
	if _, err := pool.Exec(ctx, `INSERT INTO notes VALUES ('x')`); err != nil {
		t.Fatal(err)
	}
	// The copy records the migration as applied, so applying it again does nothing.
	if err := pgmigrate.Apply(ctx, pool, s); err != nil {
		t.Fatalf("applying the set again to a copy: %v", err)
	}
}

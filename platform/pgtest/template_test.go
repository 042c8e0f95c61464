package pgtest

import (
	"context"
	"testing"

	"clearvest/platform/pgmigrate"
)

func TestMigratedDatabasesAreIndependentCopies(t *testing.T) {
	ctx := context.Background()
	set := pgmigrate.Set{Name: "pgtest_" + randomName(), Migrations: []pgmigrate.Migration{
		{Version: 1, Name: "0001_notes.sql", SQL: `CREATE TABLE notes (body text NOT NULL)`},
	}}
	a, b := NewMigratedPool(t, set), NewMigratedPool(t, set)
	if _, err := a.Exec(ctx, `INSERT INTO notes VALUES ('only in a')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.QueryRow(ctx, `SELECT count(*) FROM notes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("the second copy holds %d notes written to the first", n)
	}
	if err := pgmigrate.Apply(ctx, b, set); err != nil {
		t.Fatalf("applying the set again to a copy: %v", err)
	}

	// A changed migration is a new template, and the family's old one goes.
	old := templateFor([]pgmigrate.Set{set})
	set.Migrations[0].SQL = `CREATE TABLE notes (body text NOT NULL, author text)`
	c := NewMigratedPool(t, set)
	if _, err := c.Exec(ctx, `INSERT INTO notes (body, author) VALUES ('x', 'y')`); err != nil {
		t.Fatalf("the copy of the changed migration: %v", err)
	}
	admin := NewPool(t)
	var names []string
	rows, err := admin.Query(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1`, old.family)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := templateFor([]pgmigrate.Set{set}).name; len(names) != 1 || names[0] != want {
		t.Fatalf("the family's templates are %v, want only %s", names, want)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+names[0]); err != nil {
			t.Log(err)
		}
	})
}

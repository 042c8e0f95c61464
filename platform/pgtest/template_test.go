package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func notes(sql string) func(ctx context.Context, pool *pgxpool.Pool) error {
	return func(ctx context.Context, pool *pgxpool.Pool) error {
		_, err := pool.Exec(ctx, sql)
		return err
	}
}

func TestTemplateCopiesAreIndependentAndFollowTheVersion(t *testing.T) {
	ctx := context.Background()
	schema := Schema{Name: randomName(), Version: "1", Apply: notes(`CREATE TABLE notes (body text NOT NULL)`)}
	a, b := NewPoolWith(t, schema), NewPoolWith(t, schema)
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

	// A new version is a new template, and the schema's old one goes.
	schema.Version, schema.Apply = "2", notes(`CREATE TABLE notes (body text NOT NULL, author text)`)
	c := NewPoolWith(t, schema)
	if _, err := c.Exec(ctx, `INSERT INTO notes (body, author) VALUES ('x', 'y')`); err != nil {
		t.Fatalf("the copy of the new version: %v", err)
	}
	admin := NewPool(t)
	tpl := templateFor(schema)
	rows, err := admin.Query(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, tpl.family)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != tpl.name {
		t.Fatalf("the schema's templates are %v, want only %s", names, tpl.name)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+tpl.name); err != nil {
			t.Log(err)
		}
	})
}

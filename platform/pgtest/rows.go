package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Texts runs each query, which must select one text column, and returns every row of every
// query in order. Read-model tests compare a rebuild with the live model through it, selecting
// `to_jsonb(t)::text` rows in a fixed order.
func Texts(t testing.TB, pool *pgxpool.Pool, queries ...string) []string {
	t.Helper()
	var out []string
	for _, q := range queries {
		rows, err := pool.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

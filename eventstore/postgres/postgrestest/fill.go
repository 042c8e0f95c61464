// Package postgrestest fills a PostgreSQL event log quickly for benchmarks of the store and of
// the projections that read it.
package postgrestest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// EventTypes are the type names FillLog cycles through.
var EventTypes = []string{"account.deposit_requested", "account.deposit_confirmed", "account.withdrawal_requested", "investment.started", "investment.matured"}

// FillLog writes n events spread round-robin over the given number of streams and returns the
// last position. It writes the rows with SQL, 50,000 per transaction, because appending them a
// command at a time would take longer than the benchmarks; positions, versions and the streams
// table follow the store's rules, ids are time-ordered like UUIDv7, and payload and metadata
// are shaped like a command's. It takes no stream locks, so readers do not wait for it: it must
// return before anything reads the log.
func FillLog(b testing.TB, pool *pgxpool.Pool, n, streams int) int64 {
	b.Helper()
	ctx := context.Background()
	const perTx = 50_000
	var last int64
	for from := 0; from < n; from += perTx {
		to := min(from+perTx, n) - 1
		err := pool.QueryRow(ctx, `WITH ins AS (
			INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
			SELECT ((pg_current_xact_id()::text::bigint + (SELECT xid_offset FROM event_position_offset)) << 16) | (g - $1 + 1), id, 'account-' || (g % $3), g / $3 + 1,
			  ($4::text[])[g % cardinality($4::text[]) + 1], 1,
			  jsonb_build_object('amount', (100 + g % 900) || '.00', 'currency', 'EUR', 'reference', 'ref-' || lpad(g::text, 8, '0')),
			  jsonb_build_object('correlationId', id, 'causationId', id, 'actorId', 'user-bench', 'actorRole', 'customer'),
			  now()
			FROM (SELECT g, ('01900000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid AS id
			      FROM generate_series($1::int, $2::int) g) s
			RETURNING position)
			SELECT max(position) FROM ins`, from, to, streams, EventTypes).Scan(&last)
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, sql := range []string{
		`INSERT INTO streams (stream_id, version) SELECT stream_id, max(version) FROM events GROUP BY stream_id`,
		`VACUUM ANALYZE events`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	return last
}

package accountstest

import (
	"context"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// RoundTrips records the round trips to PostgreSQL made under a marked context: one per query,
// one per batch (a pipeline of statements sent together), with the SQL each carried. Background
// work on the same pool (projections, listeners) is not marked, so it is not recorded.
type RoundTrips struct {
	mu    sync.Mutex
	trips [][]string
	open  bool // a batch is being recorded
}

type markKey struct{}

// Marked returns ctx marked, so that the round trips made under it are recorded.
func Marked(ctx context.Context) context.Context { return context.WithValue(ctx, markKey{}, true) }

func (r *RoundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if ctx.Value(markKey{}) != nil {
		r.mu.Lock()
		r.trips = append(r.trips, []string{d.SQL})
		r.mu.Unlock()
	}
	return ctx
}

func (r *RoundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *RoundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	if ctx.Value(markKey{}) != nil {
		r.mu.Lock()
		r.trips = append(r.trips, nil)
		r.open = true
		r.mu.Unlock()
	}
	return ctx
}

func (r *RoundTrips) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if ctx.Value(markKey{}) != nil {
		r.mu.Lock()
		if r.open {
			r.trips[len(r.trips)-1] = append(r.trips[len(r.trips)-1], d.SQL)
		}
		r.mu.Unlock()
	}
}

func (r *RoundTrips) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	if ctx.Value(markKey{}) != nil {
		r.mu.Lock()
		r.open = false
		r.mu.Unlock()
	}
}

// During returns the round trips fn made, but for a connection's one check of the log's
// positions before its first append: it belongs to the connection, and which connection the pool
// hands a command is not the command's doing (a warm-up cannot reach them all).
func (r *RoundTrips) During(fn func()) [][]string {
	r.mu.Lock()
	before := len(r.trips)
	r.mu.Unlock()
	fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]string
	for _, trip := range r.trips[before:] {
		if len(trip) == 1 && strings.TrimSpace(trip[0]) == "SELECT eventstore_positions_ok()" {
			continue
		}
		out = append(out, trip)
	}
	return out
}

// Writes are the round trips that write or hold a transaction open: everything but reads.
func Writes(trips [][]string) [][]string {
	var out [][]string
	for _, trip := range trips {
		for _, sql := range trip {
			s := strings.ToLower(sql)
			if strings.Contains(s, "insert") || strings.Contains(s, "update") || strings.Contains(s, "delete") ||
				strings.HasPrefix(strings.TrimSpace(s), "begin") || strings.HasPrefix(strings.TrimSpace(s), "commit") {
				out = append(out, trip)
				break
			}
		}
	}
	return out
}

// Carries reports whether one of a round trip's statements contains part.
func Carries(trip []string, part string) bool {
	for _, sql := range trip {
		if strings.Contains(sql, part) {
			return true
		}
	}
	return false
}

package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore/postgres"
)

// statementLog records every statement sent through a pool, with its arguments.
type statementLog struct {
	mu    sync.Mutex
	stmts []pgx.TraceQueryStartData
}

func (l *statementLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stmts = append(l.stmts, data)
	return ctx
}

func (l *statementLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (l *statementLog) take() []pgx.TraceQueryStartData {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.stmts
	l.stmts = nil
	return out
}

// eventRowsRead runs EXPLAIN ANALYZE on a statement and returns how many rows of the events
// table its plan touched: rows returned by scans of events plus rows they read and discarded.
func eventRowsRead(t *testing.T, pool *pgxpool.Pool, stmt pgx.TraceQueryStartData) float64 {
	t.Helper()
	var plan []byte
	if err := pool.QueryRow(context.Background(), `EXPLAIN (ANALYZE, FORMAT JSON) `+stmt.SQL, stmt.Args...).Scan(&plan); err != nil {
		t.Fatalf("explain %s: %v", stmt.SQL, err)
	}
	var doc []struct{ Plan map[string]any }
	if err := json.Unmarshal(plan, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(node map[string]any) float64
	walk = func(node map[string]any) float64 {
		var n float64
		if node["Relation Name"] == "events" {
			loops, _ := node["Actual Loops"].(float64)
			for _, key := range []string{"Actual Rows", "Rows Removed by Filter", "Rows Removed by Index Recheck"} {
				v, _ := node[key].(float64)
				n += v * loops
			}
		}
		children, _ := node["Plans"].([]any)
		for _, c := range children {
			n += walk(c.(map[string]any))
		}
		return n
	}
	return walk(doc[0].Plan)
}

// TestReadinessReadsAtMostOneEventPerProjection checks the cost of a readiness probe by its
// query plans rather than its time: on a log of 5,000 events with projections that have applied
// none of them, the probe may touch one events row per projection (the oldest not applied) and
// one for the head, never the 5,000 a count would.
func TestReadinessReadsAtMostOneEventPerProjection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.runner(t, []Projection{applied{}, catalogueLike{}})
	logEvents(t, f, 5000)
	if _, err := f.pool.Exec(context.Background(), `ANALYZE events`); err != nil {
		t.Fatal(err)
	}

	statements := &statementLog{}
	cfg, err := pgxpool.ParseConfig(f.url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = statements
	traced, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(traced.Close)
	store := postgres.New(traced)
	t.Cleanup(store.Close)
	r, err := NewRunner(traced, store, []Projection{applied{}, catalogueLike{}}, WithMaxReadyLag(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}

	reasons, err := r.NotReady(context.Background())
	if err != nil || len(reasons) != 0 {
		t.Fatalf("NotReady = %q, %v", reasons, err)
	}
	stmts := statements.take()
	if len(stmts) == 0 {
		t.Fatal("no statements recorded")
	}
	var total float64
	var plans []string
	for _, s := range stmts {
		if strings.HasPrefix(s.SQL, "LISTEN") { // the store's listener for other processes' appends
			continue
		}
		n := eventRowsRead(t, f.pool, s)
		total += n
		plans = append(plans, fmt.Sprintf("%.0f rows: %s", n, strings.Join(strings.Fields(s.SQL), " ")))
	}
	if limit := float64(len(r.Names()) + 1); total > limit {
		t.Fatalf("a readiness probe touched %.0f rows of events (limit %.0f):\n%s", total, limit, strings.Join(plans, "\n"))
	}

	// The same probe still sees a projection fall behind, by the age of its oldest event.
	r.maxReadyLag = 0
	reasons, err = r.NotReady(context.Background())
	if err != nil || len(reasons) != 2 || !strings.HasPrefix(reasons[0], "projection applied is ") || !strings.HasSuffix(reasons[0], "behind (limit 0s)") {
		t.Fatalf("NotReady with a zero lag limit = %q, %v", reasons, err)
	}
}

package pgread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"clearvest/platform/pgread"
	"clearvest/platform/pgtest"
)

// The tests run against one real PostgreSQL server, which cannot be its own standby: a
// "replica" is a second database whose search path puts a schema of stand-ins for the recovery
// functions (pg_is_in_recovery, pg_last_wal_replay_lsn) before pg_catalog, so the test decides
// whether it is a standby, how far it has replayed, and whether it answers at all. The primary's
// WAL position is the server's own. scripts/replica-check runs a real hot standby.

const maxLag = 5 * time.Second

type fixture struct {
	t       *testing.T
	primary *pgxpool.Pool
	admin   *pgxpool.Pool // the replica database, outside the stand-ins' reach
	proxy   *proxy
	set     *pgread.Set
	reg     *prometheus.Registry
	now     atomic.Int64 // unix nanoseconds of the test clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, primary: pgtest.NewPool(t), reg: prometheus.NewRegistry()}
	f.now.Store(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	ctx := context.Background()
	mustExec(t, f.primary, `CREATE TABLE whoami (name text); INSERT INTO whoami VALUES ('primary')`)

	replicaURL := pgtest.NewDatabase(t)
	admin, err := pgxpool.New(ctx, replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	f.admin = admin
	mustExec(t, admin, `CREATE TABLE whoami (name text); INSERT INTO whoami VALUES ('replica');
		CREATE TABLE projection_checkpoints (name text PRIMARY KEY, position bigint NOT NULL);
		INSERT INTO projection_checkpoints VALUES ('users', 10), ('wallets', 12);
		CREATE SCHEMA standby;
		CREATE TABLE standby.state (in_recovery bool NOT NULL, replay pg_lsn NOT NULL, fail bool NOT NULL);
		INSERT INTO standby.state VALUES (true, '7FFFFFFF/FFFFFFFF', false);
		CREATE FUNCTION standby.pg_is_in_recovery() RETURNS bool LANGUAGE plpgsql AS $$
		BEGIN
			IF (SELECT fail FROM standby.state) THEN RAISE EXCEPTION 'standby broken'; END IF;
			RETURN (SELECT in_recovery FROM standby.state);
		END $$;
		CREATE FUNCTION standby.pg_last_wal_replay_lsn() RETURNS pg_lsn LANGUAGE sql AS
			$$ SELECT CASE WHEN in_recovery THEN replay END FROM standby.state $$;`)

	// The replica is reached through a proxy the test can cut, as a standby that stops is.
	u, err := url.Parse(replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	f.proxy = newProxy(t, u.Host)
	u.Host = f.proxy.addr()
	q := u.Query()
	q.Set("search_path", "standby,pg_catalog,public")
	u.RawQuery = q.Encode()
	replica, err := pgxpool.New(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(replica.Close)

	f.set = pgread.New(f.primary, []*pgxpool.Pool{replica}, maxLag,
		pgread.WithClock(func() time.Time { return time.Unix(0, f.now.Load()) }),
		pgread.WithMetrics(f.reg),
		pgread.WithApplied(func(ctx context.Context, q pgread.Querier) (n int64, err error) {
			err = q.QueryRow(ctx, `SELECT coalesce(min(position), 0) FROM projection_checkpoints`).Scan(&n)
			return n, err
		}))
	return f
}

func mustExec(t *testing.T, p *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := p.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (f *fixture) advance(d time.Duration) { f.now.Add(int64(d)) }

func (f *fixture) check() {
	f.t.Helper()
	if err := f.set.Check(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) replica() *pgread.Replica { return f.set.Replicas()[0] }

func (f *fixture) wantRotation(in bool, reason string) {
	f.t.Helper()
	r := f.replica()
	if r.InRotation() != in || !strings.Contains(r.Reason(), reason) {
		f.t.Fatalf("in rotation %v (%q), want %v (%q)", r.InRotation(), r.Reason(), in, reason)
	}
	if got := testutil.ToFloat64(f.gauge("clearvest_read_replica_in_rotation")); (got == 1) != in {
		f.t.Errorf("clearvest_read_replica_in_rotation = %v, want in=%v", got, in)
	}
	detail, _ := f.set.Detail(context.Background())
	if in != (detail == "") || (!in && !strings.Contains(detail, r.Name())) {
		f.t.Errorf("readiness detail %q with the replica in rotation=%v", detail, in)
	}
	if got := f.set.Pick(); (got != nil) != in {
		f.t.Errorf("Pick() = %v with the replica in rotation=%v", got, in)
	}
}

func (f *fixture) gauge(name string) prometheus.Collector {
	mfs, err := f.reg.Gather()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "copy"})
			m := mf.GetMetric()[0]
			if m.GetGauge() != nil {
				g.Set(m.GetGauge().GetValue())
			} else {
				g.Set(m.GetCounter().GetValue())
			}
			return g
		}
	}
	f.t.Fatalf("metric %s not registered", name)
	return nil
}

// writeOnPrimary writes on the primary and returns its WAL position from before the write, which
// the primary has then surely moved past.
func (f *fixture) writeOnPrimary() string {
	f.t.Helper()
	before := ""
	if err := f.primary.QueryRow(context.Background(), `SELECT pg_current_wal_lsn()::text`).Scan(&before); err != nil {
		f.t.Fatal(err)
	}
	mustExec(f.t, f.primary, `INSERT INTO whoami VALUES ('another write')`)
	return before
}

func TestRotation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.wantRotation(false, "not checked yet")

	f.check()
	f.wantRotation(true, "")

	// Replay stops at what the primary had before a write: the lag grows with the clock from
	// the first check that saw the primary ahead.
	mustExec(t, f.admin, `UPDATE standby.state SET replay = $1::pg_lsn`, f.writeOnPrimary())
	f.check()
	f.wantRotation(true, "")
	f.advance(maxLag - time.Second)
	f.check()
	f.wantRotation(true, "")
	if lag := f.replica().Lag(); lag != maxLag-time.Second {
		t.Errorf("lag %s, want %s", lag, maxLag-time.Second)
	}
	f.advance(2 * time.Second)
	f.check()
	f.wantRotation(false, "replay lag 6s over 5s")
	if got := testutil.ToFloat64(f.gauge("clearvest_read_replica_lag_seconds")); got != 6 {
		t.Errorf("clearvest_read_replica_lag_seconds = %v, want 6", got)
	}

	// Replay catches up: back in.
	mustExec(t, f.admin, `UPDATE standby.state SET replay = '7FFFFFFF/FFFFFFFF'`)
	f.advance(time.Second)
	f.check()
	f.wantRotation(true, "")

	// An error: out, and back in when it answers again.
	mustExec(t, f.admin, `UPDATE standby.state SET fail = true`)
	f.check()
	f.wantRotation(false, "unreachable")
	mustExec(t, f.admin, `UPDATE standby.state SET fail = false`)
	f.check()
	f.wantRotation(true, "")

	// Promoted: it no longer follows the primary.
	mustExec(t, f.admin, `UPDATE standby.state SET in_recovery = false`)
	f.check()
	f.wantRotation(false, "not a standby")
	mustExec(t, f.admin, `UPDATE standby.state SET in_recovery = true`)
	f.check()
	f.wantRotation(true, "")

	// Unreachable: the connection is cut; back in when it is restored.
	f.proxy.cut()
	f.check()
	f.wantRotation(false, "unreachable")
	f.proxy.restore()
	f.check()
	f.wantRotation(true, "")
}

func whoami(t *testing.T, ctx context.Context, q pgread.Querier) string {
	t.Helper()
	var name string
	if err := q.QueryRow(ctx, `SELECT name FROM whoami ORDER BY name LIMIT 1`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()

	// Before any check nothing is in rotation: the primary serves.
	rctx, onReplica := f.set.Route(ctx, 0, time.Second, nil)
	if onReplica || whoami(t, rctx, pgread.On(rctx, f.primary)) != "primary" {
		t.Fatal("routed to a replica that was never checked")
	}
	f.check()

	rctx, onReplica = f.set.Route(ctx, 0, time.Second, nil)
	if !onReplica || whoami(t, rctx, pgread.On(rctx, f.primary)) != "replica" {
		t.Fatal("an unpositioned read did not go to the replica in rotation")
	}
	// Without a choice (commands, background work) On is the primary itself.
	if q := pgread.On(ctx, f.primary); q != pgread.Querier(f.primary) {
		t.Fatalf("On without a choice = %T, want the primary pool", q)
	}
	if _, onReplica := f.set.Route(ctx, -1, time.Second, nil); onReplica {
		t.Error("a read whose primary wait failed went to a replica")
	}

	// Positioned: the replica's lowest checkpoint is 10.
	if _, onReplica := f.set.Route(ctx, 10, time.Second, nil); !onReplica {
		t.Error("a read at 10 did not go to the replica that has replayed 10")
	}
	start := time.Now()
	if _, onReplica := f.set.Route(ctx, 11, 150*time.Millisecond, nil); onReplica {
		t.Error("a read at 11 went to a replica that has replayed only 10")
	}
	if waited := time.Since(start); waited < 150*time.Millisecond || waited > 2*time.Second {
		t.Errorf("the replica wait took %s, want about its bound of 150ms", waited)
	}
	// Replay moves on while a positioned read waits.
	done := make(chan bool)
	go func() {
		_, onReplica := f.set.Route(ctx, 12, 10*time.Second, nil)
		done <- onReplica
	}()
	mustExec(t, f.admin, `UPDATE projection_checkpoints SET position = 20`)
	if !<-done {
		t.Error("a read at 12 did not go to the replica once it replayed 20")
	}
}

func TestFallbackToPrimary(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.check()
	var fellBack atomic.Int32
	rctx, onReplica := f.set.Route(ctx, 0, time.Second, func() { fellBack.Add(1) })
	if !onReplica || whoami(t, rctx, pgread.On(rctx, f.primary)) != "replica" {
		t.Fatal("not on the replica")
	}

	// The standby stops: the pool's idle connection dies and new ones are refused.
	f.proxy.cut()
	if got := whoami(t, rctx, pgread.On(rctx, f.primary)); got != "primary" {
		t.Errorf("QueryRow after the cut read %q, want the primary's answer", got)
	}
	if fellBack.Load() != 1 || f.replica().InRotation() {
		t.Errorf("fell back %d times, replica in rotation %v; want 1 and out", fellBack.Load(), f.replica().InRotation())
	}
	// A Query on the same choice (the request routed before the cut) falls back too.
	names, err := readNames(ctx, pgread.On(rctx, f.primary), `SELECT name FROM whoami ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "primary" {
		t.Errorf("Query after the cut read %q, want the primary's rows", names)
	}
	if got := testutil.ToFloat64(f.gauge("clearvest_read_replica_fallbacks_total")); got != 2 {
		t.Errorf("clearvest_read_replica_fallbacks_total = %v, want 2", got)
	}
	// New requests go to the primary at once, with no failed query first.
	if _, onReplica := f.set.Route(ctx, 0, time.Second, nil); onReplica {
		t.Error("routed to the replica that failed")
	}

	// An answer that is an error of the query, not of the connection, is not retried.
	f.proxy.restore()
	f.check()
	rctx, _ = f.set.Route(ctx, 0, time.Second, func() { fellBack.Add(1) })
	err = pgread.On(rctx, f.primary).QueryRow(ctx, `SELECT nonexistent FROM whoami`).Scan(new(string))
	if err == nil || fellBack.Load() != 2 || !f.replica().InRotation() {
		t.Errorf("a bad query: err %v, fell back %d times (want 2 in all), in rotation %v", err, fellBack.Load(), f.replica().InRotation())
	}
}

// A standby that dies after sending part of an answer: the caller gets the primary's whole
// answer, never the replica's first rows followed by an error.
func TestAReplicaDyingMidAnswerFallsBackWhole(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	// After the table's rows, the replica's backend terminates itself and raises the error
	// while the query runs; pg_sleep lets the termination arrive within the query. On the
	// primary the same function does nothing.
	mustExec(t, f.primary, `CREATE FUNCTION die() RETURNS bool LANGUAGE sql AS $$ SELECT false $$`)
	mustExec(t, f.admin, `INSERT INTO whoami VALUES ('replica 2'), ('replica 3');
		CREATE FUNCTION die() RETURNS bool LANGUAGE plpgsql AS $$
		BEGIN
			PERFORM pg_terminate_backend(pg_backend_pid());
			PERFORM pg_sleep(30);
			RETURN false;
		END $$`)
	const query = `SELECT name FROM whoami UNION ALL SELECT 'never' WHERE die()`
	f.check()

	var fellBack atomic.Int32
	rctx, onReplica := f.set.Route(ctx, 0, time.Second, func() { fellBack.Add(1) })
	if !onReplica {
		t.Fatal("not on the replica")
	}
	names, err := readNames(ctx, pgread.On(rctx, f.primary), query)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "primary" || fellBack.Load() != 1 {
		t.Errorf("read %q with %d fallbacks, want the primary's one row after one fallback", names, fellBack.Load())
	}

	// QueryRow too, on a replica whose first row left before the error did.
	f.check()
	rctx, _ = f.set.Route(ctx, 0, time.Second, func() { fellBack.Add(1) })
	var name string
	if err := pgread.On(rctx, f.primary).QueryRow(ctx, query).Scan(&name); err != nil || name != "primary" {
		t.Errorf("QueryRow read %q, %v; want the primary's answer", name, err)
	}
	if fellBack.Load() != 2 {
		t.Errorf("fell back %d times in all, want 2", fellBack.Load())
	}
}

// A replica's answer read whole scans as pgx's own would: NULLs, several types, Values.
func TestAReplicaAnswerScansLikeTheServers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.check()
	rctx, onReplica := f.set.Route(ctx, 0, time.Second, nil)
	if !onReplica {
		t.Fatal("not on the replica")
	}
	const query = `SELECT g, CASE WHEN g % 2 = 0 THEN 'even' END, g * 1.5, now() - now()
		FROM generate_series(1, 3) g ORDER BY g`
	collect := func(q pgread.Querier) (out []string) {
		rows, err := q.Query(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				n    int
				s    *string
				d    pgtype.Numeric
				span time.Duration
			)
			if err := rows.Scan(&n, &s, &d, &span); err != nil {
				t.Fatal(err)
			}
			v, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d %v %v %v %v", n, s != nil && *s == "even", d.Valid, span, len(v)))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if rows.CommandTag().String() != "SELECT 3" {
			t.Errorf("command tag %q", rows.CommandTag())
		}
		return out
	}
	got, want := collect(pgread.On(rctx, f.primary)), collect(f.primary)
	if strings.Join(got, ";") != strings.Join(want, ";") || len(got) != 3 {
		t.Errorf("the replica's answer scanned as %q, the primary's as %q", got, want)
	}
	var none int
	if err := pgread.On(rctx, f.primary).QueryRow(ctx, `SELECT 1 WHERE false`).Scan(&none); !errors.Is(err, pgx.ErrNoRows) {
		t.Errorf("QueryRow of no rows: %v, want pgx.ErrNoRows", err)
	}
}

// readNames reads a query's one column of names through q.
func readNames(ctx context.Context, q pgread.Querier, sql string) ([]string, error) {
	rows, err := q.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// proxy forwards TCP connections to the server until cut, when it closes them all and refuses
// new ones.
type proxy struct {
	t      *testing.T
	target string
	ln     net.Listener
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, target: target, ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
	}
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

package projections

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// applied records every application of every event, with no uniqueness, so applying an event
// twice shows up as a duplicate row instead of being absorbed by an upsert.
type applied struct{ schemaSuffix string }

func (applied) Name() string { return "applied" }
func (a applied) Schema() string {
	return `CREATE TABLE applications (event_id uuid NOT NULL, position bigint NOT NULL)` + a.schemaSuffix
}
func (applied) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	rows := make([][]any, len(events))
	for i, e := range events {
		rows[i] = []any{e.ID, e.Position}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"applications"}, []string{"event_id", "position"}, pgx.CopyFromRows(rows))
	return err
}

type fixture struct {
	url   string
	pool  *pgxpool.Pool
	store *postgres.Store
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	url := pgtest.NewDatabase(t)
	return openFixture(t, url)
}

func openFixture(t testing.TB, url string) fixture {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := pgmigrate.Apply(context.Background(), pool, postgres.Migrations, Migrations); err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool, postgres.WithPollInterval(20*time.Millisecond))
	t.Cleanup(store.Close)
	return fixture{url: url, pool: pool, store: store}
}

func (f fixture) runner(t testing.TB, ps []Projection, opts ...Option) *Runner {
	t.Helper()
	r, err := NewRunner(f.pool, f.store, ps, append([]Option{WithIdlePoll(20 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// appendEvents appends n events spread over a few streams and returns the last position. It
// stops the test, so only the test's goroutine may call it; others use tryAppendEvents.
func appendEvents(t testing.TB, s eventstore.Store, n int) int64 {
	t.Helper()
	last, err := tryAppendEvents(s, n)
	if err != nil {
		t.Fatal(err)
	}
	return last
}

func tryAppendEvents(s eventstore.Store, n int) (int64, error) {
	var last int64
	for i := 0; i < n; i += 10 {
		batch := make([]eventstore.NewEvent, 0, 10)
		for j := i; j < min(i+10, n); j++ {
			batch = append(batch, eventstoretest.Event(fmt.Sprintf("test.kind_%d", j%3), j))
		}
		envs, err := s.Append(context.Background(), eventstore.StreamAppend{
			Stream: eventstore.NewStreamID("acct", fmt.Sprint(i%7)), ExpectedVersion: eventstore.AnyVersion, Events: batch})
		if err != nil {
			return 0, err
		}
		last = envs[len(envs)-1].Position
	}
	return last, nil
}

func assertAppliedOnce(t *testing.T, pool *pgxpool.Pool, want int) {
	t.Helper()
	var total, distinct int
	if err := pool.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT event_id) FROM rm_applied.applications`).Scan(&total, &distinct); err != nil {
		t.Fatal(err)
	}
	if total != want || distinct != want {
		t.Fatalf("read model holds %d applications of %d distinct events; want each of %d events exactly once", total, distinct, want)
	}
}

func checkpoint(t *testing.T, pool *pgxpool.Pool, name string) int64 {
	t.Helper()
	var pos int64
	if err := pool.QueryRow(context.Background(), `SELECT position FROM projection_checkpoints WHERE name = $1`, name).Scan(&pos); err != nil {
		t.Fatal(err)
	}
	return pos
}

const killDBEnv = "CLEARVEST_TEST_KILL_DB"

// TestKilledMidBatchAppliesNothingTwice kills a real process while it is inside a projection
// batch (rows written, checkpoint not yet committed) and restarts the projection.
func TestKilledMidBatchAppliesNothingTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	last := appendEvents(t, f.store, 200)
	eventstoretest.WaitVisible(t, f.store, last)

	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), killDBEnv+"="+f.url)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() && lines.Text() != "mid-batch" {
	}
	if lines.Err() != nil || lines.Text() != "mid-batch" {
		_ = child.Process.Kill()
		t.Fatalf("child never reached the middle of a batch: %v", lines.Err())
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	// The first batch (50 events) committed; the second died with the process.
	assertAppliedOnce(t, f.pool, 50)
	r := f.runner(t, []Projection{applied{}}, WithBatchSize(50))
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertAppliedOnce(t, f.pool, 200)
	if got := checkpoint(t, f.pool, "applied"); got != last {
		t.Fatalf("checkpoint = %d, want the last position %d", got, last)
	}
}

// TestMain turns the test binary into the process that gets killed when the kill test starts it.
func TestMain(m *testing.M) {
	if url := os.Getenv(killDBEnv); url != "" {
		killChild(url)
		return
	}
	os.Exit(m.Run())
}

// killChild applies one batch, then stops inside the second one and waits to be killed.
func killChild(url string) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		panic(err)
	}
	store := postgres.New(pool)
	r, err := NewRunner(pool, store, []Projection{applied{}}, WithBatchSize(50))
	if err != nil {
		panic(err)
	}
	if err := r.Prepare(ctx); err != nil {
		panic(err)
	}
	batches := 0
	r.afterApply = func(string, []eventstore.Envelope) {
		batches++
		if batches == 2 {
			fmt.Println("mid-batch")
			select {} // killed here, inside the open transaction
		}
	}
	_ = r.CatchUp(ctx)
	panic("the second batch should never finish")
}

func snapshot(t *testing.T, pool *pgxpool.Pool, queries ...string) string {
	t.Helper()
	var out []string
	for _, q := range queries {
		rows, err := pool.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(vals)
		out = append(out, string(b))
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func TestRebuildEqualsLiveWhileWritesContinue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}, catalogueLike{}})
	eventstoretest.WaitVisible(t, f.store, appendEvents(t, f.store, 300))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan struct{})
	go func() { defer close(running); _ = r.Run(ctx) }()
	written := make(chan error, 1)
	go func() { // writes keep coming during the rebuild
		_, err := tryAppendEvents(f.store, 300)
		written <- err
	}()
	res, err := r.Rebuild(ctx, "applied")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rebuild(ctx, "catalogue_like"); err != nil {
		t.Fatal(err)
	}
	if err := <-written; err != nil {
		t.Fatalf("writing during the rebuild: %v", err)
	}
	last := appendEvents(t, f.store, 10)
	if err := r.WaitFor(ctx, last); err != nil {
		t.Fatalf("live runner did not resume after the rebuilds: %v", err)
	}
	cancel()
	<-running
	if res.Events == 0 {
		t.Fatal("rebuild applied no events")
	}
	assertAppliedOnce(t, f.pool, 610)

	queries := []string{
		`SELECT stream_id, version, last_position FROM rm_catalogue_like.streams ORDER BY stream_id`,
		`SELECT event_id, position FROM rm_applied.applications ORDER BY position`,
	}
	live := snapshot(t, f.pool, queries...)
	oracle := snapshot(t, f.pool,
		`SELECT stream_id, max(version), max(position) FROM events GROUP BY stream_id ORDER BY stream_id`,
		`SELECT event_id, position FROM events ORDER BY position`)
	if live != oracle {
		t.Fatalf("read models after rebuild-during-writes differ from the log")
	}
	if _, err := r.Rebuild(context.Background(), "catalogue_like"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rebuild(context.Background(), "applied"); err != nil {
		t.Fatal(err)
	}
	if again := snapshot(t, f.pool, queries...); again != live {
		t.Fatalf("a quiet rebuild changed the read model")
	}
}

// catalogueLike keeps the latest version per stream with an upsert, the common projection shape.
type catalogueLike struct{}

func (catalogueLike) Name() string { return "catalogue_like" }
func (catalogueLike) Schema() string {
	return `CREATE TABLE streams (stream_id text PRIMARY KEY, version bigint NOT NULL, last_position bigint NOT NULL)`
}
func (catalogueLike) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, e := range events {
		if _, err := tx.Exec(ctx, `INSERT INTO streams VALUES ($1, $2, $3)
			ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, last_position = EXCLUDED.last_position`,
			string(e.StreamID), e.Version, e.Position); err != nil {
			return err
		}
	}
	return nil
}

func TestTwoProcessesNeverApplyTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := openFixture(t, f.url) // a second "process": its own pool, store and runner
	r1 := f.runner(t, []Projection{applied{}}, WithBatchSize(20))
	r2 := other.runner(t, []Projection{applied{}}, WithBatchSize(20))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for _, r := range []*Runner{r1, r2} {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Run(ctx) }()
	}
	type written struct {
		last int64
		err  error
	}
	writers := make(chan written, 4)
	for range cap(writers) {
		go func() {
			p, err := tryAppendEvents(f.store, 100)
			writers <- written{p, err}
		}()
	}
	var last int64
	for range cap(writers) {
		w := <-writers
		if w.err != nil {
			t.Fatalf("writer: %v", w.err)
		}
		last = max(last, w.last)
	}
	if err := r1.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	assertAppliedOnce(t, f.pool, 400)
}

func TestWaitForTimesOutWhenTheReadModelsStayBehind(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}}, WithWaitTimeout(100*time.Millisecond))
	last := appendEvents(t, f.store, 5) // nothing applies them: the runner does not run
	if err := r.WaitFor(context.Background(), last); err != ErrWaitTimeout {
		t.Fatalf("WaitFor(an unapplied position) = %v, want ErrWaitTimeout", err)
	}
}

// A reading of the checkpoints slower than the wait timeout fails its waiters with the same
// ErrWaitTimeout as the waiters' own timers, not with the query's context error: which of the two
// fires first depends on the machine's load.
func TestWaitForTimesOutWhenTheReadingIsTooSlow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}}, WithWaitTimeout(time.Microsecond))
	last := appendEvents(t, f.store, 1)
	for i := range 30 {
		if err := r.WaitFor(context.Background(), last); err != ErrWaitTimeout {
			t.Fatalf("wait %d: WaitFor = %v, want ErrWaitTimeout", i, err)
		}
	}
}

func TestSchemaChangeRebuildsOnPrepare(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}})
	last := appendEvents(t, f.store, 30)
	eventstoretest.WaitVisible(t, f.store, last)
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	changed := applied{schemaSuffix: `; CREATE INDEX applications_by_position ON applications (position)`}
	f.runner(t, []Projection{changed}) // Prepare sees a new schema hash and rebuilds
	assertAppliedOnce(t, f.pool, 30)
	var indexed bool
	if err := f.pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = 'rm_applied' AND indexname = 'applications_by_position')`).Scan(&indexed); err != nil || !indexed {
		t.Fatalf("rebuilt schema lacks the new index (%v)", err)
	}
}

func TestStatusReportsLag(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}})
	last := appendEvents(t, f.store, 40)
	eventstoretest.WaitVisible(t, f.store, last)
	st, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || st[0].LagEvents != 40 || st[0].Head != last || st[0].Position != 0 || st[0].LagSeconds < 0 {
		t.Fatalf("status before catch-up = %+v", st)
	}
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, _ = r.Status(context.Background())
	if st[0].LagEvents != 0 || st[0].Position != last || st[0].EventsApplied != 40 || st[0].LagSeconds != 0 {
		t.Fatalf("status after catch-up = %+v", st)
	}
}

// TestCatchUpWaitsForAProjectionAnotherProcessHolds: CatchUp promises everything visible is
// applied when it returns, so a batch another process (or a dying one) is in the middle of must
// be waited for, not taken for "caught up".
func TestCatchUpWaitsForAProjectionAnotherProcessHolds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}})
	last := appendEvents(t, f.store, 30)
	eventstoretest.WaitVisible(t, f.store, last)

	ctx := context.Background()
	holder, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx) //nolint:errcheck
	if err := lock(ctx, holder, "applied"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.CatchUp(ctx) }()
	eventually(t, "CatchUp waiting for the lock", func() (bool, string) {
		var waiting int
		err := f.pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1`, lockNamespace).Scan(&waiting)
		return err == nil && waiting == 1, fmt.Sprint(waiting, err)
	})
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	assertAppliedOnce(t, f.pool, 30)
}

// TestCoalescingNeverHoldsBackAnAppendAfterAQuietSpell runs the live runner with a window far
// longer than the test: the first append after start is a quiet spell's, so it must be applied
// without waiting for the window (WaitFor would time out otherwise), and every event is applied
// once.
func TestCoalescingNeverHoldsBackAnAppendAfterAQuietSpell(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}}, WithCoalesce(time.Hour), WithIdlePoll(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan struct{})
	go func() { defer close(running); _ = r.Run(ctx) }()
	if err := r.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	last := appendEvents(t, f.store, 5)
	if err := r.WaitFor(ctx, last); err != nil {
		t.Fatalf("an append after a quiet spell waited for the coalescing window: %v", err)
	}
	cancel()
	<-running
	assertAppliedOnce(t, f.pool, 5)
}

// A rebuilt read model goes live with its planner statistics: its tables were filled in bulk,
// and until they are analyzed PostgreSQL plans their queries blind.
func TestRebuildGathersPlannerStatistics(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}})
	eventstoretest.WaitVisible(t, f.store, appendEvents(t, f.store, 300))
	if _, err := r.Rebuild(context.Background(), "applied"); err != nil {
		t.Fatal(err)
	}
	var analyzed bool
	var tuples float64
	if err := f.pool.QueryRow(context.Background(), `SELECT s.last_analyze IS NOT NULL, c.reltuples
		FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		WHERE s.schemaname = $1 AND s.relname = 'applications'`, SchemaName("applied")).Scan(&analyzed, &tuples); err != nil {
		t.Fatal(err)
	}
	if !analyzed || tuples != 300 {
		t.Fatalf("after the rebuild: analyzed %v, the planner counts %.0f rows; want analyzed and 300", analyzed, tuples)
	}
}

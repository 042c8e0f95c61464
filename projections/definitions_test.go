package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
)

// versioned writes which version of its definition applied each event, so a write by an older
// process to a newer read model shows up as a row with the older version.
type versioned struct{ v int }

func (versioned) Name() string   { return "versioned" }
func (p versioned) Version() int { return p.v }
func (p versioned) Schema() string {
	return fmt.Sprintf(`CREATE TABLE applications (event_id uuid NOT NULL, position bigint NOT NULL, version int NOT NULL);
		COMMENT ON TABLE applications IS 'definition %d'`, p.v)
}

func (p versioned) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, e := range events {
		if _, err := tx.Exec(ctx, `INSERT INTO applications VALUES ($1, $2, $3)`, e.ID, e.Position, p.v); err != nil {
			return err
		}
	}
	return nil
}

// gated is versioned whose first Apply waits until released, holding a rebuild in its bulk
// phase.
type gated struct {
	versioned
	once             *sync.Once
	entered, release chan struct{}
	open             func()
}

// newGated returns a gated projection that opens by itself when the test ends, so a failing test
// does not leave its rebuild holding a connection.
func newGated(t *testing.T, v int) gated {
	g := gated{versioned: versioned{v}, once: &sync.Once{}, entered: make(chan struct{}), release: make(chan struct{})}
	var once sync.Once
	g.open = func() { once.Do(func() { close(g.release) }) }
	t.Cleanup(g.open)
	return g
}

func (g gated) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
	return g.versioned.Apply(ctx, tx, events)
}

// versionsApplied counts the rows of rm_versioned by the definition version that wrote them,
// failing on any event applied twice.
func versionsApplied(t *testing.T, f fixture) map[int]int {
	t.Helper()
	var total, distinct int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT event_id) FROM rm_versioned.applications`).Scan(&total, &distinct); err != nil {
		t.Fatal(err)
	}
	if total != distinct {
		t.Fatalf("rm_versioned holds %d applications of %d events", total, distinct)
	}
	rows, err := f.pool.Query(context.Background(), `SELECT version, count(*)::int FROM rm_versioned.applications GROUP BY version`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	var v, n int
	_, err = pgx.ForEachRow(rows, []any{&v, &n}, func() error { out[v] = n; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOlderDefinitionNeverWritesToANewerReadModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	watch := newLogWatch()
	old := f.runner(t, []Projection{versioned{1}}, WithLogger(slog.New(watch)))
	runInBackground(t, old)
	first := logEvents(t, f, 20)
	eventually(t, "the old process caught up", func() (bool, string) {
		got := checkpoint(t, f.pool, "versioned")
		return got == first[19].Position, fmt.Sprint(got)
	})

	// A rolling deploy: a process with the next definition starts beside the old one and
	// rebuilds the read model at start-up. Until it runs, the old process is the only runner.
	newer := openFixture(t, f.url).runner(t, []Projection{versioned{2}})
	logEvents(t, f, 10)
	const stoodDown = "projection stood down: its read model was built by another definition"
	eventually(t, "the old process looked at the new events", func() (bool, string) {
		got := checkpoint(t, f.pool, "versioned")
		return watch.logged(stoodDown) || got != first[19].Position, fmt.Sprint(got)
	})
	if got := versionsApplied(t, f); got[1] != 0 || got[2] != 20 {
		t.Fatalf("rows by definition version: %v; the old process wrote to the rebuilt read model", got)
	}
	if got := checkpoint(t, f.pool, "versioned"); got != first[19].Position {
		t.Fatalf("the old process moved the checkpoint to %d", got)
	}

	runInBackground(t, newer)
	more := logEvents(t, f, 20)
	eventually(t, "the new process caught up", func() (bool, string) {
		got := checkpoint(t, f.pool, "versioned")
		return got == more[19].Position, fmt.Sprint(got)
	})
	if got := versionsApplied(t, f); got[2] != 50 || len(got) != 1 {
		t.Fatalf("rows by definition version: %v; want all 50 events written by version 2 only", got)
	}

	st := statusOf(t, old, "versioned")
	if st.State != StateStoodDown || !strings.Contains(st.Mismatch, "holds version 2") {
		t.Fatalf("old process's status = %s (%q), want stood down", st.State, st.Mismatch)
	}
	reasons, err := old.NotReady(ctx)
	if err != nil || len(reasons) != 1 || !strings.HasPrefix(reasons[0], "projection versioned stood down: the database holds version 2") {
		t.Fatalf("old process NotReady = %q, %v", reasons, err)
	}
	if reasons, err := newer.NotReady(ctx); err != nil || len(reasons) != 0 {
		t.Fatalf("new process NotReady = %q, %v; want ready", reasons, err)
	}
	if err := old.CatchUp(ctx); !errors.Is(err, ErrStoodDown) {
		t.Fatalf("old CatchUp = %v, want ErrStoodDown", err)
	}

	// The old process restarting must not rebuild the read model back, nor may an old CLI.
	restarted := openFixture(t, f.url).runner(t, []Projection{versioned{1}})
	if _, err := restarted.Rebuild(ctx, "versioned"); !errors.Is(err, ErrStoodDown) {
		t.Fatalf("Rebuild by the old definition = %v, want ErrStoodDown", err)
	}
	last := logEvents(t, f, 5)
	eventually(t, "the new process applied the last events", func() (bool, string) {
		got := checkpoint(t, f.pool, "versioned")
		return got == last[4].Position, fmt.Sprint(got)
	})
	if got := versionsApplied(t, f); got[2] != 55 || len(got) != 1 {
		t.Fatalf("after the old process restarted, rows by version: %v", got)
	}
}

func TestSameVersionWithAnotherSchemaStandsDown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.runner(t, []Projection{applied{}})
	// Another process changed the schema without raising the version, and rebuilt.
	f.runner(t, []Projection{applied{schemaSuffix: `; CREATE INDEX ON applications (position)`}})
	appendEvents(t, f.store, 3)
	if err := r.CatchUp(context.Background()); !errors.Is(err, ErrStoodDown) || !strings.Contains(err.Error(), "another schema under the same version 1") {
		t.Fatalf("CatchUp = %v, want ErrStoodDown", err)
	}
}

// logWatch is a slog handler that lets a test wait for a message logged by another goroutine.
type logWatch struct {
	mu      sync.Mutex
	msgs    []string
	changed chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{changed: make(chan struct{})} }

func (w *logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w *logWatch) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *logWatch) WithGroup(string) slog.Handler            { return w }
func (w *logWatch) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, r.Message)
	close(w.changed)
	w.changed = make(chan struct{})
	return nil
}

// count tells how many messages start with prefix.
func (w *logWatch) count(prefix string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, m := range w.msgs {
		if strings.HasPrefix(m, prefix) {
			n++
		}
	}
	return n
}

func (w *logWatch) logged(msg string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.msgs, msg)
}

// waitFor waits until a message starting with prefix is logged. The logging code runs in a
// goroutine that reports its end on done; ending first fails the test with its error.
func (w *logWatch) waitFor(t *testing.T, prefix string, done <-chan error) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		w.mu.Lock()
		ch := w.changed
		w.mu.Unlock()
		if w.count(prefix) > 0 {
			return
		}
		select {
		case <-ch:
		case err := <-done:
			t.Fatalf("returned %v before logging %q", err, prefix)
		case <-timeout:
			t.Fatalf("never logged %q", prefix)
		}
	}
}

func TestSecondProcessWaitsForARunningRebuild(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	if err := f.runner(t, []Projection{versioned{1}}).CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	logEvents(t, f, 30)

	// Process A starts with definition 2 and rebuilds; its rebuild stops inside the bulk phase.
	g := newGated(t, 2)
	a, err := NewRunner(f.pool, f.store, []Projection{g})
	if err != nil {
		t.Fatal(err)
	}
	aDone := make(chan error, 1)
	go func() { aDone <- a.Prepare(ctx) }()
	select {
	case <-g.entered:
	case err := <-aDone:
		t.Fatalf("A's Prepare returned %v before its rebuild applied anything", err)
	}

	// Process B starts with the same definition while A's rebuild runs: it waits, then finds
	// the rebuild done and does not repeat it.
	other := openFixture(t, f.url)
	watch := newLogWatch()
	b, err := NewRunner(other.pool, other.store, []Projection{versioned{2}}, WithLogger(slog.New(watch)))
	if err != nil {
		t.Fatal(err)
	}
	bDone := make(chan error, 1)
	go func() { bDone <- b.Prepare(ctx) }()
	watch.waitFor(t, "waiting for the rebuild", bDone)
	g.open()
	if err := <-aDone; err != nil {
		t.Fatalf("A's Prepare: %v", err)
	}
	if err := <-bDone; err != nil {
		t.Fatalf("B's Prepare, started during A's rebuild: %v", err)
	}
	if !watch.logged("projection rebuilt by another process meanwhile") || watch.logged("projection rebuilt") {
		t.Errorf("B's log: %q; want it to find the rebuild done and not rebuild again", watch.msgs)
	}
	if got := versionsApplied(t, f); got[2] != 30 || len(got) != 1 {
		t.Fatalf("rows by version after both started: %v", got)
	}
}

func TestWaitingForAnotherRebuildIsBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := f.runner(t, []Projection{versioned{1}}).CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Another process holds the rebuild lock and never finishes.
	holder, err := f.pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(holder.Release)
	if _, err := holder.Exec(context.Background(), `SELECT pg_advisory_lock($1, hashtext('versioned'))`, lockNamespace+1); err != nil {
		t.Fatal(err)
	}

	r, err := NewRunner(f.pool, f.store, []Projection{versioned{2}}, WithRebuildWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Prepare(context.Background()); !errors.Is(err, ErrRebuildRunning) {
		t.Fatalf("Prepare past the wait limit = %v, want ErrRebuildRunning", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	watch := newLogWatch()
	r, err = NewRunner(f.pool, f.store, []Projection{versioned{2}}, WithLogger(slog.New(watch)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Prepare(ctx) }()
	watch.waitFor(t, "waiting for the rebuild", done)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Prepare = %v, want context.Canceled", err)
	}
	if _, err := r.Rebuild(context.Background(), "versioned"); !errors.Is(err, ErrRebuildRunning) {
		t.Fatalf("an explicit rebuild during another = %v, want ErrRebuildRunning", err)
	}
}

package projections

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
)

// picky records every application like applied, and refuses the events it is told to refuse,
// after writing the rows of the events before them in the batch: a refused batch leaves writes
// that must be rolled back.
type picky struct {
	name string

	mu     sync.Mutex
	refuse map[uuid.UUID]func(ctx context.Context, tx pgx.Tx) error
	calls  map[uuid.UUID]int // applications of refused events, for refusals that stop after a few
}

func newPicky(name string) *picky {
	return &picky{name: name, refuse: map[uuid.UUID]func(context.Context, pgx.Tx) error{}, calls: map[uuid.UUID]int{}}
}

func (p *picky) Name() string { return p.name }
func (p *picky) Schema() string {
	return `CREATE TABLE applications (event_id uuid NOT NULL, position bigint NOT NULL)`
}

func (p *picky) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, e := range events {
		p.mu.Lock()
		fail := p.refuse[e.ID]
		p.calls[e.ID]++
		p.mu.Unlock()
		if fail != nil {
			if err := fail(ctx, tx); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO applications VALUES ($1, $2)`, e.ID, e.Position); err != nil {
			return err
		}
	}
	return nil
}

// refuseWith makes Apply fail on the event with fail's error.
func (p *picky) refuseWith(id uuid.UUID, fail func(ctx context.Context, tx pgx.Tx) error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse[id] = fail
}

// fix stands for a deployed fix: Apply accepts every event from now on.
func (p *picky) fix() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.refuse)
}

func refusal(ctx context.Context, tx pgx.Tx) error { return errors.New("cannot handle this event") }

// logEvents appends n events and returns them as stored, once all are visible.
func logEvents(t *testing.T, f fixture, n int) []eventstore.Envelope {
	t.Helper()
	var out []eventstore.Envelope
	for i := 0; i < n; i += 10 {
		batch := make([]eventstore.NewEvent, 0, 10)
		for j := i; j < min(i+10, n); j++ {
			batch = append(batch, eventstoretest.Event(fmt.Sprintf("test.kind_%d", j%3), j))
		}
		envs, err := f.store.Append(context.Background(), eventstore.StreamAppend{
			Stream: eventstore.NewStreamID("acct", fmt.Sprint(i%7)), ExpectedVersion: eventstore.AnyVersion, Events: batch})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, envs...)
	}
	eventstoretest.WaitVisible(t, f.store, out[len(out)-1].Position)
	return out
}

// positionsIn lists the positions a read model holds, failing on any event applied twice.
func positionsIn(t *testing.T, pool *pgxpool.Pool, schema string) []int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT position FROM `+pgx.Identifier{schema, "applications"}.Sanitize()+` ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("%s applied the event at position %d twice", schema, got[i])
		}
	}
	return got
}

func positionsOf(events []eventstore.Envelope) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Position
	}
	return out
}

// eventually polls cond until it holds or the deadline passes; what describes the state seen.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never happened; last seen: %s", what, seen)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func statusOf(t *testing.T, r *Runner, name string) Status {
	t.Helper()
	all, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %s", name)
	return Status{}
}

// runInBackground runs r until the test ends and reports Run's end to the test goroutine.
func runInBackground(t *testing.T, r *Runner) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Run ended with %v, want context.Canceled", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func TestRefusedEventParksItsProjectionAtThatEventOnly(t *testing.T) {
	t.Parallel()
	for _, bad := range []int{0, 1, 47, 99} { // first of the log, inside the first batch, mid-batch, last
		t.Run(fmt.Sprintf("event %d of 100", bad), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			events := logEvents(t, f, 100)
			p := newPicky("picky")
			p.refuseWith(events[bad].ID, refusal)
			r := f.runner(t, []Projection{p, applied{}}, WithBatchSize(20))
			runInBackground(t, r)

			eventually(t, "picky parked", func() (bool, string) {
				s := statusOf(t, r, "picky")
				return s.State == StateFailed, fmt.Sprintf("%+v", s)
			})
			if got, want := positionsIn(t, f.pool, "rm_picky"), positionsOf(events[:bad]); !slices.Equal(got, want) {
				t.Fatalf("picky applied positions %v, want exactly the %d events before the refused one", got, bad)
			}
			s := statusOf(t, r, "picky")
			var wantCheckpoint int64
			if bad > 0 {
				wantCheckpoint = events[bad-1].Position
			}
			if s.Position != wantCheckpoint {
				t.Errorf("checkpoint = %d, want %d (the event before the refused one)", s.Position, wantCheckpoint)
			}
			e := events[bad]
			fl := s.Failure
			if fl == nil || fl.Position != e.Position || fl.EventID != e.ID.String() || fl.EventType != e.Type ||
				fl.StreamID != string(e.StreamID) || !strings.Contains(fl.Error, "cannot handle this event") || fl.Attempts != 1 ||
				fl.FailedAt.IsZero() || fl.RetryRequestedAt != nil {
				t.Fatalf("recorded failure = %+v, want event %s at %d", fl, e.ID, e.Position)
			}

			// The other projection goes on, now and with new events.
			more := logEvents(t, f, 30)
			last := more[len(more)-1].Position
			eventually(t, "applied caught up", func() (bool, string) {
				got := checkpoint(t, f.pool, "applied")
				return got == last, fmt.Sprint(got)
			})
			assertAppliedOnce(t, f.pool, 130)
			if got := checkpoint(t, f.pool, "picky"); got != wantCheckpoint {
				t.Errorf("parked projection moved to %d", got)
			}
		})
	}
}

func TestParkedProjectionShowsInReadinessMetricsAndCatchUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 10)
	p := newPicky("picky")
	p.refuseWith(events[4].ID, refusal)
	reg := prometheus.NewRegistry()
	r := f.runner(t, []Projection{applied{}, p}, WithMetrics(reg))
	reg.MustRegister(LagCollector{Runner: r})

	err := r.CatchUp(context.Background())
	if !errors.Is(err, ErrParked) || !strings.Contains(err.Error(), fmt.Sprintf("picky at position %d", events[4].Position)) {
		t.Fatalf("CatchUp = %v, want ErrParked naming picky and the position", err)
	}
	assertAppliedOnce(t, f.pool, 10) // CatchUp went on with the other projection

	reasons, err := r.NotReady(context.Background())
	want := fmt.Sprintf("projection picky failed at position %d and is parked", events[4].Position)
	if err != nil || len(reasons) != 1 || reasons[0] != want {
		t.Fatalf("NotReady = %q, %v; want [%q]", reasons, err, want)
	}
	for name, want := range map[string]float64{"applied": 0, "picky": 1} {
		if got := gauge(t, reg, "clearvest_projection_failed", name); got != want {
			t.Errorf("clearvest_projection_failed{projection=%q} = %v, want %v", name, got, want)
		}
	}
}

// gauge reads one labelled value of a gauge or counter from reg.
func gauge(t *testing.T, reg *prometheus.Registry, metric, projection string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		if fam.GetName() != metric {
			continue
		}
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "projection" && l.GetValue() == projection {
					if m.GetCounter() != nil {
						return m.GetCounter().GetValue()
					}
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("%s{projection=%q} not exported", metric, projection)
	return 0
}

func TestRetryResumesAfterAFixWithoutRestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 60)
	p := newPicky("picky")
	p.refuseWith(events[25].ID, refusal)
	r := f.runner(t, []Projection{p}, WithBatchSize(20))
	runInBackground(t, r)
	eventually(t, "picky parked", func() (bool, string) {
		s := statusOf(t, r, "picky")
		return s.State == StateFailed, string(s.State)
	})

	// A retry before the fix fails again at the same event and counts another attempt.
	if _, err := r.Retry(context.Background(), "picky", "alice"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "second attempt recorded", func() (bool, string) {
		s := statusOf(t, r, "picky")
		return s.State == StateFailed && s.Failure.Attempts == 2, fmt.Sprintf("%s %+v", s.State, s.Failure)
	})

	p.fix()
	fl, err := r.Retry(context.Background(), "picky", "alice")
	if err != nil || fl.Position != events[25].Position {
		t.Fatalf("Retry = %+v, %v", fl, err)
	}
	// Another process's runner, which gets no in-process wake-up, picks the retry up as well;
	// here the one running runner does, and ends with every event applied exactly once.
	eventually(t, "picky caught up", func() (bool, string) {
		s := statusOf(t, r, "picky")
		return s.Position == events[59].Position && s.State == StateRunning, fmt.Sprintf("%+v", s)
	})
	if got := positionsIn(t, f.pool, "rm_picky"); !slices.Equal(got, positionsOf(events)) {
		t.Fatalf("after the retry picky holds %d events, want all %d once", len(got), len(events))
	}
	if s := statusOf(t, r, "picky"); s.Failure != nil {
		t.Errorf("failure still recorded after the retry passed it: %+v", s.Failure)
	}
	if _, err := r.Retry(context.Background(), "picky", "alice"); !errors.Is(err, ErrNotParked) {
		t.Errorf("Retry of a running projection = %v, want ErrNotParked", err)
	}
}

func TestRetryIsSeenByAnotherProcess(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 20)
	p := newPicky("picky")
	p.refuseWith(events[7].ID, refusal)
	r := f.runner(t, []Projection{p})
	runInBackground(t, r)
	eventually(t, "picky parked", func() (bool, string) {
		s := statusOf(t, r, "picky")
		return s.State == StateFailed, string(s.State)
	})
	p.fix()
	// The operator's tool is another process: its own pool, store and runner.
	cli := openFixture(t, f.url).runner(t, []Projection{newPicky("picky")})
	if _, err := cli.Retry(context.Background(), "picky", "ops"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the serving runner resumed", func() (bool, string) {
		got := checkpoint(t, f.pool, "picky")
		return got == events[19].Position, fmt.Sprint(got)
	})
}

func TestSkipPassesExactlyThatEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 50)
	p := newPicky("picky")
	p.refuseWith(events[30].ID, refusal)
	r := f.runner(t, []Projection{p}, WithBatchSize(20))
	runInBackground(t, r)
	eventually(t, "picky parked", func() (bool, string) {
		s := statusOf(t, r, "picky")
		return s.State == StateFailed, string(s.State)
	})

	bad := events[30]
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		req  SkipRequest
		want string
	}{
		{"unknown projection", SkipRequest{Name: "nope", Position: bad.Position, Reason: "x", By: "bob"}, `no projection named "nope"`},
		{"no reason", SkipRequest{Name: "picky", Position: bad.Position, Reason: "  ", By: "bob"}, "give a reason"},
		{"no operator", SkipRequest{Name: "picky", Position: bad.Position, Reason: "x"}, "say who skips"},
		{"no position", SkipRequest{Name: "picky", Reason: "x", By: "bob"}, "positive number"},
		{"no event there", SkipRequest{Name: "picky", Position: 1, Reason: "x", By: "bob"}, "no event at position 1"},
	} {
		if _, err := r.Skip(ctx, tt.req); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Skip = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if s := statusOf(t, r, "picky"); len(s.Skips) != 0 || s.State != StateFailed {
		t.Fatalf("refused skips changed the state: %+v", s)
	}

	sk, err := r.Skip(ctx, SkipRequest{Name: "picky", Position: bad.Position, Reason: "payload written by a bug, corrected later", By: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if sk.EventID != bad.ID.String() || sk.EventType != bad.Type || sk.StreamID != string(bad.StreamID) || sk.Applied ||
		!strings.Contains(sk.Error, "cannot handle this event") {
		t.Errorf("skip = %+v", sk)
	}
	last := events[49].Position
	eventually(t, "picky passed the skipped event", func() (bool, string) {
		got := checkpoint(t, f.pool, "picky")
		return got == last, fmt.Sprint(got)
	})
	want := positionsOf(slices.Delete(slices.Clone(events), 30, 31))
	if got := positionsIn(t, f.pool, "rm_picky"); !slices.Equal(got, want) {
		t.Fatalf("picky holds %d events; want every event but the skipped one, once", len(got))
	}
	s := statusOf(t, r, "picky")
	if s.State != StateRunning || s.Failure != nil || len(s.Skips) != 1 ||
		s.Skips[0].Position != bad.Position || s.Skips[0].By != "bob" || s.Skips[0].Reason != "payload written by a bug, corrected later" {
		t.Fatalf("status after the skip = %+v", s)
	}
	if _, err := r.Skip(ctx, SkipRequest{Name: "picky", Position: bad.Position, Reason: "again", By: "bob"}); !errors.Is(err, ErrAlreadySkipped) {
		t.Errorf("skipping twice = %v, want ErrAlreadySkipped", err)
	}

	// A rebuild passes the same event, so it builds the same rows as the live runner.
	if _, err := r.Rebuild(ctx, "picky"); err != nil {
		t.Fatal(err)
	}
	if got := positionsIn(t, f.pool, "rm_picky"); !slices.Equal(got, want) {
		t.Fatalf("the rebuilt read model holds %d events, want the live model's %d", len(got), len(want))
	}

	// Skipping an event the live model applied already only changes rebuilds.
	sk, err = r.Skip(ctx, SkipRequest{Name: "picky", Position: events[3].Position, Reason: "duplicate import", By: "bob"})
	if err != nil || !sk.Applied {
		t.Fatalf("skip of an applied event = %+v, %v; want Applied", sk, err)
	}
}

func TestRebuildStopsAtARefusedEventAndKeepsTheLiveModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 40)
	p := newPicky("picky")
	r := f.runner(t, []Projection{p})
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.refuseWith(events[17].ID, refusal) // a new Apply that refuses an old event

	_, err := r.Rebuild(context.Background(), "picky")
	var failed *EventError
	if !errors.As(err, &failed) || failed.Event.ID != events[17].ID || failed.Projection != "picky" {
		t.Fatalf("Rebuild = %v, want an *EventError naming event 17", err)
	}
	if got := positionsIn(t, f.pool, "rm_picky"); !slices.Equal(got, positionsOf(events)) {
		t.Fatalf("a failed rebuild changed the live read model")
	}
	if _, err := r.Skip(context.Background(), SkipRequest{Name: "picky", Position: events[17].Position, Reason: "r", By: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rebuild(context.Background(), "picky"); err != nil {
		t.Fatalf("rebuild after skipping the event: %v", err)
	}
	if got := positionsIn(t, f.pool, "rm_picky"); len(got) != 39 || slices.Contains(got, events[17].Position) {
		t.Fatalf("rebuilt model holds %d events (skipped one present: %v)", len(got), slices.Contains(got, events[17].Position))
	}
}

// raise makes the database itself report an error with the given SQLSTATE, as it would for a
// real conflict.
func raise(code string) func(context.Context, pgx.Tx) error {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, fmt.Sprintf(`DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = '%s'; END $$`, code))
		return err
	}
}

func TestTransientErrorsAreRetriedNotParked(t *testing.T) {
	t.Parallel()
	// More failures in a row than applying the batch in halves would take to isolate the event,
	// so a misclassified error would park the projection.
	const transientFailures = 8
	causes := map[string]func(t *testing.T, f fixture) func(context.Context, pgx.Tx) error{
		"serialization failure": func(*testing.T, fixture) func(context.Context, pgx.Tx) error { return raise("40001") },
		"deadlock":              func(*testing.T, fixture) func(context.Context, pgx.Tx) error { return raise("40P01") },
		"lock timeout": func(t *testing.T, f fixture) func(context.Context, pgx.Tx) error {
			// Another connection holds a lock the handler needs, longer than its lock_timeout.
			ctx := context.Background()
			if _, err := f.pool.Exec(ctx, `CREATE TABLE contended (id int)`); err != nil {
				t.Fatal(err)
			}
			holder, err := f.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = holder.Rollback(ctx) })
			if _, err := holder.Exec(ctx, `LOCK TABLE contended IN ACCESS EXCLUSIVE MODE`); err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '20ms'; SELECT count(*) FROM public.contended`)
				return err
			}
		},
		"statement timeout": func(*testing.T, fixture) func(context.Context, pgx.Tx) error {
			return func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `SET LOCAL statement_timeout = '10ms'; SELECT pg_sleep(5)`)
				return err
			}
		},
		"connection killed": func(*testing.T, fixture) func(context.Context, pgx.Tx) error {
			return func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
				return err
			}
		},
	}
	for name, setup := range causes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			events := logEvents(t, f, 30)
			cause := setup(t, f)
			p := newPicky("picky")
			var mu sync.Mutex
			failures := 0
			p.refuseWith(events[12].ID, func(ctx context.Context, tx pgx.Tx) error {
				mu.Lock()
				defer mu.Unlock()
				if failures == transientFailures {
					return nil // the cause went away
				}
				failures++
				return cause(ctx, tx)
			})
			reg := prometheus.NewRegistry()
			r := f.runner(t, []Projection{p}, WithRetryDelay(time.Millisecond), WithMetrics(reg))
			runInBackground(t, r)
			eventually(t, "picky caught up", func() (bool, string) {
				s := statusOf(t, r, "picky")
				return s.Position == events[29].Position, fmt.Sprintf("%+v", s)
			})
			if s := statusOf(t, r, "picky"); s.Failure != nil || s.State != StateRunning {
				t.Fatalf("a transient error was recorded as a failure: %+v", s.Failure)
			}
			if got := positionsIn(t, f.pool, "rm_picky"); !slices.Equal(got, positionsOf(events)) {
				t.Fatalf("picky holds %d events, want all 30 once", len(got))
			}
			if n := gauge(t, reg, "clearvest_projection_batch_failures_total", "picky"); n != transientFailures {
				t.Errorf("transient failures counted: %v, want %d", n, transientFailures)
			}
		})
	}
}

func TestStoppingInsideApplyDoesNotPark(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 10)
	p := newPicky("picky")
	inside := make(chan struct{})
	p.refuseWith(events[5].ID, func(ctx context.Context, tx pgx.Tx) error {
		close(inside)
		<-ctx.Done()
		return errors.New("gave up") // an error that does not say why
	})
	r := f.runner(t, []Projection{p})
	stop := runInBackground(t, r)
	select {
	case <-inside:
	case <-time.After(20 * time.Second):
		t.Fatal("the runner never reached the event")
	}
	stop()
	if s := statusOf(t, r, "picky"); s.Failure != nil || s.Position != 0 {
		t.Fatalf("stopping the process mid-batch left state %+v", s)
	}
}

func TestPanicInApplyParksInsteadOfCrashing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 10)
	p := newPicky("picky")
	p.refuseWith(events[6].ID, func(context.Context, pgx.Tx) error {
		var m map[string]int
		m["boom"]++ // a nil map: the handler's bug
		return nil
	})
	r := f.runner(t, []Projection{p, applied{}})
	if err := r.CatchUp(context.Background()); !errors.Is(err, ErrParked) {
		t.Fatalf("CatchUp = %v, want ErrParked", err)
	}
	s := statusOf(t, r, "picky")
	if s.Failure == nil || s.Failure.Position != events[6].Position || !strings.Contains(s.Failure.Error, "panic: assignment to entry in nil map") {
		t.Fatalf("failure = %+v", s.Failure)
	}
	assertAppliedOnce(t, f.pool, 10)
}

func TestTransientClassification(t *testing.T) {
	t.Parallel()
	pg := func(code string) error { return fmt.Errorf("apply: %w", &pgconn.PgError{Code: code, Message: "m"}) }
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{context.Canceled, true},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), true},
		{pg("40001"), true}, // serialization failure
		{pg("40P01"), true}, // deadlock
		{pg("55P03"), true}, // lock timeout
		{pg("57014"), true}, // statement timeout, cancel request
		{pg("57P01"), true}, // server shutting down, backend terminated
		{pg("08006"), true}, // connection failure
		{pg("53300"), true}, // too many connections
		{pg("53100"), true}, // disk full
		{pg("58030"), true}, // I/O error
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{pg("23505"), false}, // unique violation: the event conflicts with the read model
		{pg("23502"), false}, // not-null violation
		{pg("22P02"), false}, // invalid text representation
		{pg("42P01"), false}, // undefined table: the code does not match the schema
		{pg("42703"), false}, // undefined column
		{pg("25P02"), false}, // a statement after an error the handler swallowed
		{pg("XX000"), false}, // internal error: needs an operator, so make it visible
		{errors.New("decode user.registered: unexpected end of JSON input"), false},
		{&panicError{value: "boom"}, false},
	} {
		if got := transient(tt.err); got != tt.want {
			t.Errorf("transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestReadYourWritesDoesNotWaitForAParkedProjection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 10)
	p := newPicky("picky")
	p.refuseWith(events[3].ID, refusal)
	// A wait timeout far beyond the test's: only giving up at once on the parked projection
	// lets WaitFor return before the deadline below.
	r := f.runner(t, []Projection{applied{}, p}, WithWaitTimeout(time.Hour))
	if err := r.CatchUp(context.Background()); !errors.Is(err, ErrParked) {
		t.Fatalf("CatchUp = %v, want ErrParked", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := r.WaitFor(ctx, events[2].Position); err != nil {
		t.Errorf("WaitFor a position the parked projection has applied = %v, want nil", err)
	}
	if err := r.WaitFor(ctx, events[9].Position); !errors.Is(err, ErrParked) || !strings.Contains(err.Error(), "picky") {
		t.Fatalf("WaitFor past the parked event = %v, want ErrParked naming picky", err)
	}
}

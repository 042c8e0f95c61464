package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

type testOpened struct {
	Owner string `json:"owner"`
}

func (testOpened) EventName() string { return "test.opened" }

type testDeposited struct {
	Amount string `json:"amount"`
}

func (testDeposited) EventName() string { return "test.deposited" }

func testRegistry() *eventstore.Registry {
	r := eventstore.NewRegistry()
	eventstore.Register[testOpened](r, 1)
	eventstore.Register[testDeposited](r, 1)
	return r
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// operatorShell configures the environment as an operator's shell would, for a development server on
// a fresh database, and returns that database's URL and a way to run command lines in it, which
// answers with what the command printed. Tests that use it set environment variables, so they
// cannot run in parallel.
func operatorShell(t *testing.T) (string, func(args ...string) (string, error)) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("CLEARVEST_DATA_DIR", t.TempDir())
	t.Setenv("CLEARVEST_SECRET_KEY", base64.StdEncoding.EncodeToString(make([]byte, 32)))
	t.Setenv("CLEARVEST_ENV", "development")
	ctx := testCtx(t)
	return url, func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, args, &out, io.Discard)
		return out.String(), err
	}
}

func newTestStore(t *testing.T) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(testCtx(t), pool, postgres.Migrations); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	return store, pool
}

func newEvent(t *testing.T, typ string, data any, meta eventstore.Metadata) eventstore.NewEvent {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return eventstore.NewEvent{ID: eventstore.NewEventID(), Type: typ, SchemaVersion: 1, Data: b, Metadata: meta}
}

// appendVisible appends and waits until read-all sees the result, so that the read that follows
// is complete.
func appendVisible(t *testing.T, s eventstore.Store, appends ...eventstore.StreamAppend) []eventstore.Envelope {
	t.Helper()
	envs, err := s.Append(testCtx(t), appends...)
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	eventstoretest.WaitVisible(t, s, envs[len(envs)-1].Position)
	return envs
}

// seed writes two small account streams, partly in one multi-stream append, with metadata and a
// payload that HTML escaping would alter.
func seed(t *testing.T, s eventstore.Store) []eventstore.Envelope {
	t.Helper()
	meta := eventstore.Metadata{CorrelationID: "corr-1", ActorID: "user-7", ActorRole: "admin"}
	a, b := eventstore.StreamID("account-a"), eventstore.StreamID("account-b")
	var all []eventstore.Envelope
	all = append(all, appendVisible(t, s, eventstore.StreamAppend{Stream: a, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{
		newEvent(t, "test.opened", testOpened{Owner: "Ann <ann@example.com> & co"}, meta),
		newEvent(t, "test.deposited", testDeposited{Amount: "100.00"}, meta),
	}})...)
	all = append(all, appendVisible(t, s,
		eventstore.StreamAppend{Stream: b, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{
			newEvent(t, "test.opened", testOpened{Owner: "Bob"}, eventstore.Metadata{}),
		}},
		eventstore.StreamAppend{Stream: a, ExpectedVersion: 2, Events: []eventstore.NewEvent{
			newEvent(t, "test.deposited", testDeposited{Amount: "0.10"}, meta),
		}},
	)...)
	all = append(all, appendVisible(t, s, eventstore.StreamAppend{Stream: b, ExpectedVersion: 1, Events: []eventstore.NewEvent{
		newEvent(t, "test.deposited", testDeposited{Amount: "5.00"}, eventstore.Metadata{IdempotencyKey: "k1"}),
	}})...)
	return all
}

// decodeLines parses an export back, failing on anything that is not one JSON object per line
// with exactly the documented fields.
func decodeLines(t *testing.T, out []byte) []exportedEvent {
	t.Helper()
	var got []exportedEvent
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &fields); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", len(got)+1, err, sc.Bytes())
		}
		if len(fields) != 9 {
			t.Fatalf("line %d has %d fields, want 9: %s", len(got)+1, len(fields), sc.Bytes())
		}
		var e exportedEvent
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %d: %v", len(got)+1, err)
		}
		got = append(got, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

func assertExported(t *testing.T, got []exportedEvent, want []eventstore.Envelope) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("exported %d events, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Position != w.Position || g.EventID != w.ID || g.StreamID != w.StreamID || g.Version != w.Version ||
			g.Type != w.Type || g.SchemaVersion != w.SchemaVersion || g.Metadata != w.Metadata {
			t.Errorf("line %d:\n got  %+v\n want %+v", i+1, g, w)
		}
		at, err := time.Parse(time.RFC3339Nano, g.RecordedAt)
		if err != nil || !at.Equal(w.RecordedAt) || !strings.HasSuffix(g.RecordedAt, "Z") {
			t.Errorf("line %d: recordedAt %q, want %s in UTC (%v)", i+1, g.RecordedAt, w.RecordedAt.Format(time.RFC3339Nano), err)
		}
		var gd, wd any
		if err := json.Unmarshal(g.Data, &gd); err != nil {
			t.Fatalf("line %d data: %v", i+1, err)
		}
		_ = json.Unmarshal(w.Data, &wd)
		if fmt.Sprint(gd) != fmt.Sprint(wd) {
			t.Errorf("line %d: data %s, want %s", i+1, g.Data, w.Data)
		}
	}
}

func sortedByPosition(envs []eventstore.Envelope) []eventstore.Envelope {
	out := append([]eventstore.Envelope(nil), envs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Position < out[j-1].Position; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestExportAll(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	seeded := sortedByPosition(seed(t, store))

	var out bytes.Buffer
	n, err := exportEvents(testCtx(t), store, &out, exportOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(seeded) {
		t.Errorf("reported %d events, want %d", n, len(seeded))
	}
	assertExported(t, decodeLines(t, out.Bytes()), seeded)
	if !strings.Contains(out.String(), `"Ann <ann@example.com> & co"`) {
		t.Errorf("payload text was altered by escaping:\n%s", out.String())
	}

	t.Run("after a position", func(t *testing.T) {
		var out bytes.Buffer
		if _, err := exportEvents(testCtx(t), store, &out, exportOptions{All: true, After: seeded[1].Position}); err != nil {
			t.Fatal(err)
		}
		assertExported(t, decodeLines(t, out.Bytes()), seeded[2:])
	})
}

func TestExportStream(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	var want []eventstore.Envelope
	for _, e := range seed(t, store) {
		if e.StreamID == "account-a" {
			want = append(want, e)
		}
	}
	var out bytes.Buffer
	if _, err := exportEvents(testCtx(t), store, &out, exportOptions{Stream: "account-a"}); err != nil {
		t.Fatal(err)
	}
	got := decodeLines(t, out.Bytes())
	assertExported(t, got, want)
	for i, e := range got {
		if e.Version != int64(i+1) {
			t.Errorf("line %d has version %d: a stream exports in version order", i+1, e.Version)
		}
	}

	out.Reset()
	if n, err := exportEvents(testCtx(t), store, &out, exportOptions{Stream: "account-nobody"}); err != nil || n != 0 || out.Len() != 0 {
		t.Errorf("unknown stream: %d events, %q, %v; want nothing", n, out.String(), err)
	}
}

// TestExportPages crosses page boundaries: exactly two full pages, then a partial one.
func TestExportPages(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	for _, size := range []int{2 * pageSize, pageSize + 1} {
		stream := eventstore.NewStreamID("bulk", fmt.Sprint(size))
		evs := make([]eventstore.NewEvent, size)
		for i := range evs {
			evs[i] = newEvent(t, "test.deposited", testDeposited{Amount: fmt.Sprint(i)}, eventstore.Metadata{})
		}
		appendVisible(t, store, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: evs})

		var out bytes.Buffer
		n, err := exportEvents(testCtx(t), store, &out, exportOptions{Stream: stream})
		if err != nil || n != size {
			t.Fatalf("stream of %d: exported %d (%v)", size, n, err)
		}
		for i, e := range decodeLines(t, out.Bytes()) {
			if e.Version != int64(i+1) {
				t.Fatalf("stream of %d: line %d has version %d", size, i+1, e.Version)
			}
		}
	}
	var out bytes.Buffer
	n, err := exportEvents(testCtx(t), store, &out, exportOptions{All: true})
	if err != nil || n != 3*pageSize+1 {
		t.Fatalf("all: exported %d (%v), want %d", n, err, 3*pageSize+1)
	}
	got := decodeLines(t, out.Bytes())
	for i := 1; i < len(got); i++ {
		if got[i].Position <= got[i-1].Position {
			t.Fatalf("line %d: position %d after %d", i+1, got[i].Position, got[i-1].Position)
		}
	}
}

func TestEventsUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts exportOptions
	}{
		{"neither", exportOptions{}},
		{"both", exportOptions{All: true, Stream: "account-a"}},
		{"after with a stream", exportOptions{Stream: "account-a", After: 5}},
		{"explicit after 0 with a stream", exportOptions{Stream: "account-a", afterSet: true}},
		{"negative after", exportOptions{All: true, After: -1}},
		{"malformed stream", exportOptions{Stream: "account"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// No store: options are refused before any read.
			_, err := exportEvents(context.Background(), nil, io.Discard, tc.opts)
			if !errors.Is(err, errUsage) {
				t.Errorf("got %v, want a usage error", err)
			}
		})
	}
	// The command line is checked before the database is opened, so none of these needs one.
	logger := slog.New(slog.DiscardHandler)
	for _, args := range [][]string{
		nil,
		{"bogus"},
		{"export"},
		{"export", "--all", "--stream", "account-a"},
		{"export", "--stream", "account-a", "--after", "0"},
		{"export", "--all", "--after", "x"},
		{"export", "--all", "extra"},
		{"verify", "extra"},
		{"verify", "--all"},
	} {
		if err := runEvents(context.Background(), args, io.Discard, logger); !errors.Is(err, errUsage) {
			t.Errorf("events %q: got %v, want a usage error", args, err)
		}
	}
}

func TestVerifyClean(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	seed(t, store)
	var out bytes.Buffer
	if err := verifyEvents(testCtx(t), store, testRegistry(), &out, verifyOptions{Now: time.Now()}); err != nil {
		t.Fatalf("verify: %v\n%s", err, out.String())
	}
	if want := "verified 5 events in 2 streams, 2 types; OK\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestVerifyEmpty(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	var out bytes.Buffer
	if err := verifyEvents(testCtx(t), store, newRegistry(), &out, verifyOptions{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if want := "verified 0 events in 0 streams, 0 types; OK\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestVerifyUnknownType(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	seed(t, store)
	mystery := appendVisible(t, store, eventstore.StreamAppend{Stream: "account-a", ExpectedVersion: 3, Events: []eventstore.NewEvent{
		newEvent(t, "test.mystery", map[string]int{"n": 1}, eventstore.Metadata{}),
	}})[0]

	var out bytes.Buffer
	err := verifyEvents(testCtx(t), store, testRegistry(), &out, verifyOptions{Now: time.Now()})
	if err == nil {
		t.Fatalf("verify passed with an unknown type:\n%s", out.String())
	}
	want := fmt.Sprintf("position %d (account-a v4, test.mystery): unknown event type \"test.mystery\"", mystery.Position)
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "6 events in 2 streams, 3 types; 1 failed") {
		t.Errorf("report does not name the unknown type as expected (%q):\n%s", want, out.String())
	}

	// The production registry knows no test types, so it must refuse all of them.
	out.Reset()
	if err := verifyEvents(testCtx(t), store, newRegistry(), &out, verifyOptions{Now: time.Now()}); err == nil ||
		!strings.Contains(out.String(), "; 6 failed:") {
		t.Errorf("the empty production registry accepted test events (%v):\n%s", err, out.String())
	}
}

// verifiedBothWays runs verify with no verifier, when the first read decodes every event, and
// with a stream verifier reading the account streams again, when their events are decoded in
// that second read only; each way must list want exactly once.
func verifiedBothWays(t *testing.T, store eventstore.Store, registry *eventstore.Registry, want string) {
	t.Helper()
	for _, rereading := range []bool{false, true} {
		opts := verifyOptions{Now: time.Now()}
		rv := &rereadingVerifier{seen: map[eventstore.StreamID]int64{}}
		if rereading {
			opts.Verifiers = []logVerifier{rv}
		}
		var out bytes.Buffer
		err := verifyEvents(testCtx(t), store, registry, &out, opts)
		if err == nil || strings.Count(out.String(), want) != 1 {
			t.Errorf("decoded in the second read: %v: got %v, want one failure containing %q:\n%s", rereading, err, want, out.String())
		}
		if rereading && rv.handed != 0 {
			t.Errorf("the first read handed the stream verifier %d decoded events of streams it reads again", rv.handed)
		}
	}
}

// rereadingVerifier is a stream verifier of the account streams that checks nothing.
type rereadingVerifier struct {
	seen   map[eventstore.StreamID]int64
	handed int // decoded events Observe was given
}

func (*rereadingVerifier) Name() string { return "rereading" }
func (v *rereadingVerifier) Observe(env eventstore.Envelope, e aggregate.Event) error {
	if e != nil {
		v.handed++
	}
	if env.StreamID.Category() == v.Rereads() {
		if from, ok := v.seen[env.StreamID]; !ok || env.Version < from {
			v.seen[env.StreamID] = env.Version
		}
	}
	return nil
}
func (v *rereadingVerifier) Finish() error { return nil }
func (*rereadingVerifier) Rereads() string { return "account" }
func (v *rereadingVerifier) Streams() []streamRead {
	var out []streamRead
	for s, from := range v.seen {
		out = append(out, streamRead{Stream: s, FromVersion: from})
	}
	return out
}
func (*rereadingVerifier) ObserveStream(eventstore.Envelope, aggregate.Event) error { return nil }
func (*rereadingVerifier) EndStream(eventstore.StreamID) error                      { return nil }

func TestVerifyUndecodableData(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	bad := appendVisible(t, store, eventstore.StreamAppend{Stream: "account-c", ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{
		newEvent(t, "test.deposited", map[string]int{"amount": 12}, eventstore.Metadata{}),
	}})[0]
	verifiedBothWays(t, store, testRegistry(), fmt.Sprintf("position %d (account-c v1, test.deposited): does not decode", bad.Position))
}

// TestVerifyOpensMetadata: a sealed client address that this binary cannot open (here: no
// cipher at all) is a failure, as an undecodable payload is.
func TestVerifyOpensMetadata(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	bad := appendVisible(t, store, eventstore.StreamAppend{Stream: "account-d", ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{
		newEvent(t, "test.deposited", testDeposited{Amount: "1.00"}, eventstore.Metadata{ActorID: "u1", ClientIP: "pii:v1:AAAA"}),
	}})[0]
	verifiedBothWays(t, store, testRegistry(), fmt.Sprintf("position %d (account-d v1, test.deposited): metadata does not open", bad.Position))
}

func TestVerifyListsAtMostTwenty(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	evs := make([]eventstore.NewEvent, 25)
	for i := range evs {
		evs[i] = newEvent(t, "test.mystery", map[string]int{"n": i}, eventstore.Metadata{})
	}
	appendVisible(t, store, eventstore.StreamAppend{Stream: "account-d", ExpectedVersion: eventstore.NoStream, Events: evs})
	var out bytes.Buffer
	if err := verifyEvents(testCtx(t), store, testRegistry(), &out, verifyOptions{Now: time.Now()}); err == nil {
		t.Fatal("verify passed")
	}
	if got := strings.Count(out.String(), "unknown event type"); got != maxListedFailures {
		t.Errorf("listed %d failures, want %d", got, maxListedFailures)
	}
	if !strings.Contains(out.String(), "25 failed") || !strings.HasSuffix(out.String(), "  ... and 5 more\n") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestVerifyFutureRecordedAt(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	seed(t, store)
	var out bytes.Buffer
	// Seen from a clock an hour behind, every event was recorded in the future.
	err := verifyEvents(testCtx(t), store, testRegistry(), &out, verifyOptions{Now: time.Now().Add(-time.Hour)})
	if err == nil || strings.Count(out.String(), "is in the future") != 5 {
		t.Errorf("got %v:\n%s", err, out.String())
	}
	out.Reset()
	if err := verifyEvents(testCtx(t), store, testRegistry(), &out, verifyOptions{Now: time.Now().Add(-maxClockSkew / 2)}); err != nil {
		t.Errorf("skew within the tolerance failed: %v\n%s", err, out.String())
	}
}

// TestVerifyCorruptRows writes rows around the store, as a faulty migration or a manual fix
// could: verify exists to catch exactly what the store itself would never write.
func TestVerifyCorruptRows(t *testing.T) {
	t.Parallel()
	store, pool := newTestStore(t)
	seed(t, store)
	insert := func(position int64, stream string, version int64) {
		t.Helper()
		_, err := pool.Exec(testCtx(t), `INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
			VALUES ($1, $2, $3, $4, 'test.opened', 1, '{"owner":"x"}', '{}', now())`, position, uuid.New(), stream, version)
		if err != nil {
			t.Fatal(err)
		}
	}
	// Low positions: below every snapshot's xmin, so read-all sees them at once.
	insert(10, "account-gap", 1)
	insert(11, "account-gap", 3)
	insert(12, "nodash", 1)

	var out bytes.Buffer
	err := verifyEvents(testCtx(t), store, testRegistry(), &out, verifyOptions{Now: time.Now()})
	if err == nil {
		t.Fatalf("verify passed:\n%s", out.String())
	}
	for _, want := range []string{
		"stream account-gap: version 2 is missing (the stream goes up to 3)",
		`position 12 (nodash v1, test.opened): eventstore: invalid stream id: "nodash" is not <category>-<id>`,
		"; 2 failed:",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestStreamVersionsOutOfOrder(t *testing.T) {
	t.Parallel()
	var sv streamVersions
	sv.next = 1
	for _, v := range []int64{2, 1, 4, 3, 5} {
		if sv.see(v) {
			t.Fatalf("version %d reported as duplicate", v)
		}
	}
	if sv.next != 6 || len(sv.ahead) != 0 {
		t.Errorf("after 1..5 out of order: next %d, ahead %v", sv.next, sv.ahead)
	}
	if !sv.see(3) || sv.see(7) || !sv.see(7) {
		t.Error("duplicates not detected")
	}
}

// countingVerifier stands in for the ledger checks wired through extraVerifiers.
type countingVerifier struct {
	deposits int
	events   []aggregate.Event
}

func (*countingVerifier) Name() string { return "deposit count" }

func (v *countingVerifier) Observe(env eventstore.Envelope, e aggregate.Event) error {
	v.events = append(v.events, e)
	if d, ok := e.(testDeposited); ok {
		v.deposits++
		if d.Amount == "0.10" {
			return errors.New("ten cents is suspicious")
		}
	}
	return nil
}

func (v *countingVerifier) Finish() error {
	return fmt.Errorf("%d deposits do not balance", v.deposits)
}

func TestVerifyRunsExtraVerifiers(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	seeded := sortedByPosition(seed(t, store))
	v := &countingVerifier{}
	var out bytes.Buffer
	err := verifyEvents(testCtx(t), store, testRegistry(), &out, verifyOptions{Now: time.Now(), Verifiers: []logVerifier{v}})
	if err == nil {
		t.Fatal("verify passed although a verifier failed")
	}
	if len(v.events) != len(seeded) {
		t.Fatalf("verifier saw %d events, want %d", len(v.events), len(seeded))
	}
	if _, ok := v.events[0].(testOpened); !ok {
		t.Errorf("verifier got %T first, want the decoded testOpened", v.events[0])
	}
	for _, want := range []string{"deposit count: ten cents is suspicious", "deposit count: 3 deposits do not balance", "; 2 failed:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestMigrateReportsWhatItDid(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	if err := requireSchema(testCtx(t), pool, postgres.Migrations); err == nil || !strings.Contains(err.Error(), "run clearvest migrate first") {
		t.Errorf("unmigrated database: got %v", err)
	}
	var out bytes.Buffer
	if err := migrate(testCtx(t), pool, allMigrations(), &out); err != nil {
		t.Fatal(err)
	}
	if want := "eventstore: applied 0001_events.sql\neventstore: applied 0002_positions.sql\neventstore: applied 0003_expect.sql\neventstore: applied 0004_snapshots.sql\neventstore: now at version 4\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("first run printed:\n%s\nwant it to start with:\n%s", out.String(), want)
	}
	out.Reset()
	if err := migrate(testCtx(t), pool, allMigrations(), &out); err != nil {
		t.Fatal(err)
	}
	if want := "eventstore: up to date at version 4\n"; !strings.HasPrefix(out.String(), want) || strings.Contains(out.String(), "applied") {
		t.Errorf("second run printed:\n%s\nwant it to start with:\n%s", out.String(), want)
	}
	if err := requireSchema(testCtx(t), pool, postgres.Migrations); err != nil {
		t.Errorf("migrated database: %v", err)
	}
}

// TestCommandsEndToEnd drives the real command lines against DATABASE_URL, as an operator would.
// It sets environment variables, so it cannot run in parallel.
func TestCommandsEndToEnd(t *testing.T) {
	_, cli := operatorShell(t)

	if _, err := cli("events", "verify"); err == nil || !strings.Contains(err.Error(), "run clearvest migrate first") {
		t.Errorf("verify before migrate: %v", err)
	}
	if out, err := cli("migrate"); err != nil || !strings.Contains(out, "eventstore: applied 0001_events.sql") {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if out, err := cli("events", "export", "--all"); err != nil || out != "" {
		t.Errorf("export of an empty log: %v %q", err, out)
	}
	if out, err := cli("events", "verify"); err != nil || out != "verified 0 events in 0 streams, 0 types; OK\n" {
		t.Errorf("verify of an empty log: %v %q", err, out)
	}
	if out, err := cli("events", "export", "--stream", "account-x"); err != nil || out != "" {
		t.Errorf("export of an unknown stream: %v %q", err, out)
	}
}

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/app/command"
	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/eventstore/memstore"
)

// Counter counts up to a limit.
//
// Rules:
//   - An increment is at least 1.
//   - The count never exceeds 1000.
type Counter struct {
	aggregate.Root
	count int
}

func NewCounter() *Counter { return &Counter{} }

type Incremented struct {
	By int `json:"by"`
}

func (Incremented) EventName() string { return "counter.incremented" }

var (
	errNotPositive = domainerr.New(domainerr.Invalid, "An increment is at least 1")
	errLimit       = domainerr.New(domainerr.RuleBroken, "The counter is full")
)

func (c *Counter) Increment(by int) error {
	if by < 1 {
		return errNotPositive
	}
	if c.count+by > 1000 {
		return errLimit
	}
	aggregate.Raise(c, Incremented{By: by})
	return nil
}

func (c *Counter) Apply(e aggregate.Event) {
	if e, ok := e.(Incremented); ok {
		c.count += e.By
	}
}

func increment(by int) func(*Counter) error {
	return func(c *Counter) error { return c.Increment(by) }
}

func newCodec() *eventstore.Registry {
	r := eventstore.NewRegistry()
	eventstore.Register[Incremented](r, 1)
	return r
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newRunner(store eventstore.Store, opts ...command.Option) *command.Runner {
	return command.NewRunner(store, newCodec(), append([]command.Option{command.WithLogger(quiet)}, opts...)...)
}

func counterStream(id string) eventstore.StreamID { return eventstore.NewStreamID("counter", id) }

func readStream(t *testing.T, s eventstore.Store, stream eventstore.StreamID) []eventstore.Envelope {
	t.Helper()
	got, err := s.ReadStream(context.Background(), stream, 1, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestExecuteAppendsWhatDecideRaised(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	r := newRunner(store)
	stream := counterStream("happy")
	meta := eventstore.Metadata{CorrelationID: "req-1", ActorID: "user-1"}

	res, err := command.Execute(ctx, r, stream, NewCounter, meta, func(c *Counter) error {
		if err := c.Increment(2); err != nil {
			return err
		}
		return c.Increment(3)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 2 || res.Position != 2 || len(res.Events) != 2 || res.IdempotentReplay {
		t.Fatalf("result = %+v, want version 2, position 2, two events", res)
	}
	stored := readStream(t, store, stream)
	if len(stored) != 2 || stored[1].ID != res.Events[1].ID {
		t.Fatalf("store holds %+v", stored)
	}

	res, err = command.Execute(ctx, r, stream, NewCounter, meta, increment(5))
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 3 || res.Position != 3 {
		t.Errorf("second result = %+v, want version 3, position 3", res)
	}
	c, err := command.Load(ctx, r, stream, NewCounter)
	if err != nil {
		t.Fatal(err)
	}
	if c.count != 10 || c.Version() != 3 || len(c.Changes()) != 0 {
		t.Errorf("loaded count %d at version %d with %d changes", c.count, c.Version(), len(c.Changes()))
	}
}

func TestEveryEventCarriesTheCommandsMetadata(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(memstore.New())

	t.Run("given ids are kept", func(t *testing.T) {
		meta := eventstore.Metadata{CorrelationID: "req-7", CausationID: "evt-3", ActorID: "admin-1", ActorRole: "admin", ClientIP: "10.0.0.1"}
		res, err := command.Execute(ctx, r, counterStream("meta-given"), NewCounter, meta, func(c *Counter) error {
			_ = c.Increment(1)
			return c.Increment(1)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Events {
			if e.Metadata != meta {
				t.Errorf("event %d metadata = %+v, want %+v", e.Version, e.Metadata, meta)
			}
		}
	})
	t.Run("missing ids are made once per command", func(t *testing.T) {
		res, err := command.Execute(ctx, r, counterStream("meta-made"), NewCounter, eventstore.Metadata{ActorID: "u"}, func(c *Counter) error {
			_ = c.Increment(1)
			return c.Increment(1)
		})
		if err != nil {
			t.Fatal(err)
		}
		first := res.Events[0].Metadata
		if first.CorrelationID == "" || first.CausationID != first.CorrelationID || first.ActorID != "u" {
			t.Fatalf("metadata = %+v, want a correlation id that is also the causation id", first)
		}
		if res.Events[1].Metadata != first {
			t.Errorf("events of one command differ in metadata: %+v vs %+v", res.Events[1].Metadata, first)
		}
		again, err := command.Execute(ctx, r, counterStream("meta-made"), NewCounter, eventstore.Metadata{}, increment(1))
		if err != nil {
			t.Fatal(err)
		}
		if again.Events[0].Metadata.CorrelationID == first.CorrelationID {
			t.Error("two commands share a generated correlation id")
		}
	})
}

func TestDecideErrorStoresNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	r := newRunner(store)
	stream := counterStream("refused")
	if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, increment(1000)); err != nil {
		t.Fatal(err)
	}

	_, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter) error {
		_ = c.Increment(0) // refused, raises nothing
		if err := c.Increment(-1); err != nil {
			return fmt.Errorf("wrapped: %w", err)
		}
		return nil
	})
	if !errors.Is(err, errNotPositive) {
		t.Fatalf("err = %v, want errNotPositive", err)
	}

	// Events raised before the failing rule are discarded too.
	_, err = command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter) error {
		_ = c.Increment(1)
		return errLimit
	})
	if err != errLimit {
		t.Fatalf("err = %v, want errLimit exactly as returned", err)
	}
	if got := readStream(t, store, stream); len(got) != 1 {
		t.Fatalf("stream holds %d events, want 1", len(got))
	}
}

func TestDecideErrorIsNeverRetried(t *testing.T) {
	t.Parallel()
	r := newRunner(memstore.New(), command.WithBackoff(0, 0))
	calls := 0
	_, err := command.Execute(context.Background(), r, counterStream("no-retry"), NewCounter, eventstore.Metadata{}, func(*Counter) error {
		calls++
		// Even an error that looks like a conflict is the command's own answer.
		return fmt.Errorf("checking the other stream: %w", eventstore.ErrConcurrency)
	})
	if !errors.Is(err, eventstore.ErrConcurrency) || calls != 1 {
		t.Fatalf("err = %v after %d calls, want decide's error after 1 call", err, calls)
	}
}

func TestNothingRaisedAppendsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	r := newRunner(store)
	stream := counterStream("noop")
	for range 3 {
		if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(*Counter) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 3 || res.Position != 0 || len(res.Events) != 0 {
		t.Errorf("result = %+v, want version 3 and nothing appended", res)
	}
	if head, _ := store.Head(ctx); head != 3 {
		t.Errorf("head = %d, want 3", head)
	}
}

// Twenty commands race on one stream. Each conflict means another command's append succeeded in
// between, so no command can conflict more than nineteen times: with twenty attempts all must
// succeed, whatever the scheduling.
func TestConcurrentCommandsAllSucceed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	stream := counterStream("race")
	const n = 20

	var decided atomic.Int64
	// Twenty processes, each with its own runner. Every command's first decision waits for all
	// the others', so all of them load version 0 and nineteen are certain to conflict.
	var firstRound sync.WaitGroup
	firstRound.Add(n)
	versions := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := newRunner(store, command.WithMaxAttempts(20), command.WithBackoff(time.Millisecond, 5*time.Millisecond))
			first := true
			res, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter) error {
				decided.Add(1)
				if first {
					first = false
					firstRound.Done()
					firstRound.Wait()
				}
				return c.Increment(1)
			})
			if err != nil {
				t.Error(err)
				return
			}
			versions[i] = res.Version
		})
	}
	wg.Wait()

	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	for i, v := range versions {
		if v != int64(i+1) {
			t.Fatalf("result versions = %v, want 1..%d", versions, n)
		}
	}
	c, err := command.Load(ctx, newRunner(store), stream, NewCounter)
	if err != nil {
		t.Fatal(err)
	}
	if c.count != n || c.Version() != n {
		t.Fatalf("count %d at version %d, want %d at %d", c.count, c.Version(), n, n)
	}
	if decided.Load() < 2*n-1 {
		t.Errorf("%d commands decided only %d times; the retries were not exercised", n, decided.Load())
	}
	t.Logf("%d commands decided %d times", n, decided.Load())
}

// Within one process commands on a stream take turns, so none of them decides on a version
// another is about to replace, and none has to try again.
func TestCommandsOnOneStreamTakeTurnsInAProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &countingAppends{Store: memstore.New()}
	r := newRunner(store, command.WithBatches(1, 1))
	stream := counterStream("turns")
	const n = 20
	var decided atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter) error {
				decided.Add(1)
				return c.Increment(1)
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if decided.Load() != n || store.appends.Load() != n {
		t.Errorf("%d commands decided %d times and appended %d times; want each once", n, decided.Load(), store.appends.Load())
	}
	// A command waiting for its turn gives up when its context ends.
	unblock := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := command.Execute(cancelled, r, stream, NewCounter, eventstore.Metadata{}, increment(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v while another command holds the stream, want context.Canceled", err)
	}
	close(unblock)
}

type countingAppends struct {
	eventstore.Store
	appends atomic.Int64
}

func (s *countingAppends) Append(ctx context.Context, a ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	s.appends.Add(1)
	return s.Store.Append(ctx, a...)
}

// conflictingStore refuses every append as if another writer always got there first.
type conflictingStore struct {
	eventstore.Store
	appends atomic.Int64
}

func (s *conflictingStore) Append(_ context.Context, a ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	s.appends.Add(1)
	return nil, &eventstore.ConcurrencyError{Stream: a[0].Stream, Expected: a[0].ExpectedVersion, Actual: a[0].ExpectedVersion + 1}
}

func TestExhaustedRetriesReturnTheConflict(t *testing.T) {
	t.Parallel()
	store := &conflictingStore{Store: memstore.New()}
	r := newRunner(store, command.WithMaxAttempts(3), command.WithBackoff(0, 0))
	decided := 0
	_, err := command.Execute(context.Background(), r, counterStream("busy"), NewCounter, eventstore.Metadata{}, func(c *Counter) error {
		decided++
		return c.Increment(1)
	})
	var ce *eventstore.ConcurrencyError
	if !errors.Is(err, eventstore.ErrConcurrency) || !errors.As(err, &ce) || ce.Stream != counterStream("busy") {
		t.Fatalf("err = %v, want the ConcurrencyError", err)
	}
	if decided != 3 || store.appends.Load() != 3 {
		t.Errorf("decided %d times, appended %d times; want 3 and 3", decided, store.appends.Load())
	}
}

func TestDefaultIsFiveAttempts(t *testing.T) {
	t.Parallel()
	store := &conflictingStore{Store: memstore.New()}
	r := newRunner(store, command.WithBackoff(0, 0))
	_, err := command.Execute(context.Background(), r, counterStream("busy"), NewCounter, eventstore.Metadata{}, increment(1))
	if !errors.Is(err, eventstore.ErrConcurrency) || store.appends.Load() != 5 {
		t.Fatalf("err = %v after %d appends, want ErrConcurrency after 5", err, store.appends.Load())
	}
}

// deadlockingStore answers its first appends as PostgreSQL answers a deadlock victim.
type deadlockingStore struct {
	eventstore.Store
	deadlocks int
	appends   atomic.Int64
}

func (s *deadlockingStore) Append(ctx context.Context, a ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	if int(s.appends.Add(1)) <= s.deadlocks {
		return nil, fmt.Errorf("eventstore: lock streams: %w", &pgconn.PgError{Code: "40P01", Message: "deadlock detected"})
	}
	return s.Store.Append(ctx, a...)
}

func TestDeadlocksAreRetriedThenReportedAsAConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &deadlockingStore{Store: memstore.New(), deadlocks: 2}
	res, err := command.Execute(ctx, newRunner(store, command.WithBackoff(0, 0)), counterStream("victim"), NewCounter, eventstore.Metadata{}, increment(1))
	if err != nil || res.Version != 1 || store.appends.Load() != 3 {
		t.Fatalf("result %+v, %v after %d appends; want success on the third", res, err, store.appends.Load())
	}

	always := &deadlockingStore{Store: memstore.New(), deadlocks: 1 << 30}
	_, err = command.Execute(ctx, newRunner(always, command.WithBackoff(0, 0), command.WithMaxAttempts(3)), counterStream("victim"), NewCounter, eventstore.Metadata{}, increment(1))
	var pg *pgconn.PgError
	if !errors.Is(err, eventstore.ErrConcurrency) || !errors.As(err, &pg) || pg.Code != "40P01" || always.appends.Load() != 3 {
		t.Fatalf("err = %v after %d appends; want a conflict wrapping the deadlock after 3", err, always.appends.Load())
	}
}

func TestBackoffStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	r := newRunner(&conflictingStore{Store: memstore.New()}, command.WithBackoff(time.Hour, time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := command.Execute(ctx, r, counterStream("busy"), NewCounter, eventstore.Metadata{}, increment(1))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("Execute waited %v", time.Since(start))
	}
}

// interferingStore lets a competing writer in just before the first append.
type interferingStore struct {
	eventstore.Store
	once sync.Once
	t    *testing.T
}

func (s *interferingStore) Append(ctx context.Context, a ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	s.once.Do(func() {
		data, _ := json.Marshal(Incremented{By: 990})
		_, err := s.Store.Append(ctx, eventstore.StreamAppend{Stream: a[0].Stream, ExpectedVersion: eventstore.AnyVersion,
			Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: "counter.incremented", SchemaVersion: 1, Data: data}}})
		if err != nil {
			s.t.Error(err)
		}
	})
	return s.Store.Append(ctx, a...)
}

func TestRetryDecidesAgainOnTheNewState(t *testing.T) {
	t.Parallel()
	store := &interferingStore{Store: memstore.New(), t: t}
	r := newRunner(store, command.WithBackoff(0, 0))
	var seen []int
	_, err := command.Execute(context.Background(), r, counterStream("moved"), NewCounter, eventstore.Metadata{}, func(c *Counter) error {
		seen = append(seen, c.count)
		return c.Increment(20)
	})
	// The first decision (0 + 20) was fine; on the state the competitor left (990) it is not.
	if !errors.Is(err, errLimit) {
		t.Fatalf("err = %v, want errLimit from the second decision", err)
	}
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 990 {
		t.Fatalf("decide saw counts %v, want [0 990]", seen)
	}
}

func TestIdempotentReplayReturnsTheStoredResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	r := newRunner(store)
	stream := counterStream("idem")
	meta := eventstore.Metadata{IdempotencyKey: "key-1", RequestHash: "sha256:aaa", CorrelationID: "req-1"}

	first, err := command.Execute(ctx, r, stream, NewCounter, meta, func(c *Counter) error {
		_ = c.Increment(1)
		return c.Increment(2)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Other requests move the stream on.
	for range 3 {
		if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{IdempotencyKey: "other"}, increment(1)); err != nil {
			t.Fatal(err)
		}
	}
	head, _ := store.Head(ctx)

	meta.CorrelationID = "req-2" // a retry is a new HTTP request
	again, err := command.Execute(ctx, r, stream, NewCounter, meta, func(*Counter) error {
		t.Error("decide called on a replay")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !again.IdempotentReplay || again.Position != first.Position || again.Version != first.Version || len(again.Events) != 2 {
		t.Fatalf("replay = %+v, want the first result %+v", again, first)
	}
	for i := range first.Events {
		if again.Events[i].ID != first.Events[i].ID {
			t.Errorf("replayed event %d is %s, want %s", i, again.Events[i].ID, first.Events[i].ID)
		}
	}
	if after, _ := store.Head(ctx); after != head {
		t.Errorf("a replay appended %d events", after-head)
	}
}

func TestIdempotencyKeyReusedWithAnotherRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(memstore.New())
	stream := counterStream("reuse")
	if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{IdempotencyKey: "k", RequestHash: "h1"}, increment(1)); err != nil {
		t.Fatal(err)
	}
	_, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{IdempotencyKey: "k", RequestHash: "h2"}, func(*Counter) error {
		t.Error("decide called for a reused key")
		return nil
	})
	if !errors.Is(err, command.ErrIdempotencyKeyReused) {
		t.Fatalf("err = %v, want ErrIdempotencyKeyReused", err)
	}
	kind, msg, ok := domainerr.KindOf(err)
	if !ok || kind != domainerr.RuleBroken || msg != "This Idempotency-Key was already used with a different request." {
		t.Errorf("KindOf = %v, %q, %v", kind, msg, ok)
	}
}

func TestRequestWithoutEventsLeavesNoKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(memstore.New())
	stream := counterStream("nokey")
	meta := eventstore.Metadata{IdempotencyKey: "k", RequestHash: "h"}
	if _, err := command.Execute(ctx, r, stream, NewCounter, meta, func(*Counter) error { return nil }); err != nil {
		t.Fatal(err)
	}
	res, err := command.Execute(ctx, r, stream, NewCounter, meta, increment(1))
	if err != nil || res.IdempotentReplay || res.Version != 1 {
		t.Fatalf("result = %+v, %v; want a fresh decision", res, err)
	}
}

// The same request sent ten times at once (a client retrying over a flaky network, reaching
// several processes) is decided once: the losers of the append race reload, find the winner's key
// and replay its result.
func TestConcurrentDuplicateRequestsAreDecidedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	stream := counterStream("dupes")
	meta := eventstore.Metadata{IdempotencyKey: "pay-1", RequestHash: "h"}

	const n = 10
	results := make([]command.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := newRunner(store, command.WithMaxAttempts(10), command.WithBackoff(time.Millisecond, 5*time.Millisecond))
			res, err := command.Execute(ctx, r, stream, NewCounter, meta, increment(7))
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	fresh := 0
	for _, res := range results {
		if !res.IdempotentReplay {
			fresh++
		}
		if res.Position != results[0].Position {
			t.Errorf("positions differ: %d vs %d", res.Position, results[0].Position)
		}
	}
	if fresh != 1 {
		t.Errorf("%d requests were decided, want 1", fresh)
	}
	if got := readStream(t, store, stream); len(got) != 1 {
		t.Errorf("stream holds %d events, want 1", len(got))
	}
}

func TestLongStreamsLoadCompletely(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const page = 7
	for _, n := range []int{page - 1, page, 3 * page, 3*page + 1, 100} {
		t.Run(fmt.Sprint(n, " events"), func(t *testing.T) {
			t.Parallel()
			store := memstore.New()
			r := newRunner(store, command.WithPageSize(page))
			stream := counterStream("long")
			for i := range n {
				meta := eventstore.Metadata{IdempotencyKey: fmt.Sprint("k", i), RequestHash: "h"}
				if _, err := command.Execute(ctx, r, stream, NewCounter, meta, increment(1)); err != nil {
					t.Fatal(err)
				}
			}
			c, err := command.Load(ctx, r, stream, NewCounter)
			if err != nil {
				t.Fatal(err)
			}
			if c.count != n || c.Version() != int64(n) {
				t.Fatalf("loaded count %d at version %d, want %d", c.count, c.Version(), n)
			}
			// The key of the very first request is still found behind many pages.
			res, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{IdempotencyKey: "k0", RequestHash: "h"}, increment(1))
			if err != nil || !res.IdempotentReplay || res.Version != 1 {
				t.Fatalf("replay of the first request = %+v, %v", res, err)
			}
			res, err = command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, increment(1))
			if err != nil || res.Version != int64(n+1) {
				t.Fatalf("next command = %+v, %v; want version %d", res, err, n+1)
			}
		})
	}
}

func TestLoadOfAnUnknownStreamIsFresh(t *testing.T) {
	t.Parallel()
	c, err := command.Load(context.Background(), newRunner(memstore.New()), counterStream("nobody"), NewCounter)
	if err != nil || c.count != 0 || c.Version() != 0 {
		t.Fatalf("Load = %+v, %v", c, err)
	}
}

func TestUndecodableHistoryFailsTheCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	stream := counterStream("future")
	_, err := store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: "counter.reset", SchemaVersion: 1, Data: json.RawMessage(`{}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(store)
	_, err = command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(*Counter) error {
		t.Error("decide called on a partly loaded aggregate")
		return nil
	})
	if !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Fatalf("err = %v, want ErrUnknownEventType", err)
	}
	if _, err := command.Load(ctx, r, stream, NewCounter); !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Fatalf("Load err = %v, want ErrUnknownEventType", err)
	}
}

func TestInvalidStreamIsRefused(t *testing.T) {
	t.Parallel()
	_, err := command.Execute(context.Background(), newRunner(memstore.New()), "nocategory", NewCounter, eventstore.Metadata{}, increment(1))
	if !errors.Is(err, eventstore.ErrInvalidStream) {
		t.Fatalf("err = %v, want ErrInvalidStream", err)
	}
}

func TestUnregisteredEventIsAnError(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	r := command.NewRunner(store, eventstore.NewRegistry(), command.WithLogger(quiet))
	_, err := command.Execute(context.Background(), r, counterStream("unregistered"), NewCounter, eventstore.Metadata{}, increment(1))
	if !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Fatalf("err = %v, want ErrUnknownEventType", err)
	}
	if head, _ := store.Head(context.Background()); head != 0 {
		t.Errorf("store holds %d events", head)
	}
}

func BenchmarkExecute(b *testing.B) {
	ctx := context.Background()
	b.Run("new stream", func(b *testing.B) {
		r := newRunner(memstore.New())
		i := 0
		for b.Loop() {
			i++
			if _, err := command.Execute(ctx, r, counterStream(fmt.Sprint(i)), NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load 100 events, raise nothing", func(b *testing.B) {
		r := newRunner(memstore.New())
		stream := counterStream("hundred")
		for range 100 {
			if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
				b.Fatal(err)
			}
		}
		for b.Loop() {
			if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(*Counter) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel, one stream each", func(b *testing.B) {
		r := newRunner(memstore.New())
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			id := next.Add(1)
			stream := counterStream(fmt.Sprint("p", id))
			n := 0
			for pb.Next() {
				// Restart the stream now and then so load cost stays flat.
				if n++; n%100 == 0 {
					stream = counterStream(fmt.Sprint("p", id, "-", n))
				}
				if _, err := command.Execute(ctx, r, stream, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

func TestPositionIsTheStreamsLastEventAsTheStoreHasIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	r, other := newRunner(store), newRunner(store)
	mine, theirs := counterStream("mine"), counterStream("theirs")
	position := func(r *command.Runner, stream eventstore.StreamID) int64 {
		t.Helper()
		p, err := command.Position(ctx, r, stream)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := position(r, mine); p != 0 {
		t.Fatalf("position of a stream without events = %d, want 0", p)
	}
	first, err := command.Execute(ctx, r, mine, NewCounter, eventstore.Metadata{}, increment(1))
	if err != nil {
		t.Fatal(err)
	}
	if p := position(r, mine); p != first.Position || p == 0 {
		t.Fatalf("after a command: %d, want its position %d", p, first.Position)
	}
	// Someone else's later events are not the stream's.
	if _, err := command.Execute(ctx, r, theirs, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
		t.Fatal(err)
	}
	if p := position(r, mine); p != first.Position {
		t.Fatalf("after another stream's command: %d, want %d", p, first.Position)
	}
	// Another process appended to the stream: the cached runner reads the tail.
	second, err := command.Execute(ctx, other, mine, NewCounter, eventstore.Metadata{}, increment(2))
	if err != nil {
		t.Fatal(err)
	}
	if p := position(r, mine); p != second.Position || p <= first.Position {
		t.Fatalf("after another runner's command: %d, want %d", p, second.Position)
	}
}

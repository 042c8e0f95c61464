package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"clearvest/eventstore"
	"clearvest/eventstore/memstore"
	"clearvest/eventstore/postgres"
)

// gatedStore holds its first append until the test opens the gate, so that the appends arriving
// meanwhile queue up behind it, and records the streams of every append.
type gatedStore struct {
	*memstore.Store
	gate  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	calls [][]eventstore.StreamID
}

func (s *gatedStore) Append(ctx context.Context, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	s.once.Do(func() { <-s.gate })
	var streams []eventstore.StreamID
	for _, a := range appends {
		streams = append(streams, a.Stream)
	}
	s.mu.Lock()
	s.calls = append(s.calls, streams)
	s.mu.Unlock()
	return s.Store.Append(ctx, appends...)
}

func oneEvent(stream string, expected int64) eventstore.StreamAppend {
	return eventstore.StreamAppend{Stream: eventstore.StreamID(stream), ExpectedVersion: expected, Events: []eventstore.NewEvent{{
		ID: eventstore.NewEventID(), Type: "t.happened", SchemaVersion: 1, Data: json.RawMessage(`{}`),
	}}}
}

// queuedLen waits until one append runs and n more are queued behind it.
func queuedLen(t *testing.T, b *batcher, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		got, leading := len(b.queue), b.leaders > 0
		b.mu.Unlock()
		if leading && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d appends queued (running: %v), want %d behind a running one", got, leading, n)
		}
		time.Sleep(time.Millisecond)
	}
}

type outcome struct {
	stream string
	stored []eventstore.Envelope
	err    error
}

func appendAll(b *batcher, appends ...eventstore.StreamAppend) chan outcome {
	out := make(chan outcome, len(appends))
	for _, a := range appends {
		go func() {
			stored, err := b.Append(context.Background(), a)
			out <- outcome{string(a.Stream), stored, err}
		}()
	}
	return out
}

// Appends that arrive while one runs share the next append; a conflict on one stream fails only
// its own command.
func TestAppendsArrivingTogetherShareOneAppend(t *testing.T) {
	t.Parallel()
	mem := memstore.New()
	if _, err := mem.Append(context.Background(), oneEvent("s-taken", eventstore.NoStream)); err != nil {
		t.Fatal(err)
	}
	store := &gatedStore{Store: mem, gate: make(chan struct{})}
	b := newBatcher(store, 64, 1)

	first := appendAll(b, oneEvent("s-first", eventstore.NoStream))
	queuedLen(t, b, 0)
	rest := appendAll(b, oneEvent("s-a", eventstore.NoStream), oneEvent("s-taken", eventstore.NoStream), oneEvent("s-b", eventstore.NoStream))
	queuedLen(t, b, 3)
	close(store.gate)

	if o := <-first; o.err != nil || len(o.stored) != 1 {
		t.Fatalf("first append: %+v", o)
	}
	for range 3 {
		o := <-rest
		switch o.stream {
		case "s-taken":
			var ce *eventstore.ConcurrencyError
			if !errors.As(o.err, &ce) || ce.Stream != "s-taken" {
				t.Errorf("s-taken: err = %v, want its own conflict", o.err)
			}
		default:
			if o.err != nil || len(o.stored) != 1 || string(o.stored[0].StreamID) != o.stream || o.stored[0].Version != 1 {
				t.Errorf("%s: %+v", o.stream, o)
			}
		}
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	// The first append alone, the three together (refused for s-taken), the two others again.
	if len(store.calls) != 3 || len(store.calls[1]) != 3 || len(store.calls[2]) != 2 {
		t.Errorf("appends sent: %v", store.calls)
	}
}

// A command that gives up while its append is still queued leaves nothing behind.
func TestAQueuedAppendWithdrawsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	store := &gatedStore{Store: memstore.New(), gate: make(chan struct{})}
	b := newBatcher(store, 64, 1)
	first := appendAll(b, oneEvent("s-first", eventstore.NoStream))
	queuedLen(t, b, 0)
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, err := b.Append(ctx, oneEvent("s-gone", eventstore.NoStream))
		gone <- err
	}()
	queuedLen(t, b, 1)
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	close(store.gate)
	if o := <-first; o.err != nil {
		t.Fatal(o.err)
	}
	if got, _ := store.ReadStream(context.Background(), "s-gone", 1, 10); len(got) != 0 {
		t.Errorf("the withdrawn append was stored: %+v", got)
	}
	// The batcher is free again.
	if _, err := b.Append(context.Background(), oneEvent("s-after", eventstore.NoStream)); err != nil {
		t.Fatal(err)
	}
}

// yieldingStore lets other goroutines run in the middle of an append, as a round trip would.
type yieldingStore struct{ *memstore.Store }

func (s yieldingStore) Append(ctx context.Context, a ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	runtime.Gosched()
	defer runtime.Gosched()
	return s.Store.Append(ctx, a...)
}

// Several batches may be appended at once; every command still gets its own outcome, once, and
// the lead is never lost (a lost lead leaves every later command waiting forever).
func TestConcurrentBatchesStoreEveryAppendOnce(t *testing.T) {
	t.Parallel()
	store := yieldingStore{memstore.New()}
	b := newBatcher(store, 4, 2)
	const rounds, n = 50, 100
	for r := range rounds {
		var appends []eventstore.StreamAppend
		for i := range n {
			appends = append(appends, oneEvent(fmt.Sprintf("s-%d-%d", r, i), eventstore.NoStream))
		}
		out := appendAll(b, appends...)
		for range n {
			if o := <-out; o.err != nil || len(o.stored) != 1 || string(o.stored[0].StreamID) != o.stream {
				t.Fatalf("%s: %+v", o.stream, o)
			}
		}
	}
	if head, _ := store.ReadAll(context.Background(), 0, 2*rounds*n); len(head) != rounds*n {
		t.Errorf("the log holds %d events, want %d", len(head), rounds*n)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.leaders != 0 || len(b.queue) != 0 {
		t.Errorf("after the last append: %d leaders, %d queued", b.leaders, len(b.queue))
	}
}

// A leader that has joined the queue but not yet taken its batch must not be handed the lead
// of another that finishes meanwhile: it would then hold two of the appenders' places and give
// back one, and once every place is lost no command is ever appended again.
func TestALeaderIsNotHandedASecondLead(t *testing.T) {
	t.Parallel()
	store := &gatedStore{Store: memstore.New(), gate: make(chan struct{})}
	b := newBatcher(store, 64, 2)
	joined, release := make(chan struct{}), make(chan struct{})
	b.joined = func(q *queued) {
		if q.appends[0].Stream == "s-second" {
			close(joined)
			<-release
		}
	}
	first := appendAll(b, oneEvent("s-first", eventstore.NoStream))
	queuedLen(t, b, 0)
	second := appendAll(b, oneEvent("s-second", eventstore.NoStream))
	<-joined
	close(store.gate) // the first leader finishes while the second sits between joining and taking
	if o := <-first; o.err != nil {
		t.Fatal(o.err)
	}
	close(release)
	if o := <-second; o.err != nil {
		t.Fatal(o.err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.leaders != 0 {
		t.Errorf("%d appenders' places held with nothing to append, want 0", b.leaders)
	}
}

// Commands that consult one stream (every money command checks the settings) share a batch; a
// command that appends to a stream another checks waits for the next one, whichever came first.
func TestCommandsCheckingOneStreamShareABatch(t *testing.T) {
	b := newBatcher(memstore.New(), 64, 2)
	queue := func(own string, checks ...string) *queued {
		w := &postgres.With{}
		for _, c := range checks {
			w.Checks = append(w.Checks, postgres.Check{Stream: eventstore.StreamID(c)})
		}
		a := []eventstore.StreamAppend{{Stream: eventstore.StreamID(own)}}
		q := &queued{appends: a, with: w}
		q.appended, q.checked = streamsOf(a, w)
		b.queue = append(b.queue, q)
		return q
	}
	ann := queue("account-ann", "settings-global", "user-ann")
	bob := queue("account-bob", "settings-global", "user-bob")
	admin := queue("settings-global")
	cy := queue("account-cy", "user-ann")
	ann2 := queue("account-ann", "settings-global")

	// ann, bob and cy only check the streams they share; the settings change waits for them.
	if first := b.take(); len(first) != 3 || first[0] != ann || first[1] != bob || first[2] != cy {
		t.Fatalf("first batch: %d commands, want ann, bob and cy", len(first))
	}
	// ann's second command checks the settings the change appends to, and waits for it.
	if second := b.take(); len(second) != 1 || second[0] != admin {
		t.Fatalf("second batch: %d commands, want the settings change alone", len(second))
	}
	if third := b.take(); len(third) != 1 || third[0] != ann2 {
		t.Fatalf("third batch: %d commands, want ann's second command", len(third))
	}
}

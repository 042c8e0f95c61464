// Package eventstoretest is the conformance suite every eventstore.Store implementation must pass.
// A store's own test file calls Run with a constructor that returns a fresh, empty store.
package eventstoretest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"clearvest/eventstore"
)

// NewStore returns a fresh, empty store for one test.
type NewStore func(t *testing.T) eventstore.Store

// Run runs every conformance test against stores made by newStore.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(*testing.T, eventstore.Store)
	}{
		{"append then read the stream back", testAppendAndReadStream},
		{"expected version no-stream, exact and any", testExpectedVersions},
		{"one winner per version among many goroutines", testOptimisticConcurrency},
		{"multi-stream append is atomic", testAtomicMultiStream},
		{"read-all is in strictly increasing global order", testGlobalOrder},
		{"concurrent appends to one stream read back in version order", testConcurrentStreamOrder},
		{"re-appending the same event ids returns the originals", testIdempotentReappend},
		{"reused event ids in another shape are refused", testDuplicateIDs},
		{"invalid input is refused and stores nothing", testValidation},
		{"paging through read-all and read-stream", testPaging},
		{"subscription catches up then goes live", testSubscribeCatchUpThenLive},
		{"no event is skipped under concurrent writers", testNoSkippedEvents},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Event builds a NewEvent with a fresh id and a small JSON body.
func Event(typ string, n int) eventstore.NewEvent {
	data, _ := json.Marshal(map[string]int{"n": n})
	return eventstore.NewEvent{ID: eventstore.NewEventID(), Type: typ, SchemaVersion: 1, Data: data}
}

func events(n int) []eventstore.NewEvent {
	out := make([]eventstore.NewEvent, n)
	for i := range out {
		out[i] = Event("test.happened", i)
	}
	return out
}

func mustAppend(t *testing.T, s eventstore.Store, stream eventstore.StreamID, expected int64, evs ...eventstore.NewEvent) []eventstore.Envelope {
	t.Helper()
	got, err := s.Append(ctxT(t), eventstore.StreamAppend{Stream: stream, ExpectedVersion: expected, Events: evs})
	if err != nil {
		t.Fatalf("append to %s: %v", stream, err)
	}
	return got
}

// errSeen stops a subscription once the awaited position has been delivered.
var errSeen = errors.New("seen")

// WaitVisible blocks until read-all can see position pos. Once one position is visible, every
// lower position that will ever exist is visible too, so reads up to pos are then complete.
func WaitVisible(t *testing.T, s eventstore.Store, pos int64) {
	t.Helper()
	err := s.Subscribe(ctxT(t), pos-1, func(_ context.Context, batch []eventstore.Envelope) error {
		if batch[len(batch)-1].Position >= pos {
			return errSeen
		}
		return nil
	})
	if !errors.Is(err, errSeen) {
		t.Fatalf("position %d never became visible: %v", pos, err)
	}
}

// settle appends a marker event and waits until it is visible, so that read-all afterwards is
// complete for everything appended before. It returns the marker's position.
func settle(t *testing.T, s eventstore.Store) int64 {
	t.Helper()
	marker := mustAppend(t, s, eventstore.NewStreamID("marker", eventstore.NewEventID().String()), eventstore.NoStream, Event("test.marker", 0))
	WaitVisible(t, s, marker[0].Position)
	return marker[0].Position
}

// readAllEvents returns every event appended so far (markers excluded).
func readAllEvents(t *testing.T, s eventstore.Store) []eventstore.Envelope {
	t.Helper()
	settle(t, s)
	var out []eventstore.Envelope
	var after int64
	for {
		page, err := s.ReadAll(ctxT(t), after, 500)
		if err != nil {
			t.Fatalf("read all: %v", err)
		}
		if len(page) == 0 {
			return out
		}
		for _, e := range page {
			if e.StreamID.Category() != "marker" {
				out = append(out, e)
			}
		}
		after = page[len(page)-1].Position
	}
}

func testAppendAndReadStream(t *testing.T, s eventstore.Store) {
	stream := eventstore.NewStreamID("account", "a1")
	meta := eventstore.Metadata{CorrelationID: "c1", CausationID: "k1", ActorID: "u1", ActorRole: "admin",
		ImpersonatorID: "u9", IdempotencyKey: "idem", RequestHash: "h", ClientIP: "127.0.0.1"}
	e1, e2 := Event("account.deposit_requested", 1), Event("account.deposit_confirmed", 2)
	e1.Metadata, e2.Metadata = meta, meta
	e2.SchemaVersion = 3
	before := time.Now().Add(-time.Minute)
	got := mustAppend(t, s, stream, eventstore.NoStream, e1, e2)
	if len(got) != 2 || got[0].Version != 1 || got[1].Version != 2 {
		t.Fatalf("versions = %+v, want 1 and 2", got)
	}
	if got[0].Position <= 0 || got[1].Position <= got[0].Position {
		t.Fatalf("positions %d, %d must be positive and increasing", got[0].Position, got[1].Position)
	}
	read, err := s.ReadStream(ctxT(t), stream, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 2 {
		t.Fatalf("read %d events, want 2", len(read))
	}
	for i, r := range read {
		want := got[i]
		if r.ID != want.ID || r.Position != want.Position || r.Version != want.Version || r.Type != want.Type ||
			r.SchemaVersion != want.SchemaVersion || r.StreamID != stream || r.Metadata != meta {
			t.Errorf("event %d read back as %+v, appended as %+v", i, r, want)
		}
		var body map[string]int
		if err := json.Unmarshal(r.Data, &body); err != nil || body["n"] != i+1 {
			t.Errorf("event %d data = %s", i, r.Data)
		}
		if r.RecordedAt.Location() != time.UTC || r.RecordedAt.Before(before) {
			t.Errorf("event %d recorded at %v, want a recent UTC time", i, r.RecordedAt)
		}
	}
	if empty, err := s.ReadStream(ctxT(t), eventstore.NewStreamID("account", "nobody"), 1, 10); err != nil || len(empty) != 0 {
		t.Errorf("unknown stream read = %v, %v; want empty", empty, err)
	}
	WaitVisible(t, s, got[1].Position)
	if head, err := s.Head(ctxT(t)); err != nil || head != got[1].Position {
		t.Errorf("head = %d, %v; want %d", head, err, got[1].Position)
	}
}

func testExpectedVersions(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	stream := eventstore.NewStreamID("account", "v")
	mustAppend(t, s, stream, eventstore.NoStream, events(2)...)

	_, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: events(1)})
	var ce *eventstore.ConcurrencyError
	if !errors.As(err, &ce) || !errors.Is(err, eventstore.ErrConcurrency) || ce.Actual != 2 || ce.Expected != 0 {
		t.Fatalf("no-stream on existing stream: err = %v, want ConcurrencyError{Expected 0, Actual 2}", err)
	}
	_, err = s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: 1, Events: events(1)})
	if !errors.As(err, &ce) || ce.Actual != 2 || ce.Expected != 1 {
		t.Fatalf("stale exact version: err = %v", err)
	}
	got := mustAppend(t, s, stream, 2, events(1)...)
	if got[0].Version != 3 {
		t.Fatalf("exact append version = %d, want 3", got[0].Version)
	}
	got = mustAppend(t, s, stream, eventstore.AnyVersion, events(2)...)
	if got[1].Version != 5 {
		t.Fatalf("any-version append version = %d, want 5", got[1].Version)
	}
	got = mustAppend(t, s, eventstore.NewStreamID("account", "fresh"), eventstore.AnyVersion, events(1)...)
	if got[0].Version != 1 {
		t.Fatalf("any-version on new stream = %d, want 1", got[0].Version)
	}
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: eventstore.NewStreamID("account", "ghost"), ExpectedVersion: 4, Events: events(1)}); !errors.Is(err, eventstore.ErrConcurrency) {
		t.Fatalf("exact version on missing stream: err = %v, want ErrConcurrency", err)
	}
	// An append with no events only checks the expectation.
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: 5}); err != nil {
		t.Fatalf("empty append at the right version: %v", err)
	}
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: 4}); !errors.Is(err, eventstore.ErrConcurrency) {
		t.Fatalf("empty append at a stale version: err = %v, want ErrConcurrency", err)
	}
}

func testOptimisticConcurrency(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	stream := eventstore.NewStreamID("counter", "race")
	const writers, perWriter = 10, 8
	var mu sync.Mutex
	winners := map[int64]int{} // version -> number of successful appends claiming it
	conflicts := 0
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < perWriter; {
				read, err := s.ReadStream(ctx, stream, 1, 10_000)
				if err != nil {
					t.Error(err)
					return
				}
				expected := int64(len(read))
				got, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: expected, Events: events(1)})
				mu.Lock()
				switch {
				case err == nil:
					winners[got[0].Version]++
					if got[0].Version != expected+1 {
						t.Errorf("append expecting %d got version %d", expected, got[0].Version)
					}
					done++
				case errors.Is(err, eventstore.ErrConcurrency):
					conflicts++
				default:
					t.Error(err)
					mu.Unlock()
					return
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	total := int64(writers * perWriter)
	for v := int64(1); v <= total; v++ {
		if winners[v] != 1 {
			t.Errorf("version %d has %d winners, want exactly 1", v, winners[v])
		}
	}
	read, err := s.ReadStream(ctx, stream, 1, 10_000)
	if err != nil || int64(len(read)) != total {
		t.Fatalf("stream has %d events (%v), want %d", len(read), err, total)
	}
	for i, e := range read {
		if e.Version != int64(i+1) {
			t.Fatalf("stream versions have a gap at %d: %d", i+1, e.Version)
		}
	}
	t.Logf("%d appends, %d conflicts", total, conflicts)
}

func testAtomicMultiStream(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	a, b := eventstore.NewStreamID("account", "atom-a"), eventstore.NewStreamID("ledger", "atom-b")
	mustAppend(t, s, b, eventstore.NoStream, events(1)...)
	_, err := s.Append(ctx,
		eventstore.StreamAppend{Stream: a, ExpectedVersion: eventstore.NoStream, Events: events(2)},
		eventstore.StreamAppend{Stream: b, ExpectedVersion: eventstore.NoStream, Events: events(1)}, // wrong: b is at 1
	)
	if !errors.Is(err, eventstore.ErrConcurrency) {
		t.Fatalf("err = %v, want ErrConcurrency", err)
	}
	if got, _ := s.ReadStream(ctx, a, 1, 10); len(got) != 0 {
		t.Fatalf("stream a holds %d events after a failed atomic append", len(got))
	}
	got, err := s.Append(ctx,
		eventstore.StreamAppend{Stream: a, ExpectedVersion: eventstore.NoStream, Events: events(2)},
		eventstore.StreamAppend{Stream: b, ExpectedVersion: 1, Events: events(1)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].StreamID != a || got[2].StreamID != b || got[2].Version != 2 {
		t.Fatalf("multi-stream envelopes = %+v", got)
	}
	if got[1].Position <= got[0].Position || got[2].Position <= got[1].Position {
		t.Fatalf("positions within one append must increase in input order")
	}
}

func testGlobalOrder(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	var appended []eventstore.Envelope
	for i := 0; i < 5; i++ {
		for _, name := range []string{"x", "y", "z"} {
			appended = append(appended, mustAppend(t, s, eventstore.NewStreamID("order", name), eventstore.AnyVersion, events(2)...)...)
		}
	}
	all := readAllEvents(t, s)
	if len(all) != len(appended) {
		t.Fatalf("read-all returned %d events, want %d", len(all), len(appended))
	}
	lastVersion := map[eventstore.StreamID]int64{}
	for i, e := range all {
		if i > 0 && e.Position <= all[i-1].Position {
			t.Fatalf("position %d follows %d", e.Position, all[i-1].Position)
		}
		if e.Version != lastVersion[e.StreamID]+1 {
			t.Fatalf("%s version %d follows %d in read-all order", e.StreamID, e.Version, lastVersion[e.StreamID])
		}
		lastVersion[e.StreamID] = e.Version
		if e.ID != appended[i].ID {
			t.Fatalf("sequential appends must read back in append order (index %d)", i)
		}
	}
	_ = ctx
}

func testIdempotentReappend(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	stream := eventstore.NewStreamID("account", "idem")
	batch := events(3)
	first := mustAppend(t, s, stream, eventstore.NoStream, batch...)
	mustAppend(t, s, stream, 3, events(1)...) // the stream moves on

	for _, expected := range []int64{eventstore.NoStream, eventstore.AnyVersion, 3} {
		again, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: expected, Events: batch})
		if err != nil {
			t.Fatalf("re-append (expected %d): %v", expected, err)
		}
		for i := range first {
			if again[i].ID != first[i].ID || again[i].Position != first[i].Position || again[i].Version != first[i].Version {
				t.Fatalf("re-append returned %+v, want the original %+v", again[i], first[i])
			}
		}
	}
	if all := readAllEvents(t, s); len(all) != 4 {
		t.Fatalf("store holds %d events after re-appends, want 4", len(all))
	}
}

func testDuplicateIDs(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	stream := eventstore.NewStreamID("account", "dup")
	batch := events(2)
	mustAppend(t, s, stream, eventstore.NoStream, batch...)

	partly := []eventstore.NewEvent{batch[0], Event("test.happened", 99)}
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion, Events: partly}); !errors.Is(err, eventstore.ErrDuplicateEvent) {
		t.Fatalf("partly stored ids: err = %v, want ErrDuplicateEvent", err)
	}
	other := eventstore.NewStreamID("account", "dup-other")
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: other, ExpectedVersion: eventstore.AnyVersion, Events: batch}); !errors.Is(err, eventstore.ErrDuplicateEvent) {
		t.Fatalf("ids reused on another stream: err = %v, want ErrDuplicateEvent", err)
	}
	if all := readAllEvents(t, s); len(all) != 2 {
		t.Fatalf("store holds %d events, want 2", len(all))
	}
}

func testValidation(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	good := eventstore.NewStreamID("account", "ok")
	cases := map[string][]eventstore.StreamAppend{
		"stream without category": {{Stream: "nocategory", ExpectedVersion: eventstore.AnyVersion, Events: events(1)}},
		"empty stream id":         {{Stream: "", ExpectedVersion: eventstore.AnyVersion, Events: events(1)}},
		"event without type": {{Stream: good, ExpectedVersion: eventstore.AnyVersion,
			Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), SchemaVersion: 1, Data: json.RawMessage(`{}`)}}}},
		"event without id": {{Stream: good, ExpectedVersion: eventstore.AnyVersion,
			Events: []eventstore.NewEvent{{Type: "t.x", SchemaVersion: 1, Data: json.RawMessage(`{}`)}}}},
		"event without data": {{Stream: good, ExpectedVersion: eventstore.AnyVersion,
			Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: "t.x", SchemaVersion: 1}}}},
		"same stream twice": {
			{Stream: good, ExpectedVersion: eventstore.AnyVersion, Events: events(1)},
			{Stream: good, ExpectedVersion: eventstore.AnyVersion, Events: events(1)}},
		"valid plus invalid": {
			{Stream: good, ExpectedVersion: eventstore.AnyVersion, Events: events(1)},
			{Stream: "bad", ExpectedVersion: eventstore.AnyVersion, Events: events(1)}},
		"expected version below any": {{Stream: good, ExpectedVersion: -7, Events: events(1)}},
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, err := s.Append(ctx, cases[name]...); err == nil {
			t.Errorf("%s: append succeeded, want an error", name)
		}
	}
	if all := readAllEvents(t, s); len(all) != 0 {
		t.Fatalf("invalid appends stored %d events", len(all))
	}
}

func testPaging(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	stream := eventstore.NewStreamID("page", "p")
	appended := mustAppend(t, s, stream, eventstore.NoStream, events(25)...)
	WaitVisible(t, s, appended[24].Position)
	var seen []eventstore.Envelope
	var after int64
	for {
		page, err := s.ReadAll(ctx, after, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 7 {
			t.Fatalf("page of %d exceeds the limit 7", len(page))
		}
		if len(page) == 0 {
			break
		}
		seen = append(seen, page...)
		after = page[len(page)-1].Position
	}
	if len(seen) != 25 {
		t.Fatalf("paged read-all saw %d events, want 25", len(seen))
	}
	tail, err := s.ReadStream(ctx, stream, 20, 3)
	if err != nil || len(tail) != 3 || tail[0].Version != 20 || tail[2].Version != 22 {
		t.Fatalf("read stream from 20 limit 3 = %+v, %v", tail, err)
	}
	if mid, err := s.ReadAll(ctx, appended[9].Position, 1); err != nil || len(mid) != 1 || mid[0].ID != appended[10].ID {
		t.Fatalf("read-all after the 10th event = %+v, %v", mid, err)
	}
}

func testSubscribeCatchUpThenLive(t *testing.T, s eventstore.Store) {
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	stream := eventstore.NewStreamID("sub", "s")
	mustAppend(t, s, stream, eventstore.NoStream, events(10)...)

	received := make(chan eventstore.Envelope, 100)
	done := make(chan error, 1)
	go func() {
		done <- s.Subscribe(ctx, 0, func(_ context.Context, batch []eventstore.Envelope) error {
			for _, e := range batch {
				received <- e
			}
			return nil
		})
	}()
	expectVersions := func(from, to int64) {
		t.Helper()
		for v := from; v <= to; v++ {
			select {
			case e := <-received:
				if e.Version != v {
					t.Fatalf("received version %d, want %d", e.Version, v)
				}
			case <-ctx.Done():
				t.Fatalf("timed out waiting for version %d", v)
			}
		}
	}
	expectVersions(1, 10) // catch-up
	mustAppend(t, s, stream, 10, events(5)...)
	expectVersions(11, 15) // live
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("subscribe returned %v after cancel, want context.Canceled", err)
	}

	// A handler error stops the subscription and is returned.
	boom := errors.New("boom")
	err := s.Subscribe(ctxT(t), 0, func(context.Context, []eventstore.Envelope) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("subscribe returned %v, want the handler's error", err)
	}
}

func testNoSkippedEvents(t *testing.T, s eventstore.Store) {
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	const writers, perWriter = 8, 40
	total := writers * perWriter

	type seen struct {
		ids  map[string]bool
		last int64
	}
	got := seen{ids: map[string]bool{}}
	var mu sync.Mutex
	complete := make(chan struct{})
	subErr := make(chan error, 1)
	go func() {
		subErr <- s.Subscribe(ctx, 0, func(_ context.Context, batch []eventstore.Envelope) error {
			mu.Lock()
			defer mu.Unlock()
			for _, e := range batch {
				if e.Position <= got.last {
					return fmt.Errorf("position %d delivered after %d", e.Position, got.last)
				}
				got.last = e.Position
				if got.ids[e.ID.String()] {
					return fmt.Errorf("event %s delivered twice", e.ID)
				}
				got.ids[e.ID.String()] = true
			}
			if len(got.ids) == total {
				close(complete)
			}
			return nil
		})
	}()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := eventstore.NewStreamID("skip", fmt.Sprint(w))
			for i := 0; i < perWriter; i++ {
				if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion, Events: events(1)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case <-complete:
	case err := <-subErr:
		t.Fatalf("subscription ended early: %v", err)
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("subscriber saw %d of %d events", len(got.ids), total)
	}
}

func testConcurrentStreamOrder(t *testing.T, s eventstore.Store) {
	ctx := ctxT(t)
	stream := eventstore.NewStreamID("order", "contended")
	const writers, perWriter = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion, Events: events(1 + i%2)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var version int64
	for _, e := range readAllEvents(t, s) {
		if e.StreamID != stream {
			continue
		}
		if e.Version != version+1 {
			t.Fatalf("read-all shows version %d after %d: positions disagree with versions", e.Version, version)
		}
		version = e.Version
	}
	if version == 0 {
		t.Fatal("no events read back")
	}
}

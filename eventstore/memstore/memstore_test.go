package memstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"clearvest/domain/clock"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/memstore"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	eventstoretest.Run(t, func(*testing.T) eventstore.Store { return memstore.New() })
}

var stream = eventstore.NewStreamID("account", "m1")

func appendOne(t *testing.T, s *memstore.Store, st eventstore.StreamID, expected int64, evs ...eventstore.NewEvent) []eventstore.Envelope {
	t.Helper()
	got, err := s.Append(context.Background(), eventstore.StreamAppend{Stream: st, ExpectedVersion: expected, Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestPositionsStartAtOneAndAreDense(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	ctx := context.Background()
	if head, err := s.Head(ctx); err != nil || head != 0 {
		t.Fatalf("empty store head = %d, %v", head, err)
	}
	appendOne(t, s, stream, eventstore.NoStream, eventstoretest.Event("t.a", 1), eventstoretest.Event("t.a", 2))
	appendOne(t, s, eventstore.NewStreamID("account", "m2"), eventstore.NoStream, eventstoretest.Event("t.a", 3))
	all, err := s.ReadAll(ctx, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range all {
		if e.Position != int64(i+1) {
			t.Errorf("event %d has position %d", i, e.Position)
		}
	}
	if head, _ := s.Head(ctx); head != 3 {
		t.Errorf("head = %d, want 3", head)
	}
}

func TestRecordedAtComesFromTheClockInUTC(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 5, 1, 10, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	s := memstore.New(memstore.WithClock(clock.Fixed(at)))
	got := appendOne(t, s, stream, eventstore.NoStream, eventstoretest.Event("t.a", 1))
	if !got[0].RecordedAt.Equal(at) || got[0].RecordedAt.Location() != time.UTC {
		t.Errorf("RecordedAt = %v, want %v in UTC", got[0].RecordedAt, at)
	}
}

func TestCallersCannotChangeStoredEvents(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	ctx := context.Background()
	e := eventstoretest.Event("t.a", 1)
	original := string(e.Data)
	returned := appendOne(t, s, stream, eventstore.NoStream, e)

	e.Data[0] = 'X'           // the appender's input
	returned[0].Data[0] = 'Y' // the appender's result
	read, _ := s.ReadStream(ctx, stream, 1, 10)
	read[0].Data[0] = 'Z' // a reader's copy
	readAll, _ := s.ReadAll(ctx, 0, 10)
	readAll[0].Data[0] = 'W'

	again, _ := s.ReadStream(ctx, stream, 1, 10)
	if string(again[0].Data) != original {
		t.Errorf("stored data became %s, want %s", again[0].Data, original)
	}
	replayed, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{e}})
	if err != nil {
		t.Fatal(err)
	}
	if string(replayed[0].Data) != original {
		t.Errorf("re-append returned %s, want the stored %s", replayed[0].Data, original)
	}
}

func TestDuplicateIDsInOneAppend(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	e := eventstoretest.Event("t.a", 1)
	_, err := s.Append(context.Background(),
		eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{e, e}})
	if !errors.Is(err, eventstore.ErrDuplicateEvent) {
		t.Fatalf("err = %v, want ErrDuplicateEvent", err)
	}
}

func TestStoredIDWithAnotherTypeIsADuplicate(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	e := eventstoretest.Event("t.a", 1)
	appendOne(t, s, stream, eventstore.NoStream, e)
	e.Type = "t.b"
	_, err := s.Append(context.Background(), eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{e}})
	if !errors.Is(err, eventstore.ErrDuplicateEvent) {
		t.Fatalf("err = %v, want ErrDuplicateEvent", err)
	}
}

func TestMultiStreamReappendIsIdempotent(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	ctx := context.Background()
	other := eventstore.NewStreamID("ledger", "m1")
	appends := []eventstore.StreamAppend{
		{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.a", 1)}},
		{Stream: other, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.b", 2), eventstoretest.Event("t.b", 3)}},
	}
	first, err := s.Append(ctx, appends...)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Append(ctx, appends...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if again[i].ID != first[i].ID || again[i].Position != first[i].Position || again[i].StreamID != first[i].StreamID {
			t.Errorf("re-append %d = %+v, want %+v", i, again[i], first[i])
		}
	}
	if head, _ := s.Head(ctx); head != 3 {
		t.Errorf("head = %d after re-append, want 3", head)
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{eventstoretest.Event("t.a", 1)}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Append err = %v", err)
	}
	if _, err := s.ReadStream(ctx, stream, 1, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadStream err = %v", err)
	}
	if _, err := s.ReadAll(ctx, 0, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAll err = %v", err)
	}
	if _, err := s.Head(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Head err = %v", err)
	}
	if head, _ := s.Head(context.Background()); head != 0 {
		t.Errorf("a cancelled append stored events")
	}
}

func TestReadEdges(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	ctx := context.Background()
	appendOne(t, s, stream, eventstore.NoStream, eventstoretest.Event("t.a", 1), eventstoretest.Event("t.a", 2))
	tests := []struct {
		name string
		read func() ([]eventstore.Envelope, error)
		want int
	}{
		{"stream from version 0 reads from the start", func() ([]eventstore.Envelope, error) { return s.ReadStream(ctx, stream, 0, 10) }, 2},
		{"stream past its end", func() ([]eventstore.Envelope, error) { return s.ReadStream(ctx, stream, 3, 10) }, 0},
		{"stream with zero limit", func() ([]eventstore.Envelope, error) { return s.ReadStream(ctx, stream, 1, 0) }, 0},
		{"malformed stream id", func() ([]eventstore.Envelope, error) { return s.ReadStream(ctx, "nodash", 1, 10) }, 0},
		{"all from a negative position", func() ([]eventstore.Envelope, error) { return s.ReadAll(ctx, -5, 10) }, 2},
		{"all past the head", func() ([]eventstore.Envelope, error) { return s.ReadAll(ctx, 2, 10) }, 0},
		{"all with zero limit", func() ([]eventstore.Envelope, error) { return s.ReadAll(ctx, 0, 0) }, 0},
	}
	for _, tt := range tests {
		got, err := tt.read()
		if err != nil || len(got) != tt.want {
			t.Errorf("%s: %d events, %v; want %d", tt.name, len(got), err, tt.want)
		}
	}
}

func TestSubscribeWakesOnAppendAndStopsOnCancel(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	batches := make(chan []eventstore.Envelope, 10)
	done := make(chan error, 1)
	go func() {
		done <- s.Subscribe(ctx, 0, func(_ context.Context, b []eventstore.Envelope) error {
			batches <- b
			return nil
		})
	}()
	for i := range 3 {
		appendOne(t, s, stream, eventstore.AnyVersion, eventstoretest.Event("t.a", i))
		select {
		case b := <-batches:
			if len(b) != 1 || b[0].Version != int64(i+1) {
				t.Fatalf("batch %d = %+v", i, b)
			}
		case <-ctx.Done():
			t.Fatalf("event %d was never delivered", i)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Subscribe returned %v, want context.Canceled", err)
	}
}

func TestSubscribeDeliversLargeBacklogsInBatches(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	const total = 1234
	evs := make([]eventstore.NewEvent, total)
	for i := range evs {
		evs[i] = eventstoretest.Event("t.a", i)
	}
	appendOne(t, s, stream, eventstore.NoStream, evs...)
	stop := errors.New("stop")
	var seen, batches int
	err := s.Subscribe(context.Background(), 0, func(_ context.Context, b []eventstore.Envelope) error {
		batches++
		for _, e := range b {
			seen++
			if e.Position != int64(seen) {
				return errors.New("out of order")
			}
		}
		if seen == total {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || seen != total || batches < 2 {
		t.Fatalf("err %v, saw %d events in %d batches", err, seen, batches)
	}
}

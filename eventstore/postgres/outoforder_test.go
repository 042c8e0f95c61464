package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
)

// TestOutOfOrderCommitIsNeverSkipped holds one append open after it has taken its position while
// a later append commits. A reader that followed positions naively would see the later event,
// move its checkpoint past the held one, and skip it forever once it commits.
func TestOutOfOrderCommitIsNeverSkipped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	held := eventstore.NewStreamID("held", "a")
	reached := make(chan []eventstore.Envelope, 1)
	release := make(chan struct{})
	var releaseOnce sync.Once
	releaseHeld := func() { releaseOnce.Do(func() { close(release) }) }
	defer releaseHeld() // a failing assertion must not leave the held transaction open
	s, pool := newStore(t, postgres.WithBeforeCommit(func(_ context.Context, envs []eventstore.Envelope) {
		if envs[0].StreamID == held {
			reached <- envs
			<-release
		}
	}))

	slowDone := make(chan error, 1)
	go func() {
		_, err := s.Append(ctx, eventstore.StreamAppend{Stream: held, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.slow", 1)}})
		slowDone <- err
	}()
	slow := (<-reached)[0]

	fast, err := s.Append(ctx, eventstore.StreamAppend{Stream: eventstore.NewStreamID("fast", "b"), ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{eventstoretest.Event("t.fast", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	if fast[0].Position <= slow.Position {
		t.Fatalf("the later transaction got position %d, not above the held one's %d", fast[0].Position, slow.Position)
	}

	// The fast event is committed: a plain query sees it…
	var committed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE position = $1`, fast[0].Position).Scan(&committed); err != nil || committed != 1 {
		t.Fatalf("fast event committed rows = %d, %v", committed, err)
	}
	// …but the store must not show it while an older transaction is still open.
	var checkpoint int64
	page, err := s.ReadAll(ctx, checkpoint, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page {
		if e.Position >= slow.Position {
			t.Fatalf("read-all returned position %d while position %d was still uncommitted", e.Position, slow.Position)
		}
		checkpoint = e.Position
	}
	if head, err := s.Head(ctx); err != nil || head >= slow.Position {
		t.Fatalf("head = %d (%v) while position %d is uncommitted", head, err, slow.Position)
	}

	releaseHeld()
	if err := <-slowDone; err != nil {
		t.Fatal(err)
	}
	eventstoretest.WaitVisible(t, s, fast[0].Position)
	page, err = s.ReadAll(ctx, checkpoint, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].ID != slow.ID || page[1].ID != fast[0].ID {
		t.Fatalf("after the held commit, a reader from its checkpoint got %d events; want the held one then the fast one", len(page))
	}
}

package queuefeed_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/app/queuefeed"
	"clearvest/domain/account"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/eventstore/memstore"
)

func appendEvents(t *testing.T, s eventstore.Store, stream string, types ...string) int64 {
	t.Helper()
	events := make([]eventstore.NewEvent, len(types))
	for i, typ := range types {
		events[i] = eventstore.NewEvent{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: 1, Data: json.RawMessage(`{}`)}
	}
	envs, err := s.Append(context.Background(), eventstore.StreamAppend{Stream: eventstore.NewStreamID("test", stream), ExpectedVersion: eventstore.AnyVersion, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	return envs[len(envs)-1].Position
}

func next(t *testing.T, ch <-chan queuefeed.Change) queuefeed.Change {
	t.Helper()
	select {
	case c, ok := <-ch:
		if !ok {
			t.Fatal("the feed closed")
		}
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no change within 10 s")
	}
	return queuefeed.Change{}
}

// TestFeedNamesTheQueuesThatChanged: events before Subscribe are old news; after it, each
// listener hears which queues changed and the newest position, events that change no queue are
// passed over, and Close ends every subscription.
func TestFeedNamesTheQueuesThatChanged(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	appendEvents(t, store, "old", account.TypeDepositRequested)
	feed := queuefeed.New(store, 5*time.Millisecond, nil)
	a, stopA, err := feed.Subscribe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stopA()
	b, stopB, err := feed.Subscribe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stopB()

	pos := appendEvents(t, store, "s1", "user.language_changed", account.TypeDepositConfirmed, kyc.TypeApproved)
	for _, ch := range []<-chan queuefeed.Change{a, b} {
		c := next(t, ch)
		// The two may come in one round or two; the newest names both.
		for !slices.Contains(c.Queues, queuefeed.IdentityChecks) {
			c = next(t, ch)
		}
		if c.Position != pos {
			t.Fatalf("change %+v, want position %d", c, pos)
		}
	}

	feed.Close()
	if _, ok := <-a; ok {
		// A value may have been waiting; the channel then closes after it.
		if _, ok := <-a; ok {
			t.Fatal("the subscription outlived Close")
		}
	}
	if _, _, err := feed.Subscribe(context.Background()); err == nil {
		t.Fatal("Subscribe after Close")
	}
}

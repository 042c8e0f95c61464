package livefeed_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"clearvest/platform/livefeed"
)

// source is a log of (key, mark) changes the test appends to, and counts the polls made.
type source struct {
	mu      sync.Mutex
	changes []change
	polls   int
	fail    bool
}

type change struct {
	key  string
	mark int64
}

func (s *source) add(key string, mark int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, change{key, mark})
}

func (s *source) hub(t *testing.T) *livefeed.Hub[string, int64] {
	h := livefeed.New(livefeed.Source[string, int64]{
		Name: "test feed",
		Head: func(context.Context) (int64, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			var head int64
			for _, c := range s.changes {
				head = max(head, c.mark)
			}
			return head, nil
		},
		Poll: func(_ context.Context, after int64) (map[string]int64, int64, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.polls++
			if s.fail {
				return nil, after, errors.New("source down")
			}
			news := map[string]int64{}
			for _, c := range s.changes {
				if c.mark > after {
					news[c.key] = max(news[c.key], c.mark)
					after = max(after, c.mark)
				}
			}
			return news, after, nil
		},
		Merge: func(older, newer int64) int64 { return max(older, newer) },
	}, time.Millisecond, nil)
	t.Cleanup(h.Close)
	return h
}

func receive(t *testing.T, ch <-chan int64) int64 {
	t.Helper()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatal("channel closed")
		}
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("no change announced")
		return 0
	}
}

func TestListenersHearOnlyTheirOwnChangesMadeAfterTheySubscribed(t *testing.T) {
	t.Parallel()
	src := &source{}
	src.add("alice", 1) // before anyone listens: never announced
	h := src.hub(t)
	ctx := context.Background()
	alice, stopAlice, err := h.Subscribe(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	defer stopAlice()
	bob, stopBob, err := h.Subscribe(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	defer stopBob()

	src.add("bob", 2)
	if got := receive(t, bob); got != 2 {
		t.Fatalf("bob heard %d, want 2", got)
	}
	src.add("alice", 3)
	if got := receive(t, alice); got != 3 {
		t.Fatalf("alice heard %d, want 3 (not her change from before she listened)", got)
	}
	select {
	case v := <-bob:
		t.Fatalf("bob heard alice's change %d", v)
	default:
	}
}

func TestASlowListenerGetsTheChangesItMissedMerged(t *testing.T) {
	t.Parallel()
	src := &source{}
	h := src.hub(t)
	ch, stop, err := h.Subscribe(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	src.add("alice", 1)
	// Wait until the first change has been delivered into the channel's buffer, unread.
	deadline := time.Now().Add(5 * time.Second)
	for len(ch) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("first change never delivered")
		}
		time.Sleep(time.Millisecond)
	}
	src.add("alice", 5)
	// The poller merges instead of blocking: the one value read is the newest.
	for {
		if got := receive(t, ch); got == 5 {
			return
		} else if got != 1 {
			t.Fatalf("heard %d, want 1 then 5 or 5 merged", got)
		}
	}
}

func TestCloseEndsSubscriptionsAndRefusesNewOnes(t *testing.T) {
	t.Parallel()
	src := &source{}
	h := src.hub(t)
	ch, _, err := h.Subscribe(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	if _, ok := <-ch; ok {
		t.Fatal("channel still open after Close")
	}
	if _, _, err := h.Subscribe(context.Background(), "alice"); !errors.Is(err, livefeed.ErrClosed) {
		t.Fatalf("Subscribe after Close: %v, want ErrClosed", err)
	}
}

func TestAFailingPollLosesNothing(t *testing.T) {
	t.Parallel()
	src := &source{fail: true}
	h := src.hub(t)
	ch, stop, err := h.Subscribe(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	src.mu.Lock()
	before := src.polls
	src.mu.Unlock()
	src.add("alice", 7)
	// At least one poll fails after the change was made, before the source comes back.
	deadline := time.Now().Add(5 * time.Second)
	for {
		src.mu.Lock()
		if src.polls > before+1 {
			src.fail = false
			src.mu.Unlock()
			break
		}
		src.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the hub never polled")
		}
		time.Sleep(time.Millisecond)
	}
	if got := receive(t, ch); got != 7 {
		t.Fatalf("heard %d after the source came back, want 7", got)
	}
}

package command

import (
	"fmt"
	"testing"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
)

type noted struct{ n int }

func (noted) EventName() string { return "test.noted" }

// grow extends h by one event at the next version, keyed when key is set.
func grow(h *history, n int, key string) *history {
	env := eventstore.Envelope{Version: h.version + 1, Metadata: eventstore.Metadata{IdempotencyKey: key, RequestHash: "h-" + key}}
	return h.extended([]eventstore.Envelope{env}, []aggregate.Event{noted{n}})
}

func notes(h *history) []int {
	out := make([]int, len(h.events))
	for i, e := range h.events {
		out[i] = e.(noted).n
	}
	return out
}

// Histories of a stream share the array behind their events, yet none ever sees another's
// events: two extensions of one history each keep their own.
func TestExtendingAHistoryLeavesEveryOtherHistoryAsItWas(t *testing.T) {
	t.Parallel()
	base := grow(grow(&history{}, 1, ""), 2, "")
	left := grow(base, 3, "")
	right := grow(base, 30, "") // base is no longer the tip: this one copies
	leftMore := grow(left, 4, "")
	if got := fmt.Sprint(notes(base), notes(left), notes(right), notes(leftMore)); got != "[1 2] [1 2 3] [1 2 30] [1 2 3 4]" {
		t.Fatalf("views %s", got)
	}
	if left.log != leftMore.log || right.log == left.log {
		t.Error("the tip should append in place, and a history beside it copy")
	}
}

// Keys are found whether their history was published to the stream's index (put in the cache)
// or not; a history sees only keys up to its version, and a history that was never published
// (a transaction that rolled back) leaves nothing in the index.
func TestKeyedFindsPublishedAndPendingKeys(t *testing.T) {
	t.Parallel()
	h1 := grow(&history{}, 1, "k1")
	h1.publish()
	h2 := grow(h1, 2, "k2")
	rolledBack := grow(h2, 3, "k3")
	if got := h2.keyed("k1"); len(got) != 1 || got[0].version != 1 {
		t.Fatalf("published key: %+v", got)
	}
	if got := h2.keyed("k2"); len(got) != 1 || got[0].version != 2 || got[0].hash != "h-k2" {
		t.Fatalf("pending key: %+v", got)
	}
	if got := h1.keyed("k2"); len(got) != 0 {
		t.Fatalf("a key after the history's version: %+v", got)
	}
	if got := rolledBack.keyed("k3"); len(got) != 1 {
		t.Fatalf("own pending key: %+v", got)
	}
	h2.publish()
	committed := grow(h2, 3, "k4")
	if got := committed.keyed("k3"); len(got) != 0 {
		t.Fatalf("a key of an unpublished history leaked: %+v", got)
	}
	if got := committed.keyed("k2"); len(got) != 1 || len(committed.pending) != 1 {
		t.Fatalf("after publishing: keyed %+v, pending %+v; want the key from the index and only k4 pending", got, committed.pending)
	}
}

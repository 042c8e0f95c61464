package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
)

// TestStaffStreamHearsAnotherStaffMembersDecision: staff member A watches the queues over the
// staff event stream; staff member B confirms a deposit. A hears that the deposit queue changed,
// with a position; A's queue, asked again with that position, no longer holds the deposit, and
// the counts agree. Investors may not open the staff stream.
func TestStaffStreamHearsAnotherStaffMembersDecision(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staffA, _ := a.member(t, "ada@example.com", "author")
	staffB, _ := a.member(t, "bob@example.com", "admin")
	d := createUSDT(t, investor, "100", testHash("queue1"))

	expect(t, investor.do(http.MethodGet, "/api/staff/events", nil), http.StatusForbidden)
	expect(t, a.browser(t).do(http.MethodGet, "/api/staff/events", nil), http.StatusUnauthorized)

	stream := openEventsAt(t, staffA, "/api/staff/events")
	res := staffB.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "100"})
	expect(t, res, http.StatusOK)

	ev := stream.next(t)
	if ev[0] != "changed" {
		t.Fatalf("event %v, want changed", ev)
	}
	var change struct {
		Position string   `json:"position"`
		Queues   []string `json:"queues"`
	}
	if err := json.Unmarshal([]byte(ev[1]), &change); err != nil {
		t.Fatalf("changed data %q: %v", ev[1], err)
	}
	if !slices.Equal(change.Queues, []string{"deposits"}) {
		t.Fatalf("queues changed: %v, want [deposits]", change.Queues)
	}
	pos, err := strconv.ParseInt(change.Position, 10, 64)
	if err != nil || pos <= 0 {
		t.Fatalf("position %q", change.Position)
	}

	// Asked again with the position heard, A's queue and counts have the decision.
	staffA.position = pos
	queue := decodeJSON[depositQueueJSON](t, staffA.do(http.MethodGet, "/api/payments/pending-deposit", nil))
	for _, item := range queue.Deposits {
		if item.Deposit.TransactionID == d.TransactionID {
			t.Fatalf("the confirmed deposit is still in A's queue: %+v", queue)
		}
	}
	if total := decodeJSON[struct{ Total int }](t, staffA.do(http.MethodGet, "/api/payments/pending-deposit", nil)).Total; total != 0 {
		t.Fatalf("deposits waiting after the decision: %d", total)
	}
}

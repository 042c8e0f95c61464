package api_test

import (
	"net/http"
	"sync"
	"testing"
)

func TestASixthOpenDepositIsRefusedUntilStaffDecideOne(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	other, _ := a.member(t, "oscar@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")

	var open []depositJSON
	for range 5 {
		open = append(open, createUSDT(t, investor, "100", ""))
	}
	const refused = "You have 5 deposits waiting for confirmation. Please wait until our team has confirmed or rejected one of them before declaring another."
	sixth := map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20", "txHash": "0xsixth"}
	expectMessage(t, investor.do(http.MethodPost, "/api/payments/create", sixth), http.StatusUnprocessableEntity, refused)

	// The refusal left nothing behind: the hash it carried is still free, and staff see five.
	a.CatchUp(t)
	staff.position = max(staff.position, investor.position)
	res := staff.do(http.MethodGet, "/api/payments/pending-deposit", nil)
	expect(t, res, http.StatusOK)
	if q := decodeJSON[depositQueueJSON](t, res); len(q.Deposits) != 5 {
		t.Fatalf("staff see %d deposits waiting, want 5", len(q.Deposits))
	}
	// Another investor's quota is their own.
	createUSDT(t, other, "100", "")

	// Once staff decide one, there is room for one more, and only one.
	expect(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": open[0].TransactionID, "notes": "Nothing arrived"}), http.StatusOK)
	investor.position = max(investor.position, staff.position)
	createUSDT(t, investor, "100", "0xsixth")
	expectMessage(t, investor.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}),
		http.StatusUnprocessableEntity, refused)
}

func TestRacingDepositRequestsDoNotPassTheQuota(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	for range 3 {
		createUSDT(t, investor, "100", "")
	}
	// Six requests race for the last two places: exactly two are accepted.
	statuses := make([]int, 6)
	var wg sync.WaitGroup
	for i := range statuses {
		// One copy of the signed-in browser per request, so that each keeps its own position.
		c := *investor
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = c.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}).status
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusUnprocessableEntity:
			refused++
		}
	}
	if ok != 2 || refused != 4 {
		t.Fatalf("statuses %v: %d accepted and %d refused, want 2 and 4", statuses, ok, refused)
	}
}

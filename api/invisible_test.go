package api_test

import (
	"net/http"
	"testing"
)

// TestInvisibleCharactersAreRefused: text staff read or that names money is refused with a 400
// naming the field when it carries characters nobody sees (a bidi override, a zero-width space,
// a byte order mark) or that forge lines (a carriage return), and nothing is recorded.
func TestInvisibleCharactersAreRefused(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")

	for _, tc := range []struct {
		body    map[string]string
		message string
	}{
		{map[string]string{"name": "Ivy \u202eevil"}, "Name contains invisible or control characters. Please remove them and try again."},
		{map[string]string{"name": "I\u200bvy"}, "Name contains invisible or control characters. Please remove them and try again."},
		{map[string]string{"bio": "line\rforged"}, "Bio contains invisible or control characters. Please remove them and try again."},
		{map[string]string{"bio": "\ufeffhello"}, "Bio contains invisible or control characters. Please remove them and try again."},
	} {
		expectMessage(t, investor.do(http.MethodPatch, "/api/users/updateUser", tc.body), http.StatusBadRequest, tc.message)
	}
	expect(t, investor.do(http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "two\nlines"}), http.StatusOK)

	d := createUSDT(t, investor, "10", "")
	expectMessage(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d.TransactionID,
		"notes": "nothing arrived\u2066"}), http.StatusBadRequest, "Notes contains invisible or control characters. Please remove them and try again.")
	fund(t, investor, staff, "500")
	clearedToWithdraw(t, a, investor, staff)
	w := withdraw(t, investor, "100", "TRC20", testTRONAddress)
	expectMessage(t, staff.do(http.MethodPut, "/api/withDraw/reject/"+w.ID, map[string]string{"reason": "blocked\r\nSubject: x"}),
		http.StatusBadRequest, "Reason contains invisible or control characters. Please remove them and try again.")
	if n := a.count(t, `SELECT count(*) FROM events WHERE type IN ('account.deposit_rejected', 'account.withdrawal_rejected')`); n != 0 {
		t.Fatalf("%d rejections recorded", n)
	}
	expectMessage(t, investor.do(http.MethodPost, "/api/withDraw/create", map[string]string{"amount": "10", "network": "TRC20",
		"walletAddress": testTRONAddress + "\u200b"}), http.StatusBadRequest,
		"The wallet address contains spaces or hidden characters; please copy it again")
}

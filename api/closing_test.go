package api_test

import (
	"context"
	"net/http"
	"testing"

	"clearvest/app/accounts/accountstest"
)

// TestClosingAnAccountThatHoldsMoneyIsRefused closes an investor's account while it holds a
// balance and a pending withdrawal: a 409 naming both, and the account stays open (the
// investor still signs in). Once everything is paid out, the same request closes it.
func TestClosingAnAccountThatHoldsMoneyIsRefused(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, inv := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	admin, _ := a.member(t, "ada@example.com", "admin")
	fund(t, investor, staff, "200")
	clearedToWithdraw(t, a, investor, staff)
	w := withdraw(t, investor, "50", "TRC20", testTRONAddress)

	admin.position = max(admin.position, investor.position)
	expectMessage(t, admin.do(http.MethodDelete, "/api/users/"+inv.ID, nil), http.StatusConflict,
		"This account still holds money: $150.00 available, 1 withdrawal pending ($50.00). Pay it out before closing the account.")
	investor.position = max(investor.position, admin.position)
	expect(t, investor.do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)

	staff.position = max(staff.position, investor.position)
	expect(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("paid 1")}), http.StatusOK)
	investor.position = max(investor.position, staff.position)
	rest := withdraw(t, investor, "150", "TRC20", testTRONAddress)
	staff.position = max(staff.position, investor.position)
	expect(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+rest.ID, map[string]string{"txHash": testHash("paid 2")}), http.StatusOK)

	admin.position = max(admin.position, staff.position)
	expect(t, admin.do(http.MethodDelete, "/api/users/"+inv.ID, nil), http.StatusOK)
}

// TestDecidingAClosedAccountsRequestIsAConflict has an account closed while a withdrawal of it
// waited, as accounts could be before their money was checked: staff deciding it get a 409
// that says why, not a 500, and the money stays where it was.
func TestDecidingAClosedAccountsRequestIsAConflict(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t, accountstest.WithCloseCheck(nil))
	investor, inv := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	admin, _ := a.member(t, "ada@example.com", "admin")
	fund(t, investor, staff, "200")
	clearedToWithdraw(t, a, investor, staff)
	w := withdraw(t, investor, "50", "TRC20", testTRONAddress)
	d := createUSDT(t, investor, "75", "")
	admin.position = max(admin.position, investor.position)
	expect(t, admin.do(http.MethodDelete, "/api/users/"+inv.ID, nil), http.StatusOK)

	staff.position = max(staff.position, admin.position)
	for _, req := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPut, "/api/withDraw/approve/" + w.ID, map[string]string{"txHash": testHash("paid")}},
		{http.MethodPut, "/api/withDraw/reject/" + w.ID, map[string]string{"reason": "closed"}},
		{http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "75"}},
	} {
		expectMessage(t, staff.do(req.method, req.path, req.body), http.StatusConflict,
			"This account is closed: its requests can no longer be decided.")
	}
}

// TestStaffUserListShowsRealFiguresOrNone: each user in the staff list carries their figures
// from the books (zeros only for a user with no money). When the books cannot be read, the list
// still answers, with no figures at all: nobody is shown $0.00 they do not have.
func TestStaffUserListShowsRealFiguresOrNone(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, inv := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	_, newcomer := a.member(t, "nia@example.com", "subscriber")
	fund(t, investor, staff, "200")
	clearedToWithdraw(t, a, investor, staff)
	withdraw(t, investor, "50", "TRC20", testTRONAddress)

	type listed struct {
		ID      string `json:"_id"`
		Balance string `json:"balance"`
		Figures *struct {
			Balance           string `json:"balance"`
			InvestmentBalance string `json:"investmentBalance"`
		} `json:"figures"`
	}
	list := func() map[string]listed {
		t.Helper()
		staff.position = max(staff.position, investor.position)
		res := staff.do(http.MethodGet, "/api/users/getUsers", nil)
		expect(t, res, http.StatusOK)
		out := map[string]listed{}
		for _, u := range decodeJSON[[]listed](t, res) {
			out[u.ID] = u
		}
		return out
	}
	users := list()
	if u := users[inv.ID]; u.Figures == nil || u.Figures.Balance != "150.00" || u.Balance != "150.00" {
		t.Fatalf("the investor in the list: %+v", u)
	}
	if u := users[newcomer.ID]; u.Figures == nil || u.Figures.Balance != "0.00" || u.Figures.InvestmentBalance != "0.00" {
		t.Fatalf("a user with no money yet: %+v", u)
	}

	if _, err := a.Pool.Exec(context.Background(), `ALTER TABLE rm_ledger.figures RENAME TO figures_away`); err != nil {
		t.Fatal(err)
	}
	for id, u := range list() {
		if u.Figures != nil || u.Balance != "" {
			t.Fatalf("user %s while the books cannot be read: %+v", id, u)
		}
	}
}

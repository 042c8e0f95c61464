package api_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"clearvest/api/middleware"
	"clearvest/domain/account"
	"clearvest/eventstore"
)

// TestARequestsEventsCarryItsID: the events a request's command appends carry the request's id
// as their correlation id, so a log line leads to the events and back; a request without an id
// gets one of the server's, in the answer and on its events alike. The e-mail a request queues
// keeps the id too, for the sender's log lines.
func TestARequestsEventsCarryItsID(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, ivy := a.member(t, "ivy@example.com", "subscriber")
	investor.header.Set(middleware.HeaderRequestID, "trace-deposit-1")
	res := investor.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "25", "asset": "USDT", "network": "TRC20"})
	expect(t, res, http.StatusOK)
	investor.header.Del(middleware.HeaderRequestID)
	res = investor.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "30", "asset": "USDT", "network": "TRC20"})
	expect(t, res, http.StatusOK)
	second := res.header.Get(middleware.HeaderRequestID)
	if second == "" {
		t.Fatal("the answer carries no request id")
	}

	envs, err := a.Store.ReadStream(context.Background(), eventstore.StreamID(account.Stream(ivy.ID)), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, env := range envs {
		if env.Type == account.TypeDepositRequested {
			got = append(got, env.Metadata.CorrelationID)
		}
	}
	if len(got) != 2 || got[0] != "trace-deposit-1" || got[1] != second {
		t.Fatalf("correlation ids of the two deposits %q, want [trace-deposit-1 %s]", got, second)
	}

	staff, _ := a.member(t, "sam@example.com", "author")
	staff.header.Set(middleware.HeaderRequestID, "trace-confirm-1")
	d := createUSDT(t, investor, "40", "")
	expect(t, confirm(staff, d.TransactionID, "40", ""), http.StatusOK)
	var mailed []string
	rows, err := a.Pool.Query(context.Background(), `SELECT coalesce(correlation_id, '') FROM mail_outbox WHERE to_address = $1`, "ivy@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		mailed = append(mailed, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(mailed, "trace-confirm-1") {
		t.Fatalf("correlation ids of ivy's e-mails %q, want the confirmation's among them", mailed)
	}
}

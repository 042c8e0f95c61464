package api_test

import (
	"context"
	"net/http"
	"testing"

	"clearvest/api/middleware"
	"clearvest/domain/account"
	"clearvest/eventstore"
)

// TestARequestsEventsCarryItsID: the events a request's command appends carry the request's id
// as their correlation id, so a log line leads to the events and back; a request without an id
// gets one of the server's, in the answer and on its events alike.
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
}

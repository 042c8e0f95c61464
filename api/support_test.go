package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	appsupport "clearvest/app/support"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/tickets"
)

// newSupportApp is the API with the support service and the tickets read model.
func newSupportApp(t *testing.T) *app {
	t.Helper()
	env := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		return []projections.Projection{tickets.New(codec)}
	}))
	svc, err := appsupport.New(appsupport.Config{PublicURL: accountstest.PublicURL}, appsupport.Deps{
		Pool: env.Pool, Commands: env.Commands, Sender: env.Sender, Clock: env.Clock, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, env, func(d *api.Deps) { d.Support = svc })
}

type ticketQueueJSON struct {
	AsOf    string `json:"asOf"`
	Tickets []struct {
		ID         string `json:"_id"`
		UserName   string `json:"user_name"`
		UserEmail  string `json:"user_email"`
		Message    string `json:"message"`
		Status     string `json:"status"`
		AgeSeconds int64  `json:"ageSeconds"`
		Replies    int    `json:"replies"`
		LastReply  string `json:"lastReply"`
	} `json:"tickets"`
}

func ticketStreams(t *testing.T, a *app) int {
	t.Helper()
	var n int
	if err := a.Pool.QueryRow(context.Background(), `SELECT count(DISTINCT stream_id) FROM events WHERE stream_id LIKE 'ticket-%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSupportFormValidatesTrapsBotsAndLimits: the contact form's messages, a honeypot that
// answers like a success but stores nothing, and the per-address limit (5 an hour, valid or
// not) answered with 429 and Retry-After.
func TestSupportFormValidatesTrapsBotsAndLimits(t *testing.T) {
	t.Parallel()
	a := newSupportApp(t)
	visitor := a.browser(t)
	send := func(body map[string]string) response {
		return visitor.do(http.MethodPost, "/api/support/tickets", body)
	}
	for _, c := range []struct {
		name string
		body map[string]string
		want string
	}{
		{"empty name", map[string]string{"user_name": " ", "user_email": "ada@example.com", "message": "Hello"}, "All fields are required"},
		{"invalid email", map[string]string{"user_name": "Ada", "user_email": "ada@", "message": "Hello"}, "Please enter a valid email"},
		{"message too long", map[string]string{"user_name": "Ada", "user_email": "ada@example.com", "message": strings.Repeat("x", 5001)},
			"Your message must be at most 5000 characters."},
	} {
		res := send(c.body)
		expect(t, res, http.StatusBadRequest)
		if got := decodeError(t, res).Message; got != c.want {
			t.Errorf("%s: message %q, want %q", c.name, got, c.want)
		}
	}

	res := send(map[string]string{"user_name": "Bot", "user_email": "bot@example.com", "message": "Buy now", "website": "http://spam.example"})
	expect(t, res, http.StatusOK)
	if ticketStreams(t, a) != 0 {
		t.Fatal("a message with the honeypot filled was stored")
	}

	res = send(map[string]string{"user_name": "Ada", "user_email": "ada@example.com", "message": "How do I deposit?"})
	expect(t, res, http.StatusOK)
	var ok struct{ Message string }
	if err := json.Unmarshal(res.body, &ok); err != nil || ok.Message != "Message sent successfully!" {
		t.Fatalf("answer %s", res.body)
	}
	if ticketStreams(t, a) != 1 {
		t.Fatal("the message was not stored as one ticket")
	}

	res = send(map[string]string{"user_name": "Ada", "user_email": "ada@example.com", "message": "Again"})
	expect(t, res, http.StatusTooManyRequests)
	if res.header.Get("Retry-After") == "" || !strings.Contains(decodeError(t, res).Message, "Too many attempts") {
		t.Fatalf("429 without Retry-After or a clear message: %v %s", res.header, res.body)
	}
	if ticketStreams(t, a) != 1 {
		t.Fatal("a refused message was stored")
	}
}

// TestSupportQueueReplyAndClose: staff only; open tickets first; a reply is e-mailed to the
// requester, quoting them, and leaves the ticket answered; a closed ticket refuses a reply.
func TestSupportQueueReplyAndClose(t *testing.T) {
	t.Parallel()
	a := newSupportApp(t)
	visitor := a.browser(t)
	for _, msg := range []string{"First question", "Second question"} {
		expect(t, visitor.do(http.MethodPost, "/api/support/tickets",
			map[string]string{"user_name": "Ada Visitor", "user_email": "ada@example.com", "message": msg}), http.StatusOK)
	}

	investor, _ := a.member(t, "investor@example.com", "subscriber")
	expect(t, investor.do(http.MethodGet, "/api/support/tickets", nil), http.StatusForbidden)
	expect(t, visitor.do(http.MethodGet, "/api/support/tickets", nil), http.StatusUnauthorized)

	staff, _ := a.member(t, "author@example.com", "author")
	a.CatchUp(t)
	queue := func() ticketQueueJSON {
		t.Helper()
		res := staff.do(http.MethodGet, "/api/support/tickets", nil)
		expect(t, res, http.StatusOK)
		var q ticketQueueJSON
		if err := json.Unmarshal(res.body, &q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	q := queue()
	if len(q.Tickets) != 2 || q.Tickets[0].Message != "First question" || q.Tickets[0].Status != "open" ||
		q.Tickets[0].UserEmail != "ada@example.com" || q.Tickets[0].AgeSeconds < 0 {
		t.Fatalf("queue %+v", q)
	}
	first, second := q.Tickets[0].ID, q.Tickets[1].ID

	expect(t, staff.do(http.MethodPost, "/api/support/tickets/"+first+"/reply", map[string]string{"message": "  "}), http.StatusBadRequest)
	expect(t, staff.do(http.MethodPost, "/api/support/tickets/"+first+"/reply",
		map[string]string{"message": "Send the transfer to the address on Fund Wallet."}), http.StatusOK)
	mails := a.MailsTo(t, "ada@example.com", "support")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "Send the transfer to the address on Fund Wallet.") ||
		!strings.Contains(mails[0].Text, "First question") || !strings.Contains(mails[0].Text, "Hello Ada Visitor") {
		t.Fatalf("reply e-mails: %+v", mails)
	}

	// The answered ticket goes after the one still open.
	q = queue()
	if q.Tickets[0].ID != second || q.Tickets[1].ID != first || q.Tickets[1].Status != "answered" || q.Tickets[1].Replies != 1 {
		t.Fatalf("queue after the reply %+v", q)
	}

	expect(t, staff.do(http.MethodPost, "/api/support/tickets/"+first+"/close", nil), http.StatusOK)
	res := staff.do(http.MethodPost, "/api/support/tickets/"+first+"/reply", map[string]string{"message": "Late"})
	expect(t, res, http.StatusConflict)
	if got := decodeError(t, res).Message; got != "This ticket is closed." {
		t.Fatalf("reply to a closed ticket: %q", got)
	}
	expect(t, staff.do(http.MethodPost, "/api/support/tickets/"+first+"/close", nil), http.StatusConflict)
	expect(t, staff.do(http.MethodPost, "/api/support/tickets/not-a-ticket/reply", map[string]string{"message": "x"}), http.StatusNotFound)
	expect(t, staff.do(http.MethodPost, "/api/support/tickets/0191f3c2-0000-7000-8000-000000000000/reply",
		map[string]string{"message": "x"}), http.StatusNotFound)
	expect(t, investor.do(http.MethodPost, "/api/support/tickets/"+second+"/reply", map[string]string{"message": "x"}), http.StatusForbidden)
	if n := len(a.MailsTo(t, "ada@example.com", "support")); n != 1 {
		t.Fatalf("%d reply e-mails, want 1", n)
	}
}

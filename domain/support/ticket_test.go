package support_test

import (
	"strings"
	"testing"
	"time"

	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/support"
)

var (
	at      = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	tickets = aggregatetest.For(support.New)
	opened  = support.Opened{Name: "Ada", Email: "ada@example.com", Message: "How do I deposit?", At: at}
)

func TestOpenTrimsAndRecordsTheRequest(t *testing.T) {
	t.Parallel()
	tickets.Given().
		When(func(tk *support.Ticket) error {
			return tk.Open(support.Request{Name: "  Ada ", Email: " ada@example.com", Message: "How do I deposit?\n"}, at)
		}).
		Then(t, opened)
}

func TestOpenRefusesBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		req  support.Request
		want error
	}{
		{"name missing", support.Request{Email: "a@example.com", Message: "hi"}, support.ErrAllFields},
		{"blank message", support.Request{Name: "A", Email: "a@example.com", Message: "   "}, support.ErrAllFields},
		{"email missing", support.Request{Name: "A", Message: "hi"}, support.ErrAllFields},
		{"invalid email", support.Request{Name: "A", Email: "not-an-address", Message: "hi"}, support.ErrInvalidEmail},
		{"name too long", support.Request{Name: strings.Repeat("n", 101), Email: "a@example.com", Message: "hi"}, support.ErrNameTooLong},
		{"a name with a zero-width space", support.Request{Name: "A\u200b", Email: "a@example.com", Message: "m"}, support.ErrNameInvisible},
		{"a name on two lines", support.Request{Name: "A\nB", Email: "a@example.com", Message: "m"}, support.ErrNameInvisible},
		{"a message with a carriage return", support.Request{Name: "A", Email: "a@example.com", Message: "m\rforged"}, support.ErrMessageInvisible},
		{"a message with a bidi override", support.Request{Name: "A", Email: "a@example.com", Message: "m\u202e"}, support.ErrMessageInvisible},
		{"message too long", support.Request{Name: "A", Email: "a@example.com", Message: strings.Repeat("é", 5001)}, support.ErrMessageTooLong},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tickets.Given().When(func(tk *support.Ticket) error { return tk.Open(c.req, at) }).ThenError(t, c.want)
		})
	}
}

func TestMessageAtTheLimitIsAccepted(t *testing.T) {
	t.Parallel()
	msg := strings.Repeat("é", support.MaxMessageRunes)
	tickets.Given().
		When(func(tk *support.Ticket) error {
			return tk.Open(support.Request{Name: "A", Email: "a@example.com", Message: msg}, at)
		}).
		Then(t, support.Opened{Name: "A", Email: "a@example.com", Message: msg, At: at})
}

func TestOpenTwiceIsAConflict(t *testing.T) {
	t.Parallel()
	tickets.Given(opened).
		When(func(tk *support.Ticket) error {
			return tk.Open(support.Request{Name: "B", Email: "b@example.com", Message: "x"}, at)
		}).
		ThenError(t, support.ErrAlreadyOpened)
}

func TestReply(t *testing.T) {
	t.Parallel()
	later := at.Add(time.Hour)
	replied := support.Replied{StaffID: "staff-1", Message: "Send it to the address shown.", At: later}
	tickets.Given(opened).
		When(func(tk *support.Ticket) error { return tk.Reply("staff-1", " Send it to the address shown. ", later) }).
		Then(t, replied)
	// A follow-up on an answered ticket is allowed.
	tickets.Given(opened, replied).
		When(func(tk *support.Ticket) error { return tk.Reply("staff-2", "Anything else?", later) }).
		Then(t, support.Replied{StaffID: "staff-2", Message: "Anything else?", At: later})
	tickets.Given(opened).
		When(func(tk *support.Ticket) error { return tk.Reply("staff-1", "  ", later) }).
		ThenError(t, support.ErrReplyRequired)
	tickets.Given(opened).
		When(func(tk *support.Ticket) error { return tk.Reply("staff-1", strings.Repeat("x", 5001), later) }).
		ThenError(t, support.ErrReplyTooLong)
	tickets.Given(opened).
		When(func(tk *support.Ticket) error { return tk.Reply("staff-1", "fine\u202e", later) }).
		ThenError(t, support.ErrReplyInvisible)
	tickets.Given().
		When(func(tk *support.Ticket) error { return tk.Reply("staff-1", "hello", later) }).
		ThenError(t, support.ErrNotFound)
}

func TestClosedTicketTakesNothingMore(t *testing.T) {
	t.Parallel()
	closed := support.Closed{StaffID: "staff-1", At: at.Add(time.Hour)}
	tickets.Given(opened).
		When(func(tk *support.Ticket) error { return tk.Close("staff-1", at.Add(time.Hour)) }).
		Then(t, closed)
	tickets.Given(opened, closed).
		When(func(tk *support.Ticket) error { return tk.Reply("staff-1", "late", at) }).
		ThenError(t, support.ErrClosed)
	tickets.Given(opened, closed).
		When(func(tk *support.Ticket) error { return tk.Close("staff-1", at) }).
		ThenError(t, support.ErrClosed)
}

func TestStatusFollowsTheEvents(t *testing.T) {
	t.Parallel()
	tk := support.New()
	if tk.Opened() {
		t.Fatal("a new ticket is not opened")
	}
	if err := tk.Open(support.Request{Name: "A", Email: "a@example.com", Message: "m"}, at); err != nil {
		t.Fatal(err)
	}
	if tk.Status() != support.StatusOpen {
		t.Fatalf("status %q, want open", tk.Status())
	}
	if err := tk.Reply("s", "r", at); err != nil {
		t.Fatal(err)
	}
	if tk.Status() != support.StatusAnswered || len(tk.Replies()) != 1 {
		t.Fatalf("status %q with %d replies, want answered with 1", tk.Status(), len(tk.Replies()))
	}
}

package tickets_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/app/apptest"
	"clearvest/domain/support"
	"clearvest/projections"
	"clearvest/projections/tickets"
)

// TestTicketsQueue: open tickets first, then answered, then closed, each oldest first, with the
// personal fields decoded from their sealed form and the last reply.
func TestTicketsQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.NewIdentityApp(t)
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	do := func(id string, decide func(*support.Ticket) error) { t.Helper(); a.DoTicket(t, id, decide) }
	ids := make([]string, 3)
	for i := range ids {
		ids[i] = uuid.NewString()
		do(ids[i], func(tk *support.Ticket) error {
			return tk.Open(support.Request{Name: "Writer", Email: "writer@example.com", Message: "Question " + string(rune('A'+i))},
				at.Add(time.Duration(i)*time.Hour))
		})
	}
	do(ids[0], func(tk *support.Ticket) error { return tk.Reply("staff-1", "Answer A", at.Add(5*time.Hour)) })
	do(ids[1], func(tk *support.Ticket) error { return tk.Close("staff-1", at.Add(6*time.Hour)) })

	// Personal fields are sealed in the log itself.
	var stored string
	if err := a.Pool.QueryRow(ctx, `SELECT data->>'email' FROM events WHERE stream_id = $1 AND version = 1`, "ticket-"+ids[0]).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == "writer@example.com" {
		t.Fatal("the e-mail address is stored in the clear")
	}

	r := a.Runner(t, []projections.Projection{tickets.New(a.Codec)})
	a.CatchUp(t, r)
	list, err := tickets.List(ctx, a.Pool, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("%d tickets, want 3", len(list))
	}
	want := []struct {
		id      string
		status  support.Status
		replies int
	}{{ids[2], support.StatusOpen, 0}, {ids[0], support.StatusAnswered, 1}, {ids[1], support.StatusClosed, 0}}
	for i, w := range want {
		got := list[i]
		if got.ID != w.id || got.Status != w.status || got.Replies != w.replies || got.Email != "writer@example.com" {
			t.Errorf("ticket %d: %+v, want %+v", i, got, w)
		}
	}
	if list[1].LastReply != "Answer A" || list[1].LastReplyAt == nil || list[2].ClosedAt == nil {
		t.Errorf("reply or closing not recorded: %+v / %+v", list[1], list[2])
	}
}

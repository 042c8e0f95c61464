package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	appbroadcast "clearvest/app/broadcast"
	"clearvest/app/command"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/platform/auth/ratelimit"
	"clearvest/projections"
)

// newEmailApp is the API with staff e-mail, configured by cfg (public URL filled in).
func newEmailApp(t *testing.T, cfg appbroadcast.Config) *app {
	t.Helper()
	return newEmailAppWith(t, cfg, func(s *accounts.Service) appbroadcast.Automated { return s })
}

// newEmailAppWith is newEmailApp whose automated messages come from auto's answer for the
// accounts service.
func newEmailAppWith(t *testing.T, cfg appbroadcast.Config, auto func(*accounts.Service) appbroadcast.Automated) *app {
	t.Helper()
	env := accountstest.New(t, accountstest.WithReadModels(func(*eventstore.Registry) []projections.Projection { return nil },
		appbroadcast.Migrations))
	cfg.PublicURL = accountstest.PublicURL
	svc, err := appbroadcast.New(cfg, appbroadcast.Deps{Pool: env.Pool, Commands: env.Commands, Sender: env.Sender,
		Clock: env.Clock, Logger: slog.New(slog.DiscardHandler), Automated: auto(env.Accounts)})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, env, func(d *api.Deps) { d.Broadcast = svc })
}

type broadcastJSON struct {
	ID         string `json:"id"`
	AuthorID   string `json:"authorId"`
	AuthorName string `json:"authorName"`
	Audience   struct {
		Kind   string `json:"kind"`
		Role   string `json:"role"`
		UserID string `json:"userId"`
	} `json:"audience"`
	Subject    string `json:"subject"`
	Template   string `json:"template"`
	Recipients int    `json:"recipients"`
	Sent       int    `json:"sent"`
	Failed     int    `json:"failed"`
	Pending    int    `json:"pending"`
	Cancelled  int    `json:"cancelled"`
	Status     string `json:"status"`
}

type composeJSON struct {
	Message    string `json:"message"`
	Recipients int    `json:"recipients"`
	Preview    *struct {
		Subject, HTML, Text string
	} `json:"preview"`
	Broadcast *broadcastJSON `json:"broadcast"`
}

// person creates an account straight in the service (no sign-in) and returns its id.
func person(t *testing.T, a *app, name, email, role string, verified bool) string {
	t.Helper()
	u, err := a.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: name, Email: email, Password: testPassword, Role: role, Verified: verified})
	if err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	return u.ID
}

func compose(audience map[string]string, subject, body string, preview bool) map[string]any {
	return map[string]any{"audience": audience, "subject": subject, "body": body, "preview": preview}
}

// recipientsOf lists who got a message with subject, sorted.
func recipientsOf(t *testing.T, a *app, subject string) []string {
	t.Helper()
	var out []string
	for _, m := range a.Mails(t) {
		if m.Subject == subject {
			out = append(out, strings.Trim(strings.ToLower(m.To), "<>"))
		}
	}
	sort.Strings(out)
	return out
}

// TestComposedEmailAudiencesPreviewAndRecord: each audience resolves from the user base, closed
// accounts and (for role and everyone) unverified addresses left out; the preview sends nothing;
// a send is recorded with its author and arrives once per recipient, also when repeated with
// its key; investors may not send.
func TestComposedEmailAudiencesPreviewAndRecord(t *testing.T) {
	t.Parallel()
	a := newEmailApp(t, appbroadcast.Config{Pace: -1})
	ctx := context.Background()
	staff, staffUser := a.member(t, "author@example.com", "author")
	admin, adminUser := a.member(t, "admin@example.com", "admin")
	investor, _ := a.member(t, "investor@example.com", "subscriber")
	ada := person(t, a, "Ada", "ada@example.com", "subscriber", true)
	person(t, a, "Ben", "ben@example.com", "subscriber", false) // unverified
	gone := person(t, a, "Cleo", "cleo@example.com", "subscriber", true)
	if _, err := a.Accounts.Close(ctx, accounts.Actor{UserID: adminUser.ID, Role: identity.RoleAdmin}, gone); err != nil {
		t.Fatal(err)
	}
	a.CatchUp(t)

	body := "Hello **all**,\n\n<script>alert(1)</script>[site](javascript:alert(2))"
	expect(t, investor.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "verified"}, "News", body, true)), http.StatusForbidden)
	expect(t, investor.do(http.MethodGet, "/api/email/broadcasts", nil), http.StatusForbidden)
	expect(t, investor.do(http.MethodPost, "/api/email/sendAutomatedEmail", map[string]string{"userId": ada, "template": "verification"}), http.StatusForbidden)

	// Preview: the message as it will arrive and the count, nothing stored or sent.
	res := staff.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "role", "role": "subscriber"}, "News", body, true))
	expect(t, res, http.StatusOK)
	p := decodeJSON[composeJSON](t, res)
	if p.Recipients != 2 || p.Preview == nil || p.Broadcast != nil || !strings.Contains(p.Preview.HTML, "<strong>all</strong>") ||
		strings.Contains(p.Preview.HTML, "<script") || strings.Contains(p.Preview.HTML, "javascript:") || p.Preview.Subject != "News" {
		t.Fatalf("preview %+v", p)
	}
	if got := recipientsOf(t, a, "News"); len(got) != 0 {
		t.Fatalf("a preview sent %v", got)
	}

	for _, tc := range []struct {
		audience map[string]string
		subject  string
		want     []string
	}{
		{map[string]string{"kind": "verified"}, "To everyone", []string{"ada@example.com", "admin@example.com", "author@example.com", "investor@example.com"}},
		{map[string]string{"kind": "role", "role": "subscriber"}, "To investors", []string{"ada@example.com", "investor@example.com"}},
		{map[string]string{"kind": "role", "role": "admin"}, "To admins", []string{"admin@example.com"}},
		{map[string]string{"kind": "user", "userId": ada}, "To Ada", []string{"ada@example.com"}},
	} {
		res := admin.do(http.MethodPost, "/api/users/sendComposedEmail", compose(tc.audience, tc.subject, "Text for *you*", false))
		expect(t, res, http.StatusOK)
		c := decodeJSON[composeJSON](t, res)
		if c.Broadcast == nil || c.Broadcast.AuthorID != adminUser.ID || c.Broadcast.Recipients != len(tc.want) || c.Broadcast.Subject != tc.subject {
			t.Fatalf("%s: answer %+v", tc.subject, c.Broadcast)
		}
		if got := recipientsOf(t, a, tc.subject); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Fatalf("%s went to %v, want %v", tc.subject, got, tc.want)
		}
	}
	// A closed account or an unknown id is no audience.
	expect(t, admin.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "user", "userId": gone}, "Gone", "x", false)), http.StatusUnprocessableEntity)
	expect(t, admin.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "role", "role": "owner"}, "x", "x", false)), http.StatusBadRequest)
	expect(t, admin.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "verified"}, " ", "x", false)), http.StatusBadRequest)

	// The same request with the same key is answered again and mails no one twice.
	staff.header.Set("Idempotency-Key", "compose-once")
	first := staff.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "user", "userId": ada}, "Once", "Only once", false))
	again := staff.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "user", "userId": ada}, "Once", "Only once", false))
	other := staff.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "user", "userId": ada}, "Once", "Another text", false))
	staff.header.Del("Idempotency-Key")
	expect(t, first, http.StatusOK)
	expect(t, again, http.StatusOK)
	expect(t, other, http.StatusUnprocessableEntity)
	if again.header.Get("Idempotency-Hit") != "true" || decodeJSON[composeJSON](t, again).Broadcast.ID != decodeJSON[composeJSON](t, first).Broadcast.ID {
		t.Fatalf("replay %s", again.body)
	}
	if got := recipientsOf(t, a, "Once"); len(got) != 1 {
		t.Fatalf("sent %d times", len(got))
	}

	// Recorded: each send as a broadcast stream naming its author, and in the list.
	var streams int
	if err := a.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'broadcast.started' AND metadata->>'actorId' = $1
		AND data->>'authorId' = $1`, adminUser.ID).Scan(&streams); err != nil || streams != 4 {
		t.Fatalf("%d broadcast.started events by the admin (%v), want 4", streams, err)
	}
	res = staff.do(http.MethodGet, "/api/email/broadcasts", nil)
	expect(t, res, http.StatusOK)
	var list struct {
		Broadcasts   []broadcastJSON `json:"broadcasts"`
		LimitPerHour int             `json:"limitPerHour"`
	}
	if err := json.Unmarshal(res.body, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Broadcasts) != 5 || list.Broadcasts[0].Subject != "Once" || list.Broadcasts[0].AuthorName != "Test author" ||
		list.Broadcasts[1].Subject != "To Ada" || list.Broadcasts[4].Sent != 4 || list.Broadcasts[4].Status != "done" || list.LimitPerHour != 5 {
		t.Fatalf("list %+v", list)
	}
	_ = staffUser
}

// TestComposedEmailLimitAndCancel: a staff member's sends are limited (429 with its reason and
// Retry-After); a paced send can be cancelled, and what was still waiting never goes out.
func TestComposedEmailLimitAndCancel(t *testing.T) {
	t.Parallel()
	a := newEmailApp(t, appbroadcast.Config{Pace: time.Hour, PerStaff: ratelimit.Rule{Limit: 2, Window: time.Hour}})
	staff, _ := a.member(t, "author@example.com", "author")
	other, _ := a.member(t, "author2@example.com", "author")
	id := pacedSend(t, a, staff, "Paced")
	res := staff.do(http.MethodGet, "/api/email/broadcasts/"+id, nil)
	expect(t, res, http.StatusOK)
	if b := decodeJSON[broadcastJSON](t, res); b.Sent != 1 || b.Pending != 2 || b.Status != "sending" {
		t.Fatalf("progress %+v", b)
	}

	res = other.do(http.MethodPost, "/api/email/broadcasts/"+id+"/cancel", nil)
	expect(t, res, http.StatusOK)
	c := decodeJSON[composeJSON](t, res)
	if b := c.Broadcast; b.Sent != 1 || b.Pending != 0 || b.Cancelled != 2 || b.Status != "cancelled" {
		t.Fatalf("after cancelling %+v", b)
	}
	var withdrawn int
	if err := a.Pool.QueryRow(context.Background(), `SELECT (data->>'withdrawn')::int FROM events WHERE type = 'broadcast.cancelled'
		AND stream_id = 'broadcast-' || $1`, id).Scan(&withdrawn); err != nil || withdrawn != 2 {
		t.Fatalf("cancelled event: withdrawn %d (%v)", withdrawn, err)
	}
	if _, err := a.Pool.Exec(context.Background(), `UPDATE mail_outbox SET next_attempt_at = now() - interval '1 second' WHERE status = 'pending'`); err != nil {
		t.Fatal(err)
	}
	if got := recipientsOf(t, a, "Paced"); len(got) != 1 {
		t.Fatalf("after cancelling, sent to %v", got)
	}
	expect(t, other.do(http.MethodPost, "/api/email/broadcasts/"+id+"/cancel", nil), http.StatusConflict)
	expect(t, other.do(http.MethodPost, "/api/email/broadcasts/0191f3c2-0000-7000-8000-000000000000/cancel", nil), http.StatusNotFound)

	expect(t, staff.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "verified"}, "Second", "x", false)), http.StatusOK)
	res = staff.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "verified"}, "Third", "x", false))
	expect(t, res, http.StatusTooManyRequests)
	if msg := decodeError(t, res).Message; !strings.Contains(msg, "at most 2 e-mails per hour") || res.header.Get("Retry-After") == "" {
		t.Fatalf("429 %q, Retry-After %q", msg, res.header.Get("Retry-After"))
	}
	if got := recipientsOf(t, a, "Third"); len(got) != 0 {
		t.Fatalf("a refused send went to %v", got)
	}
	// Another staff member has their own limit.
	expect(t, other.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "verified"}, "Third", "x", false)), http.StatusOK)
}

// pacedSend adds three subscribers to a, sends them a composed e-mail from staff at one an hour
// (the app's pace), and returns the send's id once the first, due at once, has gone out; the
// other two wait.
func pacedSend(t *testing.T, a *app, staff *client, subject string) string {
	t.Helper()
	for _, e := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		person(t, a, "P "+e, e, "subscriber", true)
	}
	a.CatchUp(t)
	res := staff.do(http.MethodPost, "/api/users/sendComposedEmail", compose(map[string]string{"kind": "role", "role": "subscriber"}, subject, "One an hour", false))
	expect(t, res, http.StatusOK)
	id := decodeJSON[composeJSON](t, res).Broadcast.ID
	if got := recipientsOf(t, a, subject); len(got) != 1 {
		t.Fatalf("sent %v at once, want the first only", got)
	}
	return id
}

// TestCancelWhileASenderClaimsAMessage: a cancellation counts the messages still waiting, then
// withdraws them in the round trip that records it. When a sender claims one of them in between,
// the withdrawal takes fewer than the event would record, so the whole cancellation is refused
// with a 409 and nothing of it stays; tried again, it withdraws what is left. The sender's claim
// is staged on a row lock: the withdrawal waits on the locked message, which is claimed and
// released once the cancellation is seen waiting.
func TestCancelWhileASenderClaimsAMessage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newEmailApp(t, appbroadcast.Config{Pace: time.Hour})
	staff, _ := a.member(t, "author@example.com", "author")
	id := pacedSend(t, a, staff, "Raced")
	batch := "broadcast/" + id

	tx, err := a.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	var claimed string
	if err := tx.QueryRow(ctx, `SELECT dedupe_key FROM mail_outbox WHERE batch = $1 AND status = 'pending' AND claim IS NULL
		ORDER BY dedupe_key LIMIT 1 FOR UPDATE`, batch).Scan(&claimed); err != nil {
		t.Fatal(err)
	}
	done := make(chan response, 1)
	go func() {
		var r response
		defer func() { done <- r }() // also when do fails the test from this goroutine
		r = staff.do(http.MethodPost, "/api/email/broadcasts/"+id+"/cancel", nil)
	}()
	// The cancellation has counted two and waits on the locked message.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := a.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%mail_withdraw_batch%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("the cancellation answered %d without waiting for the locked message", r.status)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancellation never waited for the locked message")
		}
		runtime.Gosched()
	}
	if _, err := tx.Exec(ctx, `UPDATE mail_outbox SET claim = gen_random_uuid() WHERE dedupe_key = $1`, claimed); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	res := <-done
	expect(t, res, http.StatusConflict)
	if msg := decodeError(t, res).Message; !strings.Contains(msg, "being sent while cancelling") {
		t.Fatalf("409 %q", msg)
	}
	var cancelled, waitingNow int
	if err := a.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'broadcast.cancelled' AND stream_id = 'broadcast-' || $1`, id).Scan(&cancelled); err != nil {
		t.Fatal(err)
	}
	if err := a.Pool.QueryRow(ctx, `SELECT count(*) FROM mail_outbox WHERE batch = $1 AND status = 'pending' AND claim IS NULL`, batch).Scan(&waitingNow); err != nil {
		t.Fatal(err)
	}
	if cancelled != 0 || waitingNow != 1 {
		t.Fatalf("after the refused cancellation: %d cancellation events, %d messages waiting; want none and 1", cancelled, waitingNow)
	}

	res = staff.do(http.MethodPost, "/api/email/broadcasts/"+id+"/cancel", nil)
	expect(t, res, http.StatusOK)
	if b := decodeJSON[composeJSON](t, res).Broadcast; b.Cancelled != 1 || b.Status != "cancelled" {
		t.Fatalf("cancelled again: %+v, want the one message left withdrawn", b)
	}
}

// TestAutomatedEmail: staff send the verification e-mail again to an unverified user and a
// reset link to anyone active, recorded like a composed send; other templates, verified
// addresses and closed accounts are refused.
func TestAutomatedEmail(t *testing.T) {
	t.Parallel()
	a := newEmailApp(t, appbroadcast.Config{Pace: -1})
	staff, _ := a.member(t, "author@example.com", "author")
	ben := person(t, a, "Ben", "ben@example.com", "subscriber", false)
	ada := person(t, a, "Ada", "ada@example.com", "subscriber", true)
	a.CatchUp(t)

	res := staff.do(http.MethodPost, "/api/email/sendAutomatedEmail", map[string]string{"userId": ben, "template": "verification"})
	expect(t, res, http.StatusOK)
	if b := decodeJSON[composeJSON](t, res).Broadcast; b == nil || b.Template != "verification" || b.Recipients != 1 || b.Audience.UserID != ben {
		t.Fatalf("answer %s", res.body)
	}
	if link := a.LatestLink(t, "ben@example.com", "/verify/"); link == "" {
		t.Fatal("no verification link")
	}
	expect(t, staff.do(http.MethodPost, "/api/email/sendAutomatedEmail", map[string]string{"userId": ada, "template": "verification"}), http.StatusConflict)
	expect(t, staff.do(http.MethodPost, "/api/email/sendAutomatedEmail", map[string]string{"userId": ada, "template": "password_reset"}), http.StatusOK)
	if link := a.LatestLink(t, "ada@example.com", "/resetPassword/"); link == "" {
		t.Fatal("no reset link")
	}
	expect(t, staff.do(http.MethodPost, "/api/email/sendAutomatedEmail", map[string]string{"userId": ada, "template": "deposit_confirmed"}), http.StatusBadRequest)
	expect(t, staff.do(http.MethodPost, "/api/email/sendAutomatedEmail", map[string]string{"userId": "0191f3c2-0000-7000-8000-000000000000", "template": "password_reset"}), http.StatusUnprocessableEntity)
}

// raced is the accounts service whose resends are followed, before their command, by what
// meanwhile does.
type raced struct {
	*accounts.Service
	meanwhile func()
}

func (r raced) PrepareAutomated(ctx context.Context, userID, template, batch string) (func(*command.Writes), error) {
	queue, err := r.Service.PrepareAutomated(ctx, userID, template, batch)
	if err == nil {
		r.meanwhile()
	}
	return queue, err
}

// TestAutomatedEmailWithinTheCooldown: a link of the same kind made less than a minute before
// refuses a resend, whether it was made before the resend (the verification e-mail: 429 with
// the wait; the reset link: 409) or by the user's own request between the resend's making and
// its command, which then stores nothing: no send, no second link.
func TestAutomatedEmailWithinTheCooldown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var cy func()
	a := newEmailAppWith(t, appbroadcast.Config{Pace: -1, PerStaff: ratelimit.Rule{Limit: 20, Window: time.Hour}},
		func(s *accounts.Service) appbroadcast.Automated {
			return raced{Service: s, meanwhile: func() {
				if cy != nil {
					cy()
				}
			}}
		})
	staff, _ := a.member(t, "author@example.com", "author")
	ben := person(t, a, "Ben", "ben@example.com", "subscriber", false)
	ada := person(t, a, "Ada", "ada@example.com", "subscriber", true)
	cyID := person(t, a, "Cy", "cy@example.com", "subscriber", true)
	a.CatchUp(t)
	send := func(userID, template string) response {
		return staff.do(http.MethodPost, "/api/email/sendAutomatedEmail", map[string]string{"userId": userID, "template": template})
	}

	expect(t, send(ben, "verification"), http.StatusOK)
	res := send(ben, "verification")
	expect(t, res, http.StatusTooManyRequests)
	if msg := decodeJSON[struct{ Message string }](t, res).Message; msg != "Please wait 60 seconds before requesting a new code." {
		t.Errorf("second verification e-mail: %q", msg)
	}
	expect(t, send(ada, "password_reset"), http.StatusOK)
	res = send(ada, "password_reset")
	expect(t, res, http.StatusConflict)
	if msg := decodeJSON[struct{ Message string }](t, res).Message; msg != accounts.ErrResendRecentLink.Error() {
		t.Errorf("second reset link: %q", msg)
	}

	cy = func() {
		cy = nil
		if err := a.Accounts.ForgotPassword(ctx, "cy@example.com", accounts.Client{}); err != nil {
			t.Error(err)
		}
	}
	res = send(cyID, "password_reset")
	expect(t, res, http.StatusConflict)
	if msg := decodeJSON[struct{ Message string }](t, res).Message; msg != accounts.ErrResendRecentLink.Error() {
		t.Errorf("reset link raced by the user's own request: %q", msg)
	}
	var sends int
	if err := a.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'broadcast.started'`).Scan(&sends); err != nil || sends != 2 {
		t.Fatalf("%d sends recorded (%v), want 2: the refused ones store nothing", sends, err)
	}
	if n := len(a.MailsTo(t, "cy@example.com", "")); n != 1 {
		t.Fatalf("%d e-mails to Cy, want 1: their own reset link", n)
	}
}

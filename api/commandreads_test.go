package api_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"clearvest/api"
	"clearvest/api/middleware"
)

// Commands read the event store, not the read models (docs/architecture.md, "Read-your-writes").
// These tests hold the read models back on purpose, so a command that still read them would
// fail every time, not once in a while.

// holdReadModels keeps the read models from applying anything to tables until the returned
// function (or the end of the test) releases them: an EXCLUSIVE lock blocks their writes and
// lets reads through, as a read model that is merely behind does.
func holdReadModels(t *testing.T, a *app, tables ...string) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := a.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE `+strings.Join(tables, ", ")+` IN EXCLUSIVE MODE`); err != nil {
		_ = tx.Rollback(ctx)
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			_ = tx.Rollback(ctx)
		}
	}
	t.Cleanup(release)
	return release
}

func TestTestimonialIsDecidedOnTheStreamsWhileTheReadModelsLag(t *testing.T) {
	t.Parallel()
	a := newCommunityApp(t, 1)
	// An investor with an approved identity check, but no deposit yet.
	investor, _ := a.investor(t, "grace@example.com", "")
	release := holdReadModels(t, a.app, "rm_users.users", "rm_activity.people")

	// A member signed up a moment ago, unknown to the users read model: refused for what they
	// are (no confirmed deposit), not answered "User not found".
	newcomer, _ := a.member(t, "new@example.com", "subscriber")
	res := newcomer.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience})
	expect(t, res, http.StatusUnprocessableEntity)
	if msg := errorMessage(t, res); !strings.Contains(msg, "verified investors") {
		t.Errorf("newcomer: %q", msg)
	}

	// A deposit confirmed a moment ago makes the investor eligible at once, though the read
	// models have not seen it.
	d := createUSDT(t, investor, "400", "")
	expect(t, a.staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "400"}), http.StatusOK)
	expect(t, investor.do(http.MethodPost, "/api/testimonials", map[string]string{"text": experience}), http.StatusCreated)

	release()
	a.staff.position = max(a.staff.position, investor.position)
	if queue := decodeJSON[testimonialsJSON](t, a.staff.do(http.MethodGet, "/api/testimonials/pending", nil)); len(queue.Testimonials) != 1 {
		t.Fatalf("queue once the read models caught up: %+v", queue)
	}
}

// signInFromNewBrowser signs email in on a, as a browser that never sent a command does, and
// returns the answer of the code step, the one that carries the user.
func signInFromNewBrowser(t *testing.T, a *app, email string) response {
	t.Helper()
	b := a.browser(t)
	expect(t, b.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": testPassword}), http.StatusAccepted)
	return b.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": a.LatestCode(t, email, "sign-in code")})
}

func TestSignInAnswerWaitsForTheUsersOwnLatestMoneyEvent(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.investor(t, "ivy@example.com", "123.45")
	confirmed := a.staff.position // the confirmation, the last event of Ivy's money stream

	gate := &gateWaiter{asked: make(chan int64, 1), release: make(chan struct{})}
	waiting := serve(t, a.Env, func(d *api.Deps) { d.Money, d.ReadYourWrites = a.money, gate })
	done := make(chan response, 1)
	go func() { done <- signInFromNewBrowser(t, waiting, "ivy@example.com") }()

	select {
	case got := <-gate.asked:
		if got != confirmed {
			t.Fatalf("waited for position %d, want the confirmation's %d", got, confirmed)
		}
	case res := <-done:
		t.Fatalf("answered (%d) without waiting for the read models: %s", res.status, res.body)
	}
	select {
	case res := <-done:
		t.Fatalf("answered (%d) before the read models passed the confirmation", res.status)
	default:
	}
	a.CatchUp(t) // what the real waiter waits for
	close(gate.release)

	res := <-done
	expect(t, res, http.StatusOK)
	if got := decodeJSON[balancesJSON](t, res); got.Balance != "123.45" {
		t.Fatalf("sign-in answer: %s", res.body)
	}
	if got := res.header.Get(middleware.HeaderStale); got != "" {
		t.Errorf("%s = %q after a successful wait", middleware.HeaderStale, got)
	}
	// The client's next queries wait at least as far.
	if p, err := strconv.ParseInt(res.header.Get(middleware.HeaderPosition), 10, 64); err != nil || p < confirmed {
		t.Errorf("%s = %q, want at least %d", middleware.HeaderPosition, res.header.Get(middleware.HeaderPosition), confirmed)
	}
}

func TestSignInAnswerIsMarkedStaleWhenTheFiguresCannotBeWaitedFor(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.investor(t, "ivy@example.com", "123.45")
	confirmed := a.staff.position
	waiter := &recordingWaiter{err: context.DeadlineExceeded}
	waiting := serve(t, a.Env, func(d *api.Deps) { d.Money, d.ReadYourWrites = a.money, waiter })

	// Signing in still works; the figures say they may be old.
	res := signInFromNewBrowser(t, waiting, "ivy@example.com")
	expect(t, res, http.StatusOK)
	if got := res.header.Get(middleware.HeaderStale); got != "true" {
		t.Errorf("%s = %q, want true", middleware.HeaderStale, got)
	}
	if n, last := waiter.calls.Load(), waiter.last.Load(); n != 1 || last != confirmed {
		t.Errorf("waiter called %d times, last at %d; want once at %d", n, last, confirmed)
	}

	// A user without money has nothing to wait for.
	a.member(t, "ned@example.com", "subscriber")
	res = signInFromNewBrowser(t, waiting, "ned@example.com")
	expect(t, res, http.StatusOK)
	if got := res.header.Get(middleware.HeaderStale); got != "" || waiter.calls.Load() != 1 {
		t.Errorf("without money: %s = %q, waiter called %d times; want no wait", middleware.HeaderStale, got, waiter.calls.Load())
	}
}

// A sign-up finds a referrer who signed up a moment ago, though the users read model has not
// seen them: the code is looked up on the write side. An unknown code creates nothing.
func TestSignUpFindsAReferrerTheReadModelHasNotSeen(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	release := holdReadModels(t, a, "rm_users.users")
	register := func(email, code string) response {
		return a.browser(t).do(http.MethodPost, "/api/users/register", map[string]any{
			"name": "Test Person", "email": email, "password": testPassword, "confirmPassword": testPassword,
			"phone": "+44 20 7946 0018", "country": "United Kingdom", "referralCode": code, "acceptTerms": true,
		})
	}
	res := register("rita@example.com", "")
	expect(t, res, http.StatusCreated)
	rita := decodeJSON[struct {
		ID           string `json:"_id"`
		ReferralCode string `json:"referralCode"`
	}](t, res)

	// Retyped in lower case with spaces, as people do.
	res = register("nico@example.com", " "+strings.ToLower(rita.ReferralCode)+" ")
	expect(t, res, http.StatusCreated)
	nico := decodeUser(t, res)
	if n := a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'user.registered' AND data->>'referredBy' = $2`,
		"user-"+nico.ID, rita.ID); n != 1 {
		t.Fatalf("the newcomer's sign-up does not name the referrer %s", rita.ID)
	}

	res = register("olga@example.com", "NOSUCHCO")
	if res.status != http.StatusBadRequest || errorMessage(t, res) != "Invalid referral code" {
		t.Fatalf("an unknown code: %d %s, want 400 Invalid referral code", res.status, res.body)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'user.registered'`); n != 2 {
		t.Fatalf("%d sign-ups recorded, want 2: the refused one created something", n)
	}
	release()
}

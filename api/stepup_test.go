package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"clearvest/app/accounts/accountstest"
	"clearvest/app/plans"
	"clearvest/domain/clock"
	"clearvest/eventstore"
	"clearvest/platform/auth/totp"
)

type stepUpError struct {
	Message         string     `json:"message"`
	Code            string     `json:"code"`
	Field           string     `json:"field"`
	Until           *time.Time `json:"until"`
	WithdrawalQuote *struct {
		Amount, Fee, Receives, Minimum, Schedule string
	} `json:"withdrawalQuote"`
	InvestmentQuote *struct {
		Plan        string `json:"plan"`
		PlanVersion int    `json:"planVersion"`
		Amount      string `json:"amount"`
		TermRate    string `json:"termRate"`
		Return      string `json:"return"`
		Payout      string `json:"payout"`
	} `json:"investmentQuote"`
}

func decodeStepUpError(t *testing.T, r response, status int) stepUpError {
	t.Helper()
	expect(t, r, status)
	var e stepUpError
	if err := json.Unmarshal(r.body, &e); err != nil || e.Message == "" {
		t.Fatalf("body %s is not an error: %v", r.body, err)
	}
	return e
}

// newClockedMoneyApp is newMoneyApp with every service on one manual clock, ahead of the
// database's clock, which stamps the outbox rows, so that e-mails are due.
func newClockedMoneyApp(t *testing.T) (*app, *clock.Manual) {
	t.Helper()
	clk := clock.NewManual(time.Now().UTC().Add(time.Hour).Truncate(time.Second))
	return newMoneyApp(t, accountstest.WithClock(clk)), clk
}

func TestAWithdrawalNeedsAStepUpOfItsOwnSessionWithinFiveMinutes(t *testing.T) {
	t.Parallel()
	a, clk := newClockedMoneyApp(t)
	ivy, user := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, ivy, staff, "1000")
	identityApproved(t, a, ivy, staff)

	confirmed := func(c *client) bool {
		t.Helper()
		res := c.do(http.MethodGet, "/api/users/step-up", nil)
		expect(t, res, http.StatusOK)
		return decodeJSON[struct{ Confirmed bool }](t, res).Confirmed
	}
	if confirmed(ivy) {
		t.Fatal("GET /api/users/step-up says confirmed before any step-up")
	}
	// Refused before the body is read: even a malformed one gets the step-up answer.
	e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", "{not json"), http.StatusForbidden)
	if e.Code != "step_up_required" || e.Message != "Please confirm it's you to continue." {
		t.Fatalf("without a step-up: %+v", e)
	}
	e = decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "100", "TRC20", testTRONAddress)), http.StatusForbidden)
	if e.Code != "step_up_required" {
		t.Fatalf("without a step-up: %+v", e)
	}

	for _, tc := range []struct {
		body           map[string]string
		field, message string
	}{
		{map[string]string{}, "password", "Please enter your password."},
		{map[string]string{"code": "123456"}, "password", "Your account has no authenticator app, so please confirm with your password."},
		{map[string]string{"password": "not-my-password"}, "password", "That password is not correct. Please try again."},
	} {
		e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/users/step-up", tc.body), http.StatusBadRequest)
		if e.Field != tc.field || e.Message != tc.message {
			t.Errorf("%v: %+v, want %s %q", tc.body, e, tc.field, tc.message)
		}
	}
	e = decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "100", "TRC20", testTRONAddress)), http.StatusForbidden)
	if e.Code != "step_up_required" {
		t.Fatalf("after failed step-ups: %+v", e)
	}

	res := ivy.do(http.MethodPost, "/api/users/step-up", map[string]string{"password": testPassword})
	expect(t, res, http.StatusOK)
	if got := decodeJSON[struct{ ExpiresAt time.Time }](t, res); !got.ExpiresAt.Equal(clk.Now().Add(5 * time.Minute)) {
		t.Fatalf("step-up answer %s, want it to expire at %v", res.body, clk.Now().Add(5*time.Minute))
	}
	if !confirmed(ivy) {
		t.Fatal("GET /api/users/step-up says not confirmed right after the step-up")
	}
	withdraw(t, ivy, "100", "TRC20", testTRONAddress)
	// A bearer token is tied to the session it was issued for: the same session, the same
	// confirmation.
	bearer := a.apiClient(t, user.Token)
	expect(t, bearer.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, bearer, "50", "TRC20", testTRONAddress)), http.StatusOK)

	// Another session of the same person has not confirmed anything.
	other := a.browser(t)
	expect(t, other.do(http.MethodPost, "/api/users/login", map[string]string{"email": "ivy@example.com", "password": testPassword}), http.StatusAccepted)
	expect(t, other.do(http.MethodPost, "/api/users/loginWithCode/ivy@example.com",
		map[string]string{"loginCode": a.LatestCode(t, "ivy@example.com", "sign-in code")}), http.StatusOK)
	if e := decodeStepUpError(t, other.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, other, "50", "TRC20", testTRONAddress)),
		http.StatusForbidden); e.Code != "step_up_required" {
		t.Fatalf("another session: %+v", e)
	}

	clk.Advance(5*time.Minute - time.Second)
	withdraw(t, ivy, "10", "TRC20", testTRONAddress)
	clk.Advance(time.Second)
	if confirmed(ivy) || confirmed(other) {
		t.Fatal("GET /api/users/step-up says confirmed after five minutes, or for another session")
	}
	if e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "10", "TRC20", testTRONAddress)),
		http.StatusForbidden); e.Code != "step_up_required" {
		t.Fatalf("five minutes after the step-up: %+v", e)
	}
	stepUp(t, ivy)
	withdraw(t, ivy, "10", "TRC20", testTRONAddress)
}

func TestStepUpWrongPasswordsAreRateLimitedLikeSignIn(t *testing.T) {
	t.Parallel()
	a, _ := newClockedMoneyApp(t)
	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	limited := false
	for range 15 {
		res := ivy.do(http.MethodPost, "/api/users/step-up", map[string]string{"password": "guess-guess-guess"})
		if res.status == http.StatusTooManyRequests {
			limited = true
			break
		}
		expect(t, res, http.StatusBadRequest)
	}
	if !limited {
		t.Fatal("15 wrong passwords in a row were never limited")
	}
	res := ivy.do(http.MethodPost, "/api/users/step-up", map[string]string{"password": testPassword})
	expect(t, res, http.StatusTooManyRequests)
	if res.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
}

// enableTOTP turns two-factor sign-in on for c through the API and returns the app's secret.
func enableTOTP(t *testing.T, c *client, now time.Time) string {
	t.Helper()
	res := c.do(http.MethodPost, "/api/users/2fa/setup", nil)
	expect(t, res, http.StatusOK)
	secret := decodeJSON[struct{ Secret string }](t, res).Secret
	expect(t, c.do(http.MethodPost, "/api/users/2fa/enable", map[string]string{"code": codeAt(t, secret, now)}), http.StatusOK)
	return secret
}

// cooldownShownEnd is the end of the day-long cool-down after a change at changed, as investors
// are told it: rounded up to the minute, and unchanged when it already falls on one (the test
// clock starts on a whole second, so one run in sixty lands there).
func cooldownShownEnd(changed time.Time) time.Time {
	ends := changed.Add(24 * time.Hour)
	if shown := ends.Truncate(time.Minute); shown.Equal(ends) {
		return shown
	}
	return ends.Truncate(time.Minute).Add(time.Minute)
}

func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.Code(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestStepUpWithAnAuthenticatorNeedsItsCode(t *testing.T) {
	t.Parallel()
	a, clk := newClockedMoneyApp(t)
	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, ivy, staff, "1000")
	identityApproved(t, a, ivy, staff)
	enabledAt := clk.Now()
	secret := enableTOTP(t, ivy, enabledAt)
	clk.Advance(totp.Period * time.Second) // the code used to enable it cannot be used again

	for _, tc := range []struct {
		body    map[string]string
		message string
	}{
		{map[string]string{"password": testPassword}, "Your account uses an authenticator app, so please confirm with the 6-digit code from it rather than your password."},
		{map[string]string{}, "Please enter the 6-digit code from your authenticator app."},
		{map[string]string{"code": "000000"}, "That authenticator code is not valid. Please try again."},
	} {
		e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/users/step-up", tc.body), http.StatusBadRequest)
		if e.Field != "code" || e.Message != tc.message {
			t.Errorf("%v: %+v, want %q", tc.body, e, tc.message)
		}
	}
	expect(t, ivy.do(http.MethodPost, "/api/users/step-up", map[string]string{"code": codeAt(t, secret, clk.Now())}), http.StatusOK)

	// Turning two-factor on pauses withdrawals for a day.
	e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "100", "TRC20", testTRONAddress)), http.StatusForbidden)
	until := cooldownShownEnd(enabledAt)
	if e.Code != "withdrawal_cooldown" || e.Until == nil || !e.Until.Equal(until) ||
		e.Message != "For your safety, withdrawals are paused until "+until.Format("2 Jan 2006, 15:04")+" UTC because two-factor authentication was turned on." {
		t.Fatalf("after turning two-factor on: %+v, want a cool-down until %v", e, until)
	}

	// So does turning it off, from then.
	clk.Advance(10 * time.Minute) // within the access token's life
	disabledAt := clk.Now()
	expect(t, ivy.do(http.MethodPost, "/api/users/2fa/disable", map[string]string{"password": testPassword, "code": codeAt(t, secret, disabledAt)}), http.StatusOK)
	stepUp(t, ivy)
	e = decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "100", "TRC20", testTRONAddress)), http.StatusForbidden)
	if until := cooldownShownEnd(disabledAt); e.Code != "withdrawal_cooldown" || !e.Until.Equal(until) ||
		e.Message != "For your safety, withdrawals are paused until "+until.Format("2 Jan 2006, 15:04")+" UTC because two-factor authentication was turned off." {
		t.Fatalf("after turning two-factor off: %+v", e)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.withdrawal_requested'`); n != 0 {
		t.Fatalf("%d withdrawals recorded during the cool-down", n)
	}
}

func TestAPasswordChangePausesWithdrawalsForADay(t *testing.T) {
	t.Parallel()
	a, clk := newClockedMoneyApp(t)
	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, ivy, staff, "1000")
	clearedToWithdraw(t, a, ivy, staff)
	withdraw(t, ivy, "100", "TRC20", testTRONAddress)

	changedAt := clk.Now()
	const newPassword = "a-brand-new-harbour-lantern-7"
	expect(t, ivy.do(http.MethodPatch, "/api/users/changePassword",
		map[string]string{"oldPassword": testPassword, "password": newPassword, "confirmPassword": newPassword}), http.StatusOK)
	clk.Advance(time.Minute)
	expect(t, ivy.do(http.MethodPost, "/api/users/step-up", map[string]string{"password": newPassword}), http.StatusOK)
	e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "100", "TRC20", testTRONAddress)), http.StatusForbidden)
	until := cooldownShownEnd(changedAt)
	if e.Code != "withdrawal_cooldown" || e.Until == nil || !e.Until.Equal(until) ||
		e.Message != "For your safety, withdrawals are paused until "+until.Format("2 Jan 2006, 15:04")+" UTC because your password was changed." {
		t.Fatalf("after a password change: %+v, want a cool-down until %v", e, until)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.withdrawal_requested'`); n != 1 {
		t.Fatalf("%d withdrawals recorded, want the one before the change", n)
	}
}

func TestAWithdrawalNeedsAnApprovedIdentityCheck(t *testing.T) {
	t.Parallel()
	a, _ := newClockedMoneyApp(t)
	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, ivy, staff, "1000")
	stepUp(t, ivy)
	e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "100", "TRC20", testTRONAddress)), http.StatusForbidden)
	if e.Code != "identity_check_required" || e.Message != "Please complete your identity check before withdrawing." {
		t.Fatalf("without an identity check: %+v", e)
	}
	jpg := jpegFile(t)
	expect(t, uploadKYC(t, ivy, nil, front(jpg), back(jpg)), http.StatusOK)
	e = decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, ivy, "100", "TRC20", testTRONAddress)), http.StatusForbidden)
	if e.Code != "identity_check_required" || e.Message != "Your identity documents are being reviewed. You can withdraw once they are approved." {
		t.Fatalf("while the check is pending: %+v", e)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.withdrawal_requested'`); n != 0 {
		t.Fatalf("%d withdrawals recorded without an approved identity check", n)
	}
}

func TestAWithdrawalIsRefusedWhenTheFeeIsNotTheOneShown(t *testing.T) {
	t.Parallel()
	a, _ := newClockedMoneyApp(t)
	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, ivy, staff, "1000")
	clearedToWithdraw(t, a, ivy, staff)

	body := map[string]string{"amount": "100", "network": "TRC20", "walletAddress": testTRONAddress}
	e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", body), http.StatusBadRequest)
	if e.Field != "fee" {
		t.Fatalf("without the fee: %+v", e)
	}
	// The fee shown under an older schedule (1.00) is not what the schedule charges now.
	body["fee"] = "1.00"
	e = decodeStepUpError(t, ivy.do(http.MethodPost, "/api/withDraw/create", body), http.StatusConflict)
	if e.Code != "fee_changed" || e.Message != "The withdrawal fee is now $2.00, so you would receive $98.00. Please review the new figures and confirm again." ||
		e.WithdrawalQuote == nil || e.WithdrawalQuote.Amount != "100.00" || e.WithdrawalQuote.Fee != "2.00" || e.WithdrawalQuote.Receives != "98.00" ||
		e.WithdrawalQuote.Schedule != "1% + $1.00 (at most $25.00)" || e.WithdrawalQuote.Minimum != "10.00" {
		t.Fatalf("stale fee: %+v %+v", e, e.WithdrawalQuote)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.withdrawal_requested'`); n != 0 {
		t.Fatalf("%d withdrawals recorded on a stale fee", n)
	}
	if b := balances(t, ivy); b.Balance != "1000.00" {
		t.Fatalf("balance after the refusal: %+v", b)
	}
	body["fee"] = "2"
	expect(t, ivy.do(http.MethodPost, "/api/withDraw/create", body), http.StatusOK)
}

func TestAnInvestmentIsRefusedWhenThePlanChangedSinceTheQuote(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	created, err := a.plans.Create(context.Background(), eventstore.Metadata{}, plans.CreateInput{Name: "Basic", Terms: planTerms("100", "1000", 30, "0.015"), Active: true})
	if err != nil {
		t.Fatal(err)
	}
	ivy, _ := a.investor(t, "ivy@example.com", "500")
	res := ivy.do(http.MethodGet, "/api/invest/quote?planName=Basic&amount=200", nil)
	expect(t, res, http.StatusOK)
	if q := decodeJSON[struct{ PlanVersion int }](t, res); q.PlanVersion != 1 {
		t.Fatalf("quote: %s", res.body)
	}

	e := decodeStepUpError(t, ivy.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Basic", "amount": "200"}), http.StatusBadRequest)
	if e.Field != "planVersion" {
		t.Fatalf("without a version: %+v", e)
	}
	if _, err := a.plans.ChangeTerms(context.Background(), eventstore.Metadata{}, created.ID, planTerms("100", "1000", 30, "0.01")); err != nil {
		t.Fatal(err)
	}
	e = decodeStepUpError(t, ivy.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Basic", "amount": "200", "planVersion": 1}),
		http.StatusConflict)
	q := e.InvestmentQuote
	if e.Code != "plan_changed" || e.Message != "The terms of the Basic plan changed since you reviewed them. Please review the new terms and confirm again." ||
		q == nil || q.PlanVersion != 2 || q.Plan != "Basic" || q.Amount != "200.00" || q.Return != "2.00" || q.Payout != "202.00" {
		t.Fatalf("stale version: %+v %+v", e, q)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.investment_requested'`); n != 0 {
		t.Fatalf("%d investments recorded on stale terms", n)
	}
	res = ivy.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Basic", "amount": "200", "planVersion": 2})
	expect(t, res, http.StatusOK)
	if inv := decodeJSON[investmentJSON](t, res); inv.PlanVersion != 2 || inv.MaturityAmount != "2.00" {
		t.Fatalf("started: %s", res.body)
	}
}

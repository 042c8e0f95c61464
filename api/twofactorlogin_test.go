package api_test

import (
	"net/http"
	"testing"
	"time"

	"clearvest/app/accounts/accountstest"
	"clearvest/domain/clock"
	"clearvest/platform/auth/totp"
)

// wantTOTPStep: the answer is the sign-in's next step, the authenticator's code, and not an
// error (a 4xx would be a failed request in the browser's console).
func wantTOTPStep(t *testing.T, what string, res response) {
	t.Helper()
	if res.status != http.StatusAccepted {
		t.Fatalf("%s: status %d (%s), want 202", what, res.status, res.body)
	}
	if p := decodeJSON[newDeviceJSON](t, res); p.Status != "totp" || p.Message != "Enter the 6-digit code from your authenticator app." || p.PendingLogin != "" {
		t.Fatalf("%s: %+v, want status totp without a pending sign-in", what, p)
	}
	if c := cookieNamed(res, "cv_pending_login"); c != nil && c.MaxAge >= 0 {
		t.Fatalf("%s: a pending sign-in cookie %+v, want none", what, c)
	}
}

func wantWrongTOTP(t *testing.T, what string, res response) {
	t.Helper()
	if res.status != http.StatusUnauthorized {
		t.Fatalf("%s: status %d (%s), want 401", what, res.status, res.body)
	}
	if e := decodeError(t, res); e.Code != "totp_required" || e.Message != "That authenticator code is not valid. Please try again." {
		t.Fatalf("%s: %+v, want the wrong-code refusal", what, e)
	}
}

// TestTwoFactorSignInAsksForTheAuthenticatorCodeAsAStep: with two-factor authentication on, the
// right password (or the right e-mailed code) answers 202 `totp`; only a wrong authenticator
// code, or a wrong password, is a 401. The e-mailed code is not spent by the step, nor by a
// wrong authenticator code.
func TestTwoFactorSignInAsksForTheAuthenticatorCodeAsAStep(t *testing.T) {
	t.Parallel()
	// Ahead of the database's clock, which stamps the outbox rows, so that e-mails are due.
	clk := clock.NewManual(time.Now().UTC().Add(time.Hour).Truncate(time.Second))
	a := newApp(t, accountstest.WithClock(clk))
	const email = "tia@example.com"
	tia, _ := a.member(t, email, "subscriber")

	// A sign-in from a new browser opened before two-factor was turned on waits for its code.
	laptop := a.browser(t)
	loginNewBrowser(t, laptop, email)
	code := a.LatestCode(t, email, codeSubject)

	secret := enableTOTP(t, tia, clk.Now())
	clk.Advance(totp.Period * time.Second) // the code used to enable it cannot be used again

	phone := a.browser(t)
	login := func(body map[string]string) response {
		return phone.do(http.MethodPost, "/api/users/login", body)
	}
	wantTOTPStep(t, "the password alone", login(map[string]string{"email": email, "password": testPassword}))
	res := login(map[string]string{"email": email, "password": "Wrong-Password-1", "totpCode": codeAt(t, secret, clk.Now())})
	if e := decodeError(t, res); res.status != http.StatusUnauthorized || e.Message != "Invalid email or password" {
		t.Fatalf("a wrong password: %d %+v, want 401 Invalid email or password", res.status, e)
	}
	wantWrongTOTP(t, "a wrong authenticator code", login(map[string]string{"email": email, "password": testPassword, "totpCode": "000000"}))
	res = login(map[string]string{"email": email, "password": testPassword, "totpCode": codeAt(t, secret, clk.Now())})
	expect(t, res, http.StatusOK)
	if u := decodeUser(t, res); u.Email != email || u.Token == "" {
		t.Fatalf("signed in: %+v", u)
	}

	// The browser waiting for its e-mailed code: the code alone asks for the authenticator's.
	clk.Advance(totp.Period * time.Second)
	withCode := func(body map[string]string) response {
		return laptop.do(http.MethodPost, "/api/users/loginWithCode/"+email, body)
	}
	wantTOTPStep(t, "the e-mailed code alone", withCode(map[string]string{"loginCode": code}))
	wantWrongTOTP(t, "the e-mailed code with a wrong authenticator code", withCode(map[string]string{"loginCode": code, "totpCode": "000000"}))
	res = withCode(map[string]string{"loginCode": code, "totpCode": codeAt(t, secret, clk.Now())})
	expect(t, res, http.StatusOK)
	if u := decodeUser(t, res); u.Email != email {
		t.Fatalf("signed in: %+v", u)
	}
	wantLoginExpired(t, "the used code again", withCode(map[string]string{"loginCode": code, "totpCode": codeAt(t, secret, clk.Now())}))
}

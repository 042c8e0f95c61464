package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/domain/clock"
)

const codeSubject = "sign-in code"

// account creates a verified account that no browser has signed in to yet.
func (a *app) account(t *testing.T, email string) {
	t.Helper()
	if _, err := a.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: "Pat Pending", Email: email, Password: testPassword, Role: "subscriber", Verified: true,
	}); err != nil {
		t.Fatal(err)
	}
}

type newDeviceJSON struct {
	Status       string `json:"status"`
	Message      string `json:"message"`
	PendingLogin string `json:"pendingLogin"`
}

// loginNewBrowser signs in with the password from a browser the account does not trust yet and
// returns the new_device answer.
func loginNewBrowser(t *testing.T, c *client, email string) (response, newDeviceJSON) {
	t.Helper()
	res := c.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": testPassword})
	expect(t, res, http.StatusAccepted)
	var nd newDeviceJSON
	if err := json.Unmarshal(res.body, &nd); err != nil || nd.Status != "new_device" || nd.PendingLogin == "" {
		t.Fatalf("login from a new browser: %s (%v), want new_device with a pendingLogin", res.body, err)
	}
	return res, nd
}

func cookieNamed(r response, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func wantLoginExpired(t *testing.T, what string, res response) {
	t.Helper()
	if res.status != http.StatusUnauthorized {
		t.Fatalf("%s: status %d (%s), want 401", what, res.status, res.body)
	}
	if e := decodeError(t, res); e.Code != "login_expired" || e.Message != "This sign-in has expired. Please log in again." {
		t.Fatalf("%s: %+v, want login_expired", what, e)
	}
}

// TestLoginCodeNeedsItsPendingSignIn: the e-mailed code signs in only together with the pending
// sign-in of the browser that passed the password, so a code read from a mailbox (or guessed)
// is worth nothing on its own.
func TestLoginCodeNeedsItsPendingSignIn(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const email = "pat@example.com"
	a.account(t, email)
	laptop := a.browser(t)
	res, _ := loginNewBrowser(t, laptop, email)
	cookie := cookieNamed(res, "cv_pending_login")
	if cookie == nil || !cookie.HttpOnly || cookie.Path != "/api/users" || cookie.MaxAge != 600 || cookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("pending sign-in cookie %+v, want HttpOnly, Lax, path /api/users, 10 minutes", cookie)
	}
	code := a.LatestCode(t, email, codeSubject)

	// Someone with the code but not the pending sign-in: another browser, an API client
	// without the token or with a made-up one.
	wantLoginExpired(t, "the code in another browser", a.browser(t).do(http.MethodPost, "/api/users/loginWithCode/"+email,
		map[string]string{"loginCode": code}))
	wantLoginExpired(t, "the code with a made-up token", a.apiClient(t, "").do(http.MethodPost, "/api/users/loginWithCode/"+email,
		map[string]string{"loginCode": code, "pendingLogin": strings.Repeat("A", 43)}))
	// None of that counted as a guess: the browser that passed the password signs in.
	res = laptop.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": code})
	expect(t, res, http.StatusOK)
	if decodeUser(t, res).Email != email {
		t.Fatal("signed in as someone else")
	}
	if c := cookieNamed(res, "cv_pending_login"); c == nil || c.MaxAge >= 0 {
		t.Errorf("the used pending sign-in's cookie was not cleared: %+v", c)
	}
	// Used: the same code and token again are refused.
	wantLoginExpired(t, "a used pending sign-in", laptop.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": code}))
}

// TestAPIClientFinishesASignInWithTheTokenFromTheAnswer: without cookies, the pending sign-in's
// token travels in the JSON both ways.
func TestAPIClientFinishesASignInWithTheTokenFromTheAnswer(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const email = "script@example.com"
	a.account(t, email)
	c := a.apiClient(t, "")
	_, nd := loginNewBrowser(t, c, email)
	code := a.LatestCode(t, email, codeSubject)
	res := c.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": code, "pendingLogin": nd.PendingLogin})
	expect(t, res, http.StatusOK)
	if u := decodeUser(t, res); u.Token == "" || u.Email != email {
		t.Fatalf("signed in: %+v", u)
	}
	// The pending sign-in belongs to its account: another account's e-mail does not take it.
	a.account(t, "other@example.com")
	_, nd = loginNewBrowser(t, c, email)
	wantLoginExpired(t, "a pending sign-in used for another account", c.do(http.MethodPost, "/api/users/loginWithCode/other@example.com",
		map[string]string{"loginCode": a.LatestCode(t, email, codeSubject), "pendingLogin": nd.PendingLogin}))
}

// TestSendLoginCodeResendsForThePendingSignInOnly: "resend" sends a new code for the browser's
// own pending sign-in, never a code that could sign in someone who did not pass the password,
// and never answers "sent" when it sent nothing.
func TestSendLoginCodeResendsForThePendingSignInOnly(t *testing.T) {
	t.Parallel()
	// Ahead of the database's clock, which stamps the outbox rows, so that they are due.
	clk := clock.NewManual(time.Now().Add(time.Hour))
	a := newApp(t, accountstest.WithClock(clk))
	const email = "resend@example.com"
	a.account(t, email)

	stranger := a.browser(t)
	wantLoginExpired(t, "resend without a pending sign-in", stranger.do(http.MethodPost, "/api/users/sendLoginCode/"+email, nil))
	if n := len(a.MailsTo(t, email, codeSubject)); n != 0 {
		t.Fatalf("%d codes sent without a pending sign-in", n)
	}

	b := a.browser(t)
	loginNewBrowser(t, b, email)
	first := a.LatestCode(t, email, codeSubject)
	res := b.do(http.MethodPost, "/api/users/sendLoginCode/"+email, nil)
	expect(t, res, http.StatusTooManyRequests)
	if e := decodeError(t, res); !strings.HasPrefix(e.Message, "Please wait ") {
		t.Errorf("an immediate resend: %q", e.Message)
	}
	if n := len(a.MailsTo(t, email, codeSubject)); n != 1 {
		t.Fatalf("%d codes after a refused resend, want 1", n)
	}

	clk.Advance(time.Minute)
	res = b.do(http.MethodPost, "/api/users/sendLoginCode/"+email, nil)
	expect(t, res, http.StatusOK)
	if msg := decodeMessage(t, res); msg != "We sent a new login code to your e-mail." {
		t.Errorf("resend answered %q", msg)
	}
	mails := a.MailsTo(t, email, codeSubject)
	if len(mails) != 2 {
		t.Fatalf("%d codes after a resend, want 2", len(mails))
	}
	second := a.LatestCode(t, email, codeSubject)
	if second != first {
		expect(t, b.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": first}), http.StatusUnauthorized)
	}
	expect(t, b.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": second}), http.StatusOK)
}

// TestAFreshCodeAfterAUsedOne: a new browser signing in right after another used its code gets
// a code of its own; the cooldown only spares an e-mail when the same browser presses "Sign in"
// again while its code is still good.
func TestAFreshCodeAfterAUsedOne(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const email = "twice@example.com"
	a.account(t, email)

	laptop := a.browser(t)
	loginNewBrowser(t, laptop, email)
	expect(t, laptop.do(http.MethodPost, "/api/users/loginWithCode/"+email,
		map[string]string{"loginCode": a.LatestCode(t, email, codeSubject)}), http.StatusOK)

	phone := a.browser(t)
	loginNewBrowser(t, phone, email)
	if n := len(a.MailsTo(t, email, codeSubject)); n != 2 {
		t.Fatalf("%d sign-in codes after a second new browser signed in within a minute, want 2: the answer said one was sent", n)
	}
	// The same browser again at once: its code is still good, so no second e-mail, and that code
	// still works.
	loginNewBrowser(t, phone, email)
	if n := len(a.MailsTo(t, email, codeSubject)); n != 2 {
		t.Fatalf("%d sign-in codes after pressing Sign in twice, want 2", n)
	}
	expect(t, phone.do(http.MethodPost, "/api/users/loginWithCode/"+email,
		map[string]string{"loginCode": a.LatestCode(t, email, codeSubject)}), http.StatusOK)
}

func decodeMessage(t *testing.T, r response) string {
	t.Helper()
	var m struct{ Message string }
	if err := json.Unmarshal(r.body, &m); err != nil || m.Message == "" {
		t.Fatalf("status %d: body %q is not a message", r.status, r.body)
	}
	return m.Message
}

package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/platform/auth/totp"
)

const googleClientID = "clearvest-test.apps.googleusercontent.com"

func newGoogleApp(t *testing.T) (*app, *accountstest.OIDCProvider) {
	p := accountstest.NewOIDCProvider(t, googleClientID)
	return newApp(t, accountstest.WithGoogle(googleClientID, p.URL)), p
}

// googleBrowser is a browser that does not follow redirects, so each hop can be checked.
func (a *app) googleBrowser(t *testing.T) *client {
	b := a.browser(t)
	b.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return b
}

// get fetches an absolute URL (the provider's) with the browser's cookies.
func (c *client) getURL(u string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// authorize starts a sign-in and lets the provider answer; it returns the callback path (on
// this app) the provider sent the browser to.
func (c *client) authorize(returnPath string) string {
	c.t.Helper()
	return c.authorizeWith("/api/users/google/start?return=" + url.QueryEscape(returnPath))
}

// authorizeAgreed is authorize from the sign-up page, with the consent box ticked.
func (c *client) authorizeAgreed(returnPath string) string {
	c.t.Helper()
	return c.authorizeWith("/api/users/google/start?acceptTerms=true&return=" + url.QueryEscape(returnPath))
}

func (c *client) authorizeWith(start string) string {
	c.t.Helper()
	res := c.do(http.MethodGet, start, nil)
	expect(c.t, res, http.StatusFound)
	loc := res.header.Get("Location")
	if !strings.HasPrefix(loc, "http") {
		c.t.Fatalf("start: Location %q", loc)
	}
	back := c.getURL(loc)
	if back.StatusCode != http.StatusFound {
		c.t.Fatalf("authorize: status %d", back.StatusCode)
	}
	cb, err := url.Parse(back.Header.Get("Location"))
	if err != nil || cb.Path != accounts.GoogleRedirectPath {
		c.t.Fatalf("authorize: redirected to %q", back.Header.Get("Location"))
	}
	return cb.Path + "?" + cb.RawQuery
}

// callback delivers the provider's answer and returns where the app sent the browser.
func (c *client) callback(path string) string {
	c.t.Helper()
	res := c.do(http.MethodGet, path, nil)
	expect(c.t, res, http.StatusFound)
	return res.header.Get("Location")
}

func (c *client) signedInAs() (userJSON, bool) {
	c.t.Helper()
	res := c.do(http.MethodGet, "/api/users/getUser", nil)
	if res.status != http.StatusOK {
		return userJSON{}, false
	}
	return decodeUser(c.t, res), true
}

func TestGoogleRedirectSignsUpNewUser(t *testing.T) {
	t.Parallel()
	a, p := newGoogleApp(t)
	p.As("g-new", "newcomer@gmail.com", "Gina Google")
	// Started from the sign-in page, without the consent the sign-up page asks for: nothing
	// is created, and the browser goes to the sign-up page.
	early := a.googleBrowser(t)
	if got := early.callback(early.authorize("/portfolio")); got != "/register?google=terms" {
		t.Fatalf("a new Google user without consent landed on %q, want /register?google=terms", got)
	}
	if _, ok := early.signedInAs(); ok {
		t.Fatal("signed in without consent")
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'user.registered'`); n != 0 {
		t.Fatalf("%d accounts created without consent", n)
	}

	b := a.googleBrowser(t)
	start := b.do(http.MethodGet, "/api/users/google/start?return=/portfolio&acceptTerms=true&language=de", nil)
	expect(t, start, http.StatusFound)
	auth, err := url.Parse(start.header.Get("Location"))
	if err != nil || !strings.HasPrefix(start.header.Get("Location"), p.URL+"/authorize?") {
		t.Fatalf("start: Location %q", start.header.Get("Location"))
	}
	q := auth.Query()
	if q.Get("redirect_uri") != accountstest.PublicURL+accounts.GoogleRedirectPath || q.Get("scope") != "openid email profile" ||
		q.Get("code_challenge_method") != "S256" {
		t.Errorf("authorization request %v", q)
	}
	var flow *http.Cookie
	for _, c := range (&http.Response{Header: start.header}).Cookies() {
		if c.Name == "cv_google" {
			flow = c
		}
	}
	if flow == nil || !flow.HttpOnly || flow.SameSite != http.SameSiteLaxMode || flow.Path != accounts.GoogleRedirectPath ||
		flow.MaxAge != 600 || strings.Contains(flow.Value, q.Get("state")) {
		t.Fatalf("flow cookie %+v", flow)
	}
	back := b.getURL(start.header.Get("Location"))
	cb, _ := url.Parse(back.Header.Get("Location"))
	if got := b.callback(cb.Path + "?" + cb.RawQuery); got != "/portfolio" {
		t.Fatalf("signed in, redirected to %q, want /portfolio", got)
	}
	u, ok := b.signedInAs()
	if !ok || u.Email != "newcomer@gmail.com" || !u.IsVerified {
		t.Fatalf("after Google sign-up: %+v, signed in %v", u, ok)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'user.terms_accepted'
		AND data->>'termsVersion' <> '' AND data->>'privacyVersion' <> ''`, "user-"+u.ID); n != 1 {
		t.Errorf("%d consent events for the Google sign-up, want 1", n)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'user.language_changed' AND data->>'language' = 'de'`, "user-"+u.ID); n != 1 {
		t.Errorf("%d language events for the Google sign-up, want 1", n)
	}
	// The answer is single-use: replaying the callback finds no flow.
	if got := b.callback(cb.Path + "?" + cb.RawQuery); got != "/login?google=error" {
		t.Errorf("replayed callback: %q", got)
	}
}

func TestGoogleRedirectNeverSignsIntoPasswordAccountByEmail(t *testing.T) {
	t.Parallel()
	a, p := newGoogleApp(t)
	const email = "owner@example.com"
	if _, err := a.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: "Owner", Email: email, Password: testPassword, Role: "subscriber", Verified: true,
	}); err != nil {
		t.Fatal(err)
	}
	p.As("g-owner", email, "Gina Google")
	b := a.googleBrowser(t)
	if got := b.callback(b.authorize("/dashboard")); got != "/login?google=link" {
		t.Fatalf("existing account: redirected to %q, want /login?google=link", got)
	}
	if _, ok := b.signedInAs(); ok {
		t.Fatal("signed into an existing account on the strength of the e-mail alone")
	}
	// A browser without the pending link cannot finish it.
	if res := a.browser(t).do(http.MethodPost, "/api/users/google/link", map[string]string{"password": testPassword}); res.status != http.StatusUnauthorized {
		t.Errorf("link without the pending cookie: status %d", res.status)
	}
	res := b.do(http.MethodPost, "/api/users/google/link", map[string]string{"password": "not-the-password"})
	expect(t, res, http.StatusUnauthorized)
	if _, ok := b.signedInAs(); ok {
		t.Fatal("signed in with a wrong password")
	}
	res = b.do(http.MethodPost, "/api/users/google/link", map[string]string{"password": testPassword})
	expect(t, res, http.StatusOK)
	u, ok := b.signedInAs()
	if !ok || u.Email != email {
		t.Fatalf("after linking: %+v, signed in %v", u, ok)
	}
	// Linked now: Google alone signs in, from another browser too.
	other := a.googleBrowser(t)
	if got := other.callback(other.authorize("/")); got != "/" {
		t.Fatalf("linked account: redirected to %q", got)
	}
	if v, ok := other.signedInAs(); !ok || v.ID != u.ID {
		t.Fatalf("linked sign-in: %+v, %v", v, ok)
	}
}

// An account with an authenticator app: the right password is answered with the next step
// (202 totp, not an error), the link waits for the code, and a wrong code is a 401.
func TestGoogleLinkAsksForTheAuthenticatorCodeAsAStep(t *testing.T) {
	t.Parallel()
	a, p := newGoogleApp(t)
	const email = "tia@example.com"
	tia, _ := a.member(t, email, "subscriber")
	enabledAt := time.Now()
	secret := enableTOTP(t, tia, enabledAt)
	// The code used to enable it cannot be used again; the next step's is within the accepted skew.
	next := enabledAt.Add(totp.Period * time.Second)

	p.As("g-tia", email, "Tia Google")
	b := a.googleBrowser(t)
	if got := b.callback(b.authorize("/dashboard")); got != "/login?google=link" {
		t.Fatalf("existing account: redirected to %q, want /login?google=link", got)
	}
	link := func(body map[string]string) response {
		return b.do(http.MethodPost, "/api/users/google/link", body)
	}
	wantTOTPStep(t, "the password alone", link(map[string]string{"password": testPassword}))
	if _, ok := b.signedInAs(); ok {
		t.Fatal("signed in without the authenticator code")
	}
	wantWrongTOTP(t, "a wrong authenticator code", link(map[string]string{"password": testPassword, "totpCode": "000000"}))
	res := link(map[string]string{"password": testPassword, "totpCode": codeAt(t, secret, next)})
	expect(t, res, http.StatusOK)
	if u, ok := b.signedInAs(); !ok || u.Email != email {
		t.Fatalf("after linking: %+v, signed in %v", u, ok)
	}
}

func TestGoogleRedirectRefusesForgedAnswers(t *testing.T) {
	t.Parallel()
	a, p := newGoogleApp(t)
	p.As("g-victim", "victim@gmail.com", "Gina Google")

	t.Run("bad state", func(t *testing.T) {
		b := a.googleBrowser(t)
		cb, _ := url.Parse(b.authorize("/"))
		q := cb.Query()
		q.Set("state", "forged-state")
		if got := b.callback(cb.Path + "?" + q.Encode()); got != "/login?google=error" {
			t.Errorf("bad state: redirected to %q", got)
		}
		if _, ok := b.signedInAs(); ok {
			t.Error("signed in with a forged state")
		}
	})
	t.Run("wrong PKCE verifier", func(t *testing.T) {
		// A code stolen from one browser, injected into the attacker's own sign-in: the state
		// is the attacker's, but the verifier is not the one the code was issued for.
		victim := a.googleBrowser(t)
		stolen, _ := url.Parse(victim.authorize("/"))
		attacker := a.googleBrowser(t)
		own, _ := url.Parse(attacker.authorize("/"))
		q := own.Query()
		q.Set("code", stolen.Query().Get("code"))
		if got := attacker.callback(own.Path + "?" + q.Encode()); got != "/login?google=error" {
			t.Errorf("wrong verifier: redirected to %q", got)
		}
		if _, ok := attacker.signedInAs(); ok {
			t.Error("signed in with another browser's code")
		}
	})
	t.Run("provider error", func(t *testing.T) {
		b := a.googleBrowser(t)
		b.authorize("/")
		if got := b.callback("/api/users/google/redirect?error=access_denied"); got != "/login?google=error" {
			t.Errorf("access denied: redirected to %q", got)
		}
	})
	t.Run("open redirect", func(t *testing.T) {
		for _, evil := range []string{"https://evil.example", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"} {
			b := a.googleBrowser(t)
			if got := b.callback(b.authorizeAgreed(evil)); got != "/" {
				t.Errorf("return=%q: redirected to %q, want /", evil, got)
			}
		}
	})
}

func TestGoogleRedirectDisabled(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b := a.googleBrowser(t)
	for _, path := range []string{"/api/users/google/start", "/api/users/google/redirect?code=x&state=y"} {
		if res := b.do(http.MethodGet, path, nil); res.status != http.StatusNotFound {
			t.Errorf("%s without Google: status %d, want 404", path, res.status)
		}
	}
	var meta struct{ GoogleSignIn bool }
	if err := json.Unmarshal(b.do(http.MethodGet, "/api/meta", nil).body, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.GoogleSignIn {
		t.Error("meta offers Google sign-in when it is not configured")
	}
	g, _ := newGoogleApp(t)
	if err := json.Unmarshal(g.googleBrowser(t).do(http.MethodGet, "/api/meta", nil).body, &meta); err != nil {
		t.Fatal(err)
	}
	if !meta.GoogleSignIn {
		t.Error("meta does not offer Google sign-in when it is configured")
	}
}

// TestNoSignInWithABareGoogleIDToken: an ID token posted by a page is a bearer credential that
// could come from anywhere (another site the person signed in to with Google); only the redirect
// flow, whose token carries this browser's nonce, signs in.
func TestNoSignInWithABareGoogleIDToken(t *testing.T) {
	t.Parallel()
	a, _ := newGoogleApp(t)
	res := a.browser(t).do(http.MethodPost, "/api/users/google/callback", map[string]string{"credential": "eyJhbGciOiJSUzI1NiJ9.e30.sig"})
	expect(t, res, http.StatusNotFound)
	decodeError(t, res)
}

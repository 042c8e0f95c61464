package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"clearvest/app/accounts"
)

// TestStaffEndpointsRoleMatrix is the server-side policy as a table: every staff endpoint,
// called by every kind of caller, answers exactly as the roles table in docs/product-rules.md says.
func TestStaffEndpointsRoleMatrix(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	_, subscriber := a.member(t, "sub@example.com", "subscriber")
	_, author := a.member(t, "author@example.com", "author")
	_, admin := a.member(t, "admin@example.com", "admin")
	_, suspended := a.member(t, "suspended@example.com", "subscriber")
	adminActor := accounts.Actor{UserID: admin.ID, Role: "admin"}
	if _, err := a.Accounts.Suspend(ctx, adminActor, suspended.ID, "test"); err != nil {
		t.Fatal(err)
	}

	// Each call gets a fresh target, so a success cannot change what the next case sees.
	n := 0
	target := func(suspend bool) string {
		n++
		u, err := a.Accounts.CreateUser(ctx, accounts.CreateUserInput{
			Name: "Target", Email: fmt.Sprintf("target%d@example.com", n), Password: testPassword, Role: "subscriber",
		})
		if err != nil {
			t.Fatal(err)
		}
		if suspend {
			if _, err := a.Accounts.Suspend(ctx, adminActor, u.ID, ""); err != nil {
				t.Fatal(err)
			}
		}
		return u.ID
	}
	type call struct {
		name   string
		method string
		path   func() string
		body   func(id string) any
		// suspendTarget: the operation needs a suspended target to succeed.
		suspendTarget bool
	}
	calls := []call{
		{name: "getUsers", method: http.MethodGet, path: func() string { return "/api/users/getUsers" }},
		{name: "upgradeUser", method: http.MethodPost, path: func() string { return "/api/users/upgradeUser" },
			body: func(id string) any { return map[string]string{"id": id, "role": "author"} }},
		{name: "upgradeUser to suspended", method: http.MethodPost, path: func() string { return "/api/users/upgradeUser" },
			body: func(id string) any { return map[string]string{"id": id, "role": "suspended"} }},
		{name: "suspendUser", method: http.MethodPost, body: func(string) any { return map[string]string{"reason": "fraud check"} }},
		{name: "reinstateUser", method: http.MethodPost, suspendTarget: true},
		{name: "deleteUser", method: http.MethodDelete},
		{name: "getUser (own account)", method: http.MethodGet, path: func() string { return "/api/users/getUser" }},
	}
	callers := []struct {
		name  string
		token string
		want  map[string]int
	}{
		{"anonymous", "", map[string]int{}},
		{"subscriber", subscriber.Token, map[string]int{"getUser (own account)": 200}},
		{"author", author.Token, map[string]int{"getUsers": 200, "getUser (own account)": 200}},
		{"admin", admin.Token, map[string]int{"getUsers": 200, "upgradeUser": 200, "upgradeUser to suspended": 200,
			"suspendUser": 200, "reinstateUser": 200, "deleteUser": 200, "getUser (own account)": 200}},
		{"suspended", suspended.Token, map[string]int{}},
	}
	for _, who := range callers {
		for _, c := range calls {
			t.Run(who.name+"/"+c.name, func(t *testing.T) {
				id := target(c.suspendTarget)
				path := ""
				switch {
				case c.path != nil:
					path = c.path()
				case c.name == "suspendUser":
					path = "/api/users/suspend/" + id
				case c.name == "reinstateUser":
					path = "/api/users/reinstate/" + id
				case c.name == "deleteUser":
					path = "/api/users/" + id
				}
				var body any
				if c.body != nil {
					body = c.body(id)
				}
				res := a.apiClient(t, who.token).do(c.method, path, body)
				want, ok := who.want[c.name]
				switch {
				case ok:
				case who.name == "anonymous":
					want = http.StatusUnauthorized
				default:
					want = http.StatusForbidden
				}
				expect(t, res, want)
				if want != http.StatusOK {
					e := decodeError(t, res)
					if who.name == "suspended" && !strings.Contains(e.Message, "suspended") {
						t.Errorf("suspended caller got %q, want a message containing \"suspended\"", e.Message)
					}
				}
			})
		}
	}
}

func TestRevocationIsImmediate(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	_, admin := a.member(t, "admin@example.com", "admin")
	adminActor := accounts.Actor{UserID: admin.ID, Role: "admin"}

	t.Run("logout ends the token's session", func(t *testing.T) {
		_, u := a.member(t, "leaver@example.com", "subscriber")
		c := a.apiClient(t, u.Token)
		expect(t, c.do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
		expect(t, c.do(http.MethodGet, "/api/users/logout", nil), http.StatusOK)
		res := c.do(http.MethodGet, "/api/users/getUser", nil)
		expect(t, res, http.StatusUnauthorized)
		decodeError(t, res)
		if got := c.do(http.MethodGet, "/api/users/loginStatus", nil); string(got.body) != "false\n" {
			t.Errorf("loginStatus after logout = %s, want false", got.body)
		}
	})

	t.Run("a role change applies to the next request", func(t *testing.T) {
		_, u := a.member(t, "climber@example.com", "subscriber")
		c := a.apiClient(t, u.Token)
		expect(t, c.do(http.MethodGet, "/api/users/getUsers", nil), http.StatusForbidden)
		promote := a.apiClient(t, admin.Token).do(http.MethodPost, "/api/users/upgradeUser", map[string]string{"id": u.ID, "role": "author"})
		expect(t, promote, http.StatusOK)
		expect(t, c.do(http.MethodGet, "/api/users/getUsers", nil), http.StatusOK)
		if _, err := a.Accounts.SetRole(ctx, adminActor, u.ID, "subscriber"); err != nil {
			t.Fatal(err)
		}
		expect(t, c.do(http.MethodGet, "/api/users/getUsers", nil), http.StatusForbidden)
	})

	t.Run("suspension refuses the next request with a suspended message", func(t *testing.T) {
		browser, u := a.member(t, "rogue@example.com", "subscriber")
		c := a.apiClient(t, u.Token)
		expect(t, c.do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
		res := a.apiClient(t, admin.Token).do(http.MethodPost, "/api/users/suspend/"+u.ID, map[string]string{"reason": "chargebacks"})
		expect(t, res, http.StatusOK)
		for _, got := range []response{
			c.do(http.MethodGet, "/api/users/getUser", nil),
			browser.do(http.MethodGet, "/api/users/getUser", nil),
		} {
			expect(t, got, http.StatusForbidden)
			if e := decodeError(t, got); !strings.Contains(e.Message, "suspended") || e.Code != "suspended" {
				t.Errorf("got %+v, want a suspended refusal", e)
			}
		}
		login := a.browser(t).do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword})
		expect(t, login, http.StatusForbidden)
		if e := decodeError(t, login); !strings.Contains(e.Message, "suspended") {
			t.Errorf("login of a suspended user: %q", e.Message)
		}
		// Reinstating does not resurrect the sessions suspension ended.
		if _, err := a.Accounts.Reinstate(ctx, adminActor, u.ID); err != nil {
			t.Fatal(err)
		}
		expect(t, c.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	})

	t.Run("another user's session is not found", func(t *testing.T) {
		_, u := a.member(t, "other@example.com", "subscriber")
		list := a.apiClient(t, admin.Token).do(http.MethodGet, "/api/users/sessions", nil)
		expect(t, list, http.StatusOK)
		var sessions []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(list.body, &sessions); err != nil || len(sessions) == 0 {
			t.Fatalf("sessions: %s", list.body)
		}
		res := a.apiClient(t, u.Token).do(http.MethodDelete, "/api/users/sessions/"+sessions[0].ID, nil)
		expect(t, res, http.StatusNotFound)
		expect(t, a.apiClient(t, admin.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
	})
}

func TestLoginIsRateLimited(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, u := a.member(t, "target@example.com", "subscriber")
	b := a.browser(t)
	var last response
	for i := 0; i < 20; i++ {
		last = b.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": "wrong password " + strconv.Itoa(i)})
		if last.status == http.StatusTooManyRequests {
			break
		}
		expect(t, last, http.StatusUnauthorized)
		if e := decodeError(t, last); e.Message != "Invalid email or password" {
			t.Fatalf("wrong password answered %q", e.Message)
		}
	}
	expect(t, last, http.StatusTooManyRequests)
	if e := decodeError(t, last); !strings.HasPrefix(e.Message, "Too many attempts. Please try again in ") {
		t.Errorf("429 message %q", e.Message)
	}
	if s, err := strconv.Atoi(last.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After = %q, want whole seconds", last.header.Get("Retry-After"))
	}
	// The right password does not get through the back-off either: it is the account that waits.
	res := b.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword})
	expect(t, res, http.StatusTooManyRequests)
}

// TestFailuresElsewhereDoNotLockTheOwnerOut: an attacker guessing an admin's password puts the
// account into back-off, but the admin's own browser (which the account trusts) still signs in.
// A browser the account does not trust still waits, even with the right password.
func TestFailuresElsewhereDoNotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	a := newAppBehind(t, newApp(t), "127.0.0.0/8")
	owner, u := a.member(t, "admin@example.com", "admin")
	owner.header.Set("X-Forwarded-For", "198.51.100.7")
	attacker := a.browser(t)
	attacker.header.Set("X-Forwarded-For", "203.0.113.66")
	for i := 0; ; i++ {
		res := attacker.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": "guess " + strconv.Itoa(i)})
		if res.status == http.StatusTooManyRequests {
			break
		}
		expect(t, res, http.StatusUnauthorized)
		if i == 20 {
			t.Fatal("the attacker was never backed off")
		}
	}
	res := owner.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword})
	expect(t, res, http.StatusOK)
	if decodeUser(t, res).ID != u.ID {
		t.Fatal("signed in as someone else")
	}
	stranger := a.browser(t)
	stranger.header.Set("X-Forwarded-For", "198.51.100.8")
	expect(t, stranger.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword}), http.StatusTooManyRequests)
	expect(t, attacker.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword}), http.StatusTooManyRequests)
}

func TestForgotPasswordAnswersAlikeForUnknownAddresses(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, u := a.member(t, "known@example.com", "subscriber")
	b := a.browser(t)
	known := b.do(http.MethodPost, "/api/users/forgotPassword", map[string]string{"email": u.Email})
	unknown := b.do(http.MethodPost, "/api/users/forgotPassword", map[string]string{"email": "nobody@example.com"})
	expect(t, known, http.StatusOK)
	if known.status != unknown.status || string(known.body) != string(unknown.body) {
		t.Fatalf("known: %d %s; unknown: %d %s", known.status, known.body, unknown.status, unknown.body)
	}
	// Per-response headers aside (request id, CSP nonce, date), the answers carry the same headers.
	names := func(h http.Header) []string {
		var out []string
		for k := range h {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if k, u := names(known.header), names(unknown.header); !slices.Equal(k, u) {
		t.Errorf("headers differ: %v vs %v", k, u)
	}
	if len(a.MailsTo(t, u.Email, "password")) != 1 {
		t.Errorf("the account holder should have one reset e-mail")
	}
	if len(a.MailsTo(t, "nobody@example.com", "")) != 0 {
		t.Errorf("an unknown address got mail")
	}

	// The reset link works once and ends every session.
	token := a.LatestLink(t, u.Email, "/resetPassword/")
	userClient := a.apiClient(t, u.Token)
	expect(t, userClient.do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
	res := b.do(http.MethodPatch, "/api/users/resetPassword/"+token, map[string]string{"password": "a brand new passphrase", "confirmPassword": "a brand new passphrase"})
	expect(t, res, http.StatusOK)
	var msg struct{ Message string }
	if err := json.Unmarshal(res.body, &msg); err != nil {
		t.Fatalf("reset answer %q: %v", res.body, err)
	}
	if !strings.Contains(msg.Message, "Reset Successful") {
		t.Errorf("reset answered %q; the UI goes to /login on 'Reset Successful'", msg.Message)
	}
	expect(t, userClient.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	expect(t, b.do(http.MethodPatch, "/api/users/resetPassword/"+token, map[string]string{"password": "another new passphrase"}), http.StatusBadRequest)
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	browser, u := a.member(t, "csrf@example.com", "subscriber")
	update := map[string]string{"bio": "hello"}

	t.Run("the UI's request passes", func(t *testing.T) {
		expect(t, browser.do(http.MethodPatch, "/api/users/updateUser", update), http.StatusOK)
	})
	for _, tc := range []struct {
		name   string
		header http.Header
	}{
		{"without X-Requested-With", http.Header{"Origin": browser.header["Origin"]}},
		{"from a foreign origin", http.Header{"Origin": {"https://evil.example"}, "X-Requested-With": {"XMLHttpRequest"}}},
		{"without any origin", http.Header{"X-Requested-With": {"XMLHttpRequest"}}},
		{"marked cross-site", http.Header{"Sec-Fetch-Site": {"cross-site"}, "X-Requested-With": {"XMLHttpRequest"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := *browser
			c.t, c.header = t, tc.header
			res := c.do(http.MethodPatch, "/api/users/updateUser", update)
			expect(t, res, http.StatusForbidden)
			if e := decodeError(t, res); e.Message != "Cross-site request refused" {
				t.Errorf("message %q", e.Message)
			}
			// A state-changing GET is guarded too.
			expect(t, c.do(http.MethodGet, "/api/users/logout", nil), http.StatusForbidden)
		})
	}
	t.Run("safe requests need no header", func(t *testing.T) {
		c := *browser
		c.t, c.header = t, http.Header{}
		expect(t, c.do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
	})
	t.Run("bearer requests need no header", func(t *testing.T) {
		expect(t, a.apiClient(t, u.Token).do(http.MethodPatch, "/api/users/updateUser", update), http.StatusOK)
	})
	t.Run("another site cannot sign a visitor in", func(t *testing.T) {
		c := a.browser(t)
		c.header = http.Header{"Origin": {"https://evil.example"}}
		res := c.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword})
		expect(t, res, http.StatusForbidden)
	})
}

// TestRegisterVerifyAndNewDeviceFlow follows a person through the UI's flows over HTTP, reading
// the e-mails from the file mailbox as they would from their inbox.
func TestRegisterVerifyAndNewDeviceFlow(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	laptop := a.browser(t)
	const email = "grace@example.com"
	const pw = "compile the nanoseconds"

	res := laptop.do(http.MethodPost, "/api/users/register?ref=", map[string]any{
		"name": "Grace Hopper", "email": email, "password": pw, "confirmPassword": pw,
		"phone": "+1 202 555 0143", "country": "United States", "acceptTerms": true,
	})
	expect(t, res, http.StatusCreated)
	u := decodeUser(t, res)
	if u.Token == "" || u.IsVerified || u.Role != "subscriber" {
		t.Fatalf("registered user %+v", u)
	}
	if res.header.Get("X-Clearvest-Position") == "" {
		t.Error("register should report the position of its events")
	}
	expect(t, laptop.do(http.MethodGet, "/api/users/loginStatus", nil), http.StatusOK)

	// The verification link from the e-mail.
	token := a.LatestLink(t, email, "/verify/")
	expect(t, a.browser(t).do(http.MethodPatch, "/api/users/verifyUser/"+token, nil), http.StatusOK)
	// The laptop sees a change made in another browser once the read models have it (its own
	// changes it would wait for, by sending their position).
	a.CatchUp(t)
	me := laptop.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, me, http.StatusOK)
	if !decodeUser(t, me).IsVerified {
		t.Fatal("still unverified after following the link")
	}
	expect(t, a.browser(t).do(http.MethodPatch, "/api/users/verifyUser/"+token, nil), http.StatusBadRequest)

	// A second browser is new: the password alone is not enough.
	phone := a.browser(t)
	res = phone.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": pw})
	expect(t, res, http.StatusAccepted)
	if e := decodeJSON[newDeviceJSON](t, res); e.Status != "new_device" || !strings.Contains(e.Message, "New browser") || e.PendingLogin == "" {
		t.Fatalf("login from a new browser: %+v", e)
	}
	code := a.LatestCode(t, email, "sign-in code")
	res = phone.do(http.MethodPost, "/api/users/loginWithCode/"+url.PathEscape(email), map[string]string{"loginCode": "12345"})
	expect(t, res, http.StatusBadRequest)
	if e := decodeError(t, res); e.Message != "Access code must be 6 characters" {
		t.Errorf("short code: %q", e.Message)
	}
	res = phone.do(http.MethodPost, "/api/users/loginWithCode/"+url.PathEscape(email), map[string]string{"loginCode": code})
	expect(t, res, http.StatusOK)
	if decodeUser(t, res).Email != email {
		t.Fatal("signed in as someone else")
	}
	if !hasCookie(res, "cv_device") {
		t.Error("loginWithCode should trust the browser (cv_device)")
	}
	alerts := a.MailsTo(t, email, "sign-in")
	if !slices.ContainsFunc(alerts, func(m mailEntry) bool { return strings.Contains(m.Text, "/secure-account/") }) {
		t.Error("no new-device alert with a \"this wasn't me\" link")
	}

	// Now trusted: the password is enough on this browser.
	expect(t, phone.do(http.MethodGet, "/api/users/logout", nil), http.StatusOK)
	expect(t, phone.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	expect(t, phone.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": pw}), http.StatusOK)

	// The security log shows it, from the read model.
	log := phone.do(http.MethodGet, "/api/users/security-log", nil)
	expect(t, log, http.StatusOK)
	for _, kind := range []string{"registered", "email_verified", "new_device_sign_in", "signed_in"} {
		if !strings.Contains(string(log.body), `"kind":"`+kind+`"`) {
			t.Errorf("security log lacks %s: %s", kind, log.body)
		}
	}

	// "This wasn't me" from the alert ends every session and forgets the browsers.
	secure := a.LatestLink(t, email, "/secure-account/")
	expect(t, a.browser(t).do(http.MethodPost, "/api/users/secure-account/"+secure, nil), http.StatusOK)
	expect(t, phone.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	expect(t, laptop.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	res = phone.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": pw})
	expect(t, res, http.StatusAccepted)
	if e := decodeJSON[newDeviceJSON](t, res); e.Status != "new_device" {
		t.Errorf("after \"this wasn't me\" the browser should be a stranger again: %+v", e)
	}
}

func TestRefreshRotatesTheSession(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b, _ := a.member(t, "refresher@example.com", "subscriber")
	res := b.do(http.MethodPost, "/api/users/refresh", nil)
	expect(t, res, http.StatusOK)
	var tok struct{ Token string }
	if err := json.Unmarshal(res.body, &tok); err != nil || tok.Token == "" {
		t.Fatalf("refresh body %s", res.body)
	}
	if !hasCookie(res, "cv_access") || !hasCookie(res, "cv_refresh") {
		t.Error("refresh should set new cv_access and cv_refresh cookies")
	}
	// The page reads the signed-in hint to decide whether a refresh is worth asking for, so it
	// must be readable by script and live as long as the refresh cookie.
	hint, refresh := cookieNamed(res, "cv_signed_in"), cookieNamed(res, "cv_refresh")
	if hint == nil || hint.Value != "1" || hint.HttpOnly || hint.Path != "/" || hint.MaxAge != refresh.MaxAge {
		t.Errorf("refresh should set a script-readable cv_signed_in=1 for the refresh cookie's life, got %+v", hint)
	}
	expect(t, a.apiClient(t, tok.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
	// Without the header a cross-site page could refresh (and learn nothing, but still).
	c := *b
	c.header = http.Header{}
	expect(t, c.do(http.MethodPost, "/api/users/refresh", nil), http.StatusForbidden)
	// No cookie at all: sign in again.
	expect(t, a.browser(t).do(http.MethodPost, "/api/users/refresh", nil), http.StatusUnauthorized)
	// Signing out clears the hint with the session.
	res = b.do(http.MethodGet, "/api/users/logout", nil)
	expect(t, res, http.StatusOK)
	if c := cookieNamed(res, "cv_signed_in"); c == nil || c.MaxAge >= 0 {
		t.Errorf("logout should clear cv_signed_in, got %+v", c)
	}
}

func TestRegisterValidation(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	valid := map[string]any{"name": "Ann", "email": "ann@example.com", "password": "long enough phrase",
		"phone": "+447700900123", "country": "GB", "acceptTerms": true}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range valid {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		body   map[string]any
		status int
		msg    string
	}{
		{with("name", ""), 400, "All fields are required"},
		{with("email", "not-an-email"), 400, "Please enter a valid email"},
		{with("phone", "0123"), 400, "Please enter a valid Phone Number"},
		{with("password", "short"), 400, "Password must be at least 8 characters"},
		{with("confirmPassword", "something else"), 400, "Passwords do not match"},
		{with("referralCode", "NOSUCHCODE"), 400, "Invalid referral code"},
	} {
		res := a.browser(t).do(http.MethodPost, "/api/users/register", tc.body)
		expect(t, res, tc.status)
		if e := decodeError(t, res); e.Message != tc.msg {
			t.Errorf("%v: message %q, want %q", tc.body, e.Message, tc.msg)
		}
	}
	expect(t, a.browser(t).do(http.MethodPost, "/api/users/register", valid), http.StatusCreated)
	res := a.browser(t).do(http.MethodPost, "/api/users/register", with("email", "ANN@example.com"))
	expect(t, res, http.StatusConflict)

	// A referral code from a shared link (?ref=) is used when the body has none.
	a.CatchUp(t)
	var code string
	if err := a.Pool.QueryRow(context.Background(), `SELECT referral_code FROM rm_users.users WHERE email_lower = 'ann@example.com'`).Scan(&code); err != nil || code == "" {
		t.Fatalf("ann's referral code %q: %v", code, err)
	}
	res = a.browser(t).do(http.MethodPost, "/api/users/register?ref="+code, with("email", "friend@example.com"))
	expect(t, res, http.StatusCreated)
}

// Consent at sign-up (docs/identity.md, "Consent"): without "acceptTerms": true nothing is
// created; with it, the new user's stream records the versions of both documents as served.
func TestRegisterNeedsConsentAndRecordsTheVersions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	body := func(email string, extra map[string]any) map[string]any {
		m := map[string]any{"name": "Ann", "email": email, "password": "long enough phrase", "phone": "+447700900123", "country": "GB"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	for name, extra := range map[string]map[string]any{
		"missing": nil,
		"false":   {"acceptTerms": false},
	} {
		res := a.browser(t).do(http.MethodPost, "/api/users/register", body("ann@example.com", extra))
		expect(t, res, http.StatusBadRequest)
		if e := decodeError(t, res); e.Message != "Please accept the Terms and the Privacy Policy to create an account" || e.Field != "acceptTerms" {
			t.Errorf("%s: %+v", name, e)
		}
		if hasCookie(res, "cv_access") {
			t.Errorf("%s: signed in without consent", name)
		}
	}
	if n := a.count(t, `SELECT count(*) FROM events`); n != 0 {
		t.Fatalf("%d events after refused sign-ups, want none", n)
	}
	if n := a.count(t, `SELECT count(*) FROM mail_outbox`); n != 0 {
		t.Fatalf("%d e-mails queued after refused sign-ups, want none", n)
	}

	res := a.browser(t).do(http.MethodPost, "/api/users/register", body("ann@example.com", map[string]any{"acceptTerms": true}))
	expect(t, res, http.StatusCreated)
	u := decodeUser(t, res)
	var terms, privacy string
	if err := a.Pool.QueryRow(context.Background(), `SELECT data->>'termsVersion', data->>'privacyVersion' FROM events
		WHERE stream_id = $1 AND type = 'user.terms_accepted'`, "user-"+u.ID).Scan(&terms, &privacy); err != nil {
		t.Fatalf("no consent event: %v", err)
	}
	wantTerms, wantPrivacy, err := shippedContent(t).LegalVersions()
	if err != nil || wantTerms == "" || wantPrivacy == "" {
		t.Fatalf("the served documents have no versions: %q %q %v", wantTerms, wantPrivacy, err)
	}
	if terms != wantTerms || privacy != wantPrivacy {
		t.Errorf("recorded versions %q / %q, want %q / %q", terms, privacy, wantTerms, wantPrivacy)
	}
	// The documents say which version they are.
	page := a.browser(t).do(http.MethodGet, "/api/content/pages/privacy-policy", nil)
	expect(t, page, http.StatusOK)
	if !strings.Contains(string(page.body), `"updated":"`+wantPrivacy+`"`) {
		t.Errorf("privacy policy without its version: %s", page.body[:min(200, len(page.body))])
	}
}

// E-mails follow the user's language: given at sign-up, changed while signed in.
func TestEmailsAreWrittenInTheUsersLanguage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b := a.browser(t)
	res := b.do(http.MethodPost, "/api/users/register", map[string]any{"name": "Grete", "email": "grete@example.com",
		"password": "long enough phrase", "phone": "+4915112345678", "country": "DE", "acceptTerms": true, "language": "de"})
	expect(t, res, http.StatusCreated)
	subjects := func() []string {
		rows, err := a.Pool.Query(context.Background(), `SELECT subject FROM mail_outbox WHERE to_address = 'grete@example.com' ORDER BY created_at, subject`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	if got := subjects(); len(got) != 1 || got[0] != "Bestätigen Sie Ihre E-Mail-Adresse für Clearvest" {
		t.Fatalf("a German user's verification e-mail: %q", got)
	}
	var text string
	if err := a.Pool.QueryRow(context.Background(), `SELECT text_body FROM mail_outbox WHERE to_address = 'grete@example.com'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Hallo Grete,") || !strings.Contains(text, "Der Link ist 1 Tag gültig.") {
		t.Errorf("the verification e-mail is not German: %s", text)
	}

	// Back to English while signed in: the next e-mail is English.
	expect(t, b.do(http.MethodPatch, "/api/users/language", map[string]string{"language": "xx"}), http.StatusBadRequest)
	expect(t, b.do(http.MethodPatch, "/api/users/language", map[string]string{"language": "en"}), http.StatusOK)
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'user.language_changed'`); n != 2 {
		t.Errorf("%d language events, want 2 (German at sign-up, then English)", n)
	}
	expect(t, a.browser(t).do(http.MethodPost, "/api/users/forgotPassword", map[string]string{"email": "grete@example.com"}), http.StatusOK)
	if got := subjects(); len(got) != 2 || !slices.Contains(got, "Reset your Clearvest password") {
		t.Errorf("after choosing English: %q", got)
	}
}

func hasCookie(r response, name string) bool {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == name && c.Value != "" {
			return true
		}
	}
	return false
}

package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"clearvest/api"
	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/queuefeed"
	"clearvest/content"
	keys "clearvest/platform/idempotency"
	"clearvest/platform/mail"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/sitecontent"
)

// app is the real HTTP API around a real accounts service on its own database.
type app struct {
	*accountstest.Env
	srv *httptest.Server
}

func newApp(t testing.TB, opts ...accountstest.Option) *app {
	t.Helper()
	return serve(t, accountstest.New(t, opts...), nil)
}

// newAppWith serves another app's service under another environment.
func newAppWith(t testing.TB, a *app, env string) *app {
	return serve(t, a.Env, func(d *api.Deps) { d.Env = env })
}

// newAppBehind serves another app's service trusting the given proxies (CIDR prefixes).
func newAppBehind(t testing.TB, a *app, trusted ...string) *app {
	t.Helper()
	return serve(t, a.Env, func(d *api.Deps) {
		for _, s := range trusted {
			d.TrustedProxies = append(d.TrustedProxies, netip.MustParsePrefix(s))
		}
	})
}

// newAppWaitingOn serves another app's service with another read-your-writes waiter.
func newAppWaitingOn(t testing.TB, a *app, w api.Waiter) *app {
	return serve(t, a.Env, func(d *api.Deps) { d.ReadYourWrites = w })
}

// serve runs the API around env's service over real HTTP; adjust changes the dependencies.
func serve(t testing.TB, env *accountstest.Env, adjust func(*api.Deps)) *app {
	if err := pgmigrate.Apply(context.Background(), env.Pool, keys.Migrations); err != nil {
		t.Fatal(err)
	}
	idem, err := keys.NewStore(env.Pool, env.Secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	deps := api.Deps{
		Logger:         slog.New(slog.DiscardHandler),
		Env:            api.EnvDevelopment,
		Accounts:       env.Accounts,
		PublicURL:      accountstest.PublicURL,
		MailboxDir:     env.MailDir,
		ReadYourWrites: env.Runner,
		Idempotency:    idem,
		Content:        shippedContent(t),
		QueueFeed:      queuefeed.New(env.Store, 0, slog.New(slog.DiscardHandler)),
	}
	t.Cleanup(deps.QueueFeed.Close)
	if adjust != nil {
		adjust(&deps)
	}
	srv := httptest.NewUnstartedServer(api.New(deps))
	// Requests' queries are marked for a queryCounter (WithQueryTracer), as in serveCounted.
	srv.Config.BaseContext = func(net.Listener) context.Context {
		return context.WithValue(context.Background(), countedKey{}, true)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return &app{Env: env, srv: srv}
}

// shippedContent is the site content the binary ships: among it the terms and the privacy
// policy whose versions a sign-up records.
func shippedContent(t testing.TB) *sitecontent.Store {
	t.Helper()
	s, err := sitecontent.New(content.Files(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// client is one browser (a cookie jar, sending what the UI sends) or, with bearer set, an API
// client.
type client struct {
	t      *testing.T
	app    *app
	http   *http.Client
	bearer string
	// header is added to every request (tests remove or change the UI's defaults here).
	header http.Header
	// position is the highest X-Clearvest-Position seen, sent back like the UI does so that
	// queries see the client's own writes.
	position int64
}

// browser returns a client that behaves like the UI: cookies, same origin, the CSRF header.
func (a *app) browser(t *testing.T) *client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, app: a, http: &http.Client{Jar: jar}, header: http.Header{
		"Origin":           {a.srv.URL},
		"X-Requested-With": {"XMLHttpRequest"},
		"User-Agent":       {"Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"},
	}}
}

// apiClient returns a client without cookies, which authenticates with a bearer token.
func (a *app) apiClient(t *testing.T, token string) *client {
	return &client{t: t, app: a, http: &http.Client{}, bearer: token, header: http.Header{}}
}

func (c *client) do(method, path string, body any) response {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.app.srv.URL+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	if c.position > 0 && method == http.MethodGet {
		req.Header.Set("X-Clearvest-Position", strconv.FormatInt(c.position, 10))
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if p, err := strconv.ParseInt(res.Header.Get("X-Clearvest-Position"), 10, 64); err == nil {
		c.position = max(c.position, p)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

type apiError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Field   string `json:"field"`
}

func decodeError(t *testing.T, r response) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(r.body, &e); err != nil || e.Message == "" {
		t.Fatalf("status %d: body %q is not an error with a message", r.status, r.body)
	}
	return e
}

type userJSON struct {
	ID         string `json:"_id"`
	Email      string `json:"email"`
	Name       string `json:"name"`
	Role       string `json:"role"`
	Status     string `json:"status"`
	IsVerified bool   `json:"isVerified"`
	Token      string `json:"token"`
	Photo      string `json:"photo"`
}

func decodeUser(t *testing.T, r response) userJSON {
	t.Helper()
	var u userJSON
	if err := json.Unmarshal(r.body, &u); err != nil || u.ID == "" {
		t.Fatalf("status %d: body %q is not a user", r.status, r.body)
	}
	return u
}

func expect(t *testing.T, r response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
}

const testPassword = "quiet-harbour-lantern-42"

// member creates an account with a verified e-mail and signs it in through the API from a new
// browser: password, then the e-mailed code (which also trusts the browser). It returns the
// browser (cookies) and the user with its bearer token.
func (a *app) member(t *testing.T, email, role string) (*client, userJSON) {
	t.Helper()
	if _, err := a.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: "Test " + role, Email: email, Password: testPassword, Role: role, Verified: true,
	}); err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	b := a.browser(t)
	res := b.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": testPassword})
	expect(t, res, http.StatusAccepted)
	if e := decodeJSON[newDeviceJSON](t, res); e.Status != "new_device" {
		t.Fatalf("first login from a new browser: %+v, want status new_device", e)
	}
	code := a.LatestCode(t, email, "sign-in code")
	res = b.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": code})
	expect(t, res, http.StatusOK)
	return b, decodeUser(t, res)
}

type mailEntry = mail.MailboxEntry

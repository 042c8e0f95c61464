package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
)

// TestCSRFProductionIgnoresHost: in production the request's Host proves nothing (anyone may
// point a name of their own at the server), so an Origin that only matches the Host is refused,
// with a session cookie or without one, and only the public URL's origin passes. Development
// still accepts the Host's origin, so a server reached at 127.0.0.1 works.
func TestCSRFProductionIgnoresHost(t *testing.T) {
	t.Parallel()
	dev := newApp(t)
	_, u := dev.member(t, "csrf-host@example.com", "subscriber")
	prod := newAppWith(t, dev, api.EnvProduction)

	send := func(t *testing.T, a *app, method, path, host, origin string, cookie bool, body any) response {
		t.Helper()
		j, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequestWithContext(t.Context(), method, a.srv.URL+path, bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Origin", origin)
		req.Header.Set("X-Requested-With", "XMLHttpRequest")
		req.Header.Set("Content-Type", "application/json")
		if cookie {
			// Set by hand: the production cookie is Secure, which a jar keeps off plain http.
			req.AddCookie(&http.Cookie{Name: api.CookieAccess, Value: u.Token})
		}
		res, err := a.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return response{status: res.StatusCode, header: res.Header, body: b}
	}
	update := map[string]string{"bio": "hello"}
	login := map[string]string{"email": u.Email, "password": testPassword}
	const forged = "evil.example"

	t.Run("production refuses an origin that only matches a forged Host", func(t *testing.T) {
		res := send(t, prod, http.MethodPatch, "/api/users/updateUser", forged, "https://"+forged, true, update)
		expect(t, res, http.StatusForbidden)
		if e := decodeError(t, res); e.Message != "Cross-site request refused" {
			t.Errorf("message %q", e.Message)
		}
		expect(t, send(t, prod, http.MethodPatch, "/api/users/updateUser", forged, "http://"+forged, true, update), http.StatusForbidden)
		// Without a cookie too: no signing a visitor in to another account from that origin.
		expect(t, send(t, prod, http.MethodPost, "/api/users/login", forged, "https://"+forged, false, login), http.StatusForbidden)
	})
	t.Run("production accepts the public URL's origin", func(t *testing.T) {
		host := prod.srv.Listener.Addr().String()
		expect(t, send(t, prod, http.MethodPatch, "/api/users/updateUser", host, accountstest.PublicURL, true, update), http.StatusOK)
		expect(t, send(t, prod, http.MethodPatch, "/api/users/updateUser", forged, accountstest.PublicURL, true, update), http.StatusOK)
	})
	t.Run("production refuses the Host's origin even when it is the server's own address", func(t *testing.T) {
		host := prod.srv.Listener.Addr().String()
		expect(t, send(t, prod, http.MethodPatch, "/api/users/updateUser", host, "http://"+host, true, update), http.StatusForbidden)
	})
	t.Run("development accepts the Host's origin", func(t *testing.T) {
		expect(t, send(t, dev, http.MethodPatch, "/api/users/updateUser", forged, "http://"+forged, true, update), http.StatusOK)
	})
}

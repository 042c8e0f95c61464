package api_test

import (
	"net/http"
	"testing"
)

// TestNullCharacterIsABadRequest sends U+0000, which PostgreSQL's text and jsonb cannot store,
// in a JSON body, a query and a path: each is a 400 with a message, never a server error, and a
// literal backslash followed by "u0000" is ordinary text.
func TestNullCharacterIsABadRequest(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const message = `Text cannot contain the null character (\u0000).`
	for name, req := range map[string]struct{ method, path, body string }{
		"a referral code": {http.MethodPost, "/api/users/register",
			`{"name":"Ann","email":"ann@example.com","password":"long enough phrase","phone":"+447700900123","country":"GB","referralCode":"\u0000"}`},
		"a password": {http.MethodPost, "/api/users/register",
			`{"name":"Ann","email":"ann@example.com","password":"long enough\u0000phrase","phone":"+447700900123","country":"GB"}`},
		"a key":           {http.MethodPost, "/api/users/login", `{"email":"ann@example.com","password":"x","x\u0000":1}`},
		"a query":         {http.MethodPost, "/api/users/register?ref=%00", `{}`},
		"a path":          {http.MethodGet, "/api/users/photo/a%00b", ""},
		"a nested string": {http.MethodPost, "/api/users/login", `{"email":"ann@example.com","password":"x","deep":[{"a":"\u0000"}]}`},
	} {
		var body any
		if req.body != "" {
			body = req.body
		}
		res := a.browser(t).do(req.method, req.path, body)
		if res.status != http.StatusBadRequest || decodeError(t, res).Message != message {
			t.Errorf("%s: %d %s, want 400 %q", name, res.status, res.body, message)
		}
	}
	res := a.browser(t).do(http.MethodPost, "/api/users/register",
		`{"name":"Ann","email":"ann@example.com","password":"long enough \\u0000 phrase","phone":"+447700900123","country":"GB","acceptTerms":true}`)
	expect(t, res, http.StatusCreated)
}

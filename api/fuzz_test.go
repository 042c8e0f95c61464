package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// The fuzz targets post arbitrary bodies to the real sign-up and sign-in endpoints and check the
// contract for bad input: never a server error or a crash, and every 400 is JSON with a message
// for the user.

func checkDecodeContract(t *testing.T, a *app, path string, body []byte) {
	res := a.browser(t).do(http.MethodPost, path, body)
	if res.status >= 500 {
		t.Fatalf("body %q: status %d %s", body, res.status, res.body)
	}
	if !json.Valid(body) || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		if res.status != http.StatusBadRequest {
			t.Fatalf("body %q is not a JSON object but got %d", body, res.status)
		}
	}
	if res.status == http.StatusBadRequest {
		var e struct {
			Message string `json:"message"`
		}
		if err := json.Unmarshal(res.body, &e); err != nil || e.Message == "" {
			t.Fatalf("body %q: 400 without a message: %s", body, res.body)
		}
	}
}

func FuzzDecodeRegister(f *testing.F) {
	for _, seed := range []string{
		`{"name":"Ann","email":"ann@example.com","password":"long enough phrase","phone":"+447700900123","country":"GB"}`,
		`{"name":1}`, `{"email":null}`, `[]`, `null`, `"x"`, `{`, ``, `{"name":"\u0000"}`,
		`{"name":"Ann","email":"ann@example.com","password":"x","confirmPassword":"y","phone":"1","country":"ZZ"}`,
		`{"referralCode":"` + string(bytes.Repeat([]byte("A"), 100)) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	a := newApp(f) // one server and database for the whole run
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecodeContract(t, a, "/api/users/register", body)
	})
}

func FuzzDecodeLogin(f *testing.F) {
	for _, seed := range []string{
		`{"email":"ann@example.com","password":"long enough phrase"}`,
		`{"email":"","password":""}`, `{"email":5}`, `{"totpCode":{}}`, `[1,2]`, `true`, `{"email":"a@b"`, ``,
	} {
		f.Add([]byte(seed))
	}
	a := newApp(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecodeContract(t, a, "/api/users/login", body)
	})
}

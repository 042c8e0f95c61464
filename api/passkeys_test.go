package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/platform/auth/passkey/passkeytest"
)

type ceremonyJSON struct {
	ChallengeID string         `json:"challengeId"`
	PublicKey   map[string]any `json:"publicKey"`
}

type passkeyListJSON struct {
	Passkeys []struct {
		ID         string  `json:"id"`
		Name       string  `json:"name"`
		LastUsedAt *string `json:"lastUsedAt"`
	} `json:"passkeys"`
}

// onLocalhost is the app as a browser at http://localhost:PORT reaches it: an IP address cannot
// be a passkey's relying party, and development runs the ceremony at the browser's origin.
func onLocalhost(a *app) *app {
	return &app{Env: a.Env, srv: &httptest.Server{URL: strings.Replace(a.srv.URL, "127.0.0.1", "localhost", 1)}}
}

// localBrowser is a fresh browser on the app's localhost address.
func localBrowser(t *testing.T, a *app) *client {
	t.Helper()
	b := onLocalhost(a).browser(t)
	return b
}

// memberOnLocalhost signs an account in from a browser at localhost.
func memberOnLocalhost(t *testing.T, a *app, email, role string) (*client, userJSON) {
	t.Helper()
	return onLocalhost(a).member(t, email, role)
}

func registerPasskey(t *testing.T, b *client, auth *passkeytest.Authenticator, name string) {
	t.Helper()
	res := b.do(http.MethodPost, "/api/users/passkeys/register/begin", nil)
	expect(t, res, http.StatusOK)
	c := decodeJSON[ceremonyJSON](t, res)
	cred, err := auth.Create(c.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	res = b.do(http.MethodPost, "/api/users/passkeys/register/finish", map[string]any{"challengeId": c.ChallengeID, "name": name, "credential": cred})
	expect(t, res, http.StatusCreated)
}

func passkeySignIn(t *testing.T, b *client, auth *passkeytest.Authenticator) response {
	t.Helper()
	res := b.do(http.MethodPost, "/api/users/passkeys/login/begin", nil)
	expect(t, res, http.StatusOK)
	c := decodeJSON[ceremonyJSON](t, res)
	cred, err := auth.Get(c.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return b.do(http.MethodPost, "/api/users/passkeys/login/finish", map[string]any{"challengeId": c.ChallengeID, "credential": cred})
}

func passkeyStepUp(t *testing.T, b *client, auth *passkeytest.Authenticator) response {
	t.Helper()
	res := b.do(http.MethodPost, "/api/users/step-up/passkey", nil)
	expect(t, res, http.StatusOK)
	c := decodeJSON[ceremonyJSON](t, res)
	cred, err := auth.Get(c.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return b.do(http.MethodPost, "/api/users/step-up", map[string]any{"passkey": map[string]any{"challengeId": c.ChallengeID, "credential": cred}})
}

// TestPasskeyRegisterSignInStepUpRemove: a member adds a passkey, signs in with it from a new
// browser without an e-mailed code, confirms a step-up with it, and removes it (which needs the
// step-up).
func TestPasskeyRegisterSignInStepUpRemove(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	local := onLocalhost(a)
	b, _ := memberOnLocalhost(t, a, "pia@example.com", "subscriber")
	auth, err := passkeytest.New(local.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	registerPasskey(t, b, auth, "  Work laptop ")
	res := b.do(http.MethodGet, "/api/users/passkeys", nil)
	expect(t, res, http.StatusOK)
	list := decodeJSON[passkeyListJSON](t, res)
	if len(list.Passkeys) != 1 || list.Passkeys[0].Name != "Work laptop" || list.Passkeys[0].ID != auth.CredentialID() || list.Passkeys[0].LastUsedAt != nil {
		t.Fatalf("passkeys after adding one: %+v", list)
	}

	// A new browser signs in with the passkey alone: no e-mail, no password, no code.
	fresh := localBrowser(t, a)
	res = passkeySignIn(t, fresh, auth)
	expect(t, res, http.StatusOK)
	if u := decodeUser(t, res); u.Email != "pia@example.com" || u.Token == "" {
		t.Fatalf("passkey sign-in: %+v", u)
	}
	res = fresh.do(http.MethodGet, "/api/users/passkeys", nil)
	expect(t, res, http.StatusOK)
	if l := decodeJSON[passkeyListJSON](t, res); l.Passkeys[0].LastUsedAt == nil {
		t.Fatalf("last use not recorded: %s", res.body)
	}

	// Removing needs a fresh step-up; the passkey gives one.
	path := "/api/users/passkeys/" + auth.CredentialID()
	if e := decodeError(t, fresh.do(http.MethodDelete, path, nil)); e.Code != "step_up_required" {
		t.Fatalf("remove without a step-up: %+v", e)
	}
	res = fresh.do(http.MethodGet, "/api/users/step-up", nil)
	if s := decodeJSON[struct{ Confirmed, Passkey bool }](t, res); s.Confirmed || !s.Passkey {
		t.Fatalf("step-up state: %s", res.body)
	}
	expect(t, passkeyStepUp(t, fresh, auth), http.StatusOK)
	expect(t, fresh.do(http.MethodDelete, path, nil), http.StatusOK)
	res = fresh.do(http.MethodGet, "/api/users/passkeys", nil)
	if l := decodeJSON[passkeyListJSON](t, res); len(l.Passkeys) != 0 {
		t.Fatalf("passkeys after removing: %s", res.body)
	}
	// A removed passkey signs in no more.
	if e := decodeError(t, passkeySignIn(t, localBrowser(t, a), auth)); e.Code != "passkey_unknown" {
		t.Fatalf("sign-in with a removed passkey: %+v", e)
	}
}

// TestPasskeyChallengeIsSingleUse: an answer sent twice, or to another ceremony's kind, is
// refused; so is a challenge begun by another session.
func TestPasskeyChallengeIsSingleUse(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	local := onLocalhost(a)
	b, _ := memberOnLocalhost(t, a, "rex@example.com", "subscriber")
	auth, err := passkeytest.New(local.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	registerPasskey(t, b, auth, "Phone")

	res := b.do(http.MethodPost, "/api/users/passkeys/login/begin", nil)
	c := decodeJSON[ceremonyJSON](t, res)
	cred, err := auth.Get(c.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"challengeId": c.ChallengeID, "credential": cred}
	expect(t, localBrowser(t, a).do(http.MethodPost, "/api/users/passkeys/login/finish", body), http.StatusOK)
	replay := localBrowser(t, a).do(http.MethodPost, "/api/users/passkeys/login/finish", body)
	expect(t, replay, http.StatusBadRequest)
	if e := decodeError(t, replay); e.Code != "passkey_challenge" {
		t.Fatalf("replayed sign-in: %+v", e)
	}

	// A step-up challenge of one session is no good in another session of the same person.
	other := localBrowser(t, a)
	expect(t, passkeySignIn(t, other, auth), http.StatusOK)
	res = b.do(http.MethodPost, "/api/users/step-up/passkey", nil)
	c = decodeJSON[ceremonyJSON](t, res)
	cred, err = auth.Get(c.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	res = other.do(http.MethodPost, "/api/users/step-up", map[string]any{"passkey": map[string]any{"challengeId": c.ChallengeID, "credential": cred}})
	if e := decodeError(t, res); res.status != http.StatusBadRequest || e.Code != "passkey_challenge" {
		t.Fatalf("another session's challenge: %d %+v", res.status, e)
	}
}

// TestPasskeyCounterRegressionRefused: an assertion whose signature counter did not advance
// (what a copied authenticator shows) signs in no one and confirms nothing.
func TestPasskeyCounterRegressionRefused(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	local := onLocalhost(a)
	b, _ := memberOnLocalhost(t, a, "cal@example.com", "subscriber")
	auth, err := passkeytest.New(local.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	registerPasskey(t, b, auth, "Key")
	expect(t, passkeySignIn(t, localBrowser(t, a), auth), http.StatusOK) // counter 1
	expect(t, passkeySignIn(t, localBrowser(t, a), auth), http.StatusOK) // counter 2
	auth.Counter = 1                                                     // the next answer says 2 again
	res := passkeySignIn(t, localBrowser(t, a), auth)
	if e := decodeError(t, res); res.status != http.StatusForbidden || e.Code != "passkey_counter" {
		t.Fatalf("sign-in with a counter that went back: %d %+v", res.status, e)
	}
	auth.Counter = 0
	res = passkeyStepUp(t, b, auth)
	if e := decodeError(t, res); res.status != http.StatusForbidden || e.Code != "passkey_counter" {
		t.Fatalf("step-up with a counter that went back: %d %+v", res.status, e)
	}
	auth.Counter = 5
	expect(t, passkeyStepUp(t, b, auth), http.StatusOK)
}

// TestPasskeyNeedsAHostName: an IP address cannot be a relying party, so a browser at
// 127.0.0.1 is told to use the site's name.
func TestPasskeyNeedsAHostName(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	res := a.browser(t).do(http.MethodPost, "/api/users/passkeys/login/begin", nil)
	expect(t, res, http.StatusUnprocessableEntity)
}

// TestStaffDecisionsNeedASecondFactorInProduction: in production an admin with only a password
// is refused every decision (403 staff_second_factor_required) but may still read the queues;
// with a passkey the decision goes on to its own checks. Development lets the password do.
func TestStaffDecisionsNeedASecondFactorInProduction(t *testing.T) {
	t.Parallel()
	dev := newApp(t)
	local := onLocalhost(dev)
	b, admin := memberOnLocalhost(t, dev, "ada@example.com", "admin")
	prod := newAppWith(t, dev, api.EnvProduction)
	decide := func(c *client) response {
		return c.do(http.MethodPatch, "/api/users/kyc/00000000-0000-7000-8000-000000000000/approve", map[string]any{})
	}

	res := decide(prod.apiClient(t, admin.Token))
	if e := decodeError(t, res); res.status != http.StatusForbidden || e.Code != "staff_second_factor_required" || !strings.Contains(e.Message, "Security tab") {
		t.Fatalf("production, password only: %d %+v", res.status, e)
	}
	expect(t, prod.apiClient(t, admin.Token).do(http.MethodGet, "/api/users/getUsers", nil), http.StatusOK)
	if e := decodeError(t, decide(b)); e.Code == "staff_second_factor_required" {
		t.Fatalf("development refused the password-only admin: %+v", e)
	}

	auth, err := passkeytest.New(local.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	registerPasskey(t, b, auth, "Office key")
	if e := decodeError(t, decide(prod.apiClient(t, admin.Token))); e.Code == "staff_second_factor_required" {
		t.Fatalf("production refused an admin with a passkey: %+v", e)
	}

	// An authenticator app counts as well.
	author, authorUser := dev.member(t, "abe@example.com", "author")
	if e := decodeError(t, decide(prod.apiClient(t, authorUser.Token))); e.Code != "staff_second_factor_required" {
		t.Fatalf("production, author with a password only: %+v", e)
	}
	enableTOTP(t, author, time.Now())
	if e := decodeError(t, decide(prod.apiClient(t, authorUser.Token))); e.Code == "staff_second_factor_required" {
		t.Fatalf("production refused an author with an authenticator app: %+v", e)
	}
}

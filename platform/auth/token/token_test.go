package token_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
	"clearvest/platform/auth/token"
)

var (
	secretA = bytes.Repeat([]byte{0xA1}, 32)
	secretB = bytes.Repeat([]byte{0xB2}, 32)
	start   = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
)

func newIssuer(t *testing.T, c clock.Clock, current []byte, previous ...[]byte) *token.Issuer {
	t.Helper()
	i, err := token.NewIssuer(c, current, previous...)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// sign makes a token the way an attacker or a misconfigured service would, to test what Verify
// accepts.
func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validClaims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"sub": uuid.NewString(), "sid": uuid.NewString(), "aud": "clearvest",
		"iat": now.Unix(), "exp": now.Add(15 * time.Minute).Unix(),
	}
}

func derived(t *testing.T, secret []byte) ([]byte, string) {
	t.Helper()
	key, err := auth.DeriveKey(secret, "clearvest access token v1")
	if err != nil {
		t.Fatal(err)
	}
	return key, auth.KeyID(key)
}

func TestIssueAndVerify(t *testing.T) {
	t.Parallel()
	c := clock.NewManual(start)
	i := newIssuer(t, c, secretA)
	user, session := uuid.New(), uuid.New()
	s, issued, err := i.Issue(user, session)
	if err != nil {
		t.Fatal(err)
	}
	got, err := i.Verify(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.UserID != user || got.SessionID != session || !got.IssuedAt.Equal(start) ||
		!got.ExpiresAt.Equal(start.Add(15*time.Minute)) || got != issued {
		t.Errorf("claims = %+v, issued %+v", got, issued)
	}

	// The wire format is part of the contract: other services and the tests of the API read it.
	parts := strings.Split(s, ".")
	var header, payload map[string]any
	decodePart(t, parts[0], &header)
	decodePart(t, parts[1], &payload)
	_, kid := derived(t, secretA)
	if header["alg"] != "HS256" || header["kid"] != kid || i.KeyID() != kid {
		t.Errorf("header = %v, want HS256 with kid %s", header, kid)
	}
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(kid) {
		t.Errorf("kid %q is not a short hex hash", kid)
	}
	if payload["aud"] != "clearvest" && !slicesContains(payload["aud"], "clearvest") {
		t.Errorf("aud = %v", payload["aud"])
	}
	if payload["sub"] != user.String() || payload["sid"] != session.String() ||
		payload["exp"].(float64)-payload["iat"].(float64) != 15*60 {
		t.Errorf("payload = %v", payload)
	}
}

func slicesContains(v any, s string) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func decodePart(t *testing.T, part string, into any) {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	c := clock.NewManual(start)
	i := newIssuer(t, c, secretA)
	s, _, _ := i.Issue(uuid.New(), uuid.New())
	c.Advance(14*time.Minute + 59*time.Second)
	if _, err := i.Verify(s); err != nil {
		t.Fatalf("a token just short of its 15 minutes is rejected: %v", err)
	}
	c.Advance(time.Second + token.Leeway + time.Second)
	_, err := i.Verify(s)
	if !errors.Is(err, token.ErrExpired) {
		t.Fatalf("an expired token: %v, want ErrExpired", err)
	}
	if kind, _, _ := domainerr.KindOf(err); kind != domainerr.Unauthenticated {
		t.Errorf("kind = %v", kind)
	}
}

func TestRejected(t *testing.T) {
	t.Parallel()
	c := clock.NewManual(start)
	i := newIssuer(t, c, secretA)
	key, kid := derived(t, secretA)
	otherKey, otherKid := derived(t, secretB)
	good, _, _ := i.Issue(uuid.New(), uuid.New())
	parts := strings.Split(good, ".")

	with := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		m := validClaims(start)
		edit(m)
		return m
	}
	tamperedPayload := func() string {
		var p map[string]any
		decodePart(t, parts[1], &p)
		p["sub"] = uuid.NewString()
		b, _ := json.Marshal(p)
		return parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
	}
	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT","kid":"` + kid + `"}`))

	tests := map[string]string{
		"garbage":                 "not.a.jwt",
		"empty":                   "",
		"tampered payload":        tamperedPayload(),
		"tampered signature":      parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2])),
		"alg none":                noneHeader + "." + parts[1] + ".",
		"alg none, jwt library":   sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid, validClaims(start)),
		"HS512 with the real key": sign(t, jwt.SigningMethodHS512, key, kid, validClaims(start)),
		"unknown kid":             sign(t, jwt.SigningMethodHS256, otherKey, otherKid, validClaims(start)),
		"unknown key, our kid":    sign(t, jwt.SigningMethodHS256, otherKey, kid, validClaims(start)),
		"no kid":                  sign(t, jwt.SigningMethodHS256, key, "", validClaims(start)),
		"raw secret as key":       sign(t, jwt.SigningMethodHS256, secretA, kid, validClaims(start)),
		"wrong aud":               sign(t, jwt.SigningMethodHS256, key, kid, with(func(m jwt.MapClaims) { m["aud"] = "other-service" })),
		"no aud":                  sign(t, jwt.SigningMethodHS256, key, kid, with(func(m jwt.MapClaims) { delete(m, "aud") })),
		"no exp":                  sign(t, jwt.SigningMethodHS256, key, kid, with(func(m jwt.MapClaims) { delete(m, "exp") })),
		"no iat":                  sign(t, jwt.SigningMethodHS256, key, kid, with(func(m jwt.MapClaims) { delete(m, "iat") })),
		"issued in the future":    sign(t, jwt.SigningMethodHS256, key, kid, with(func(m jwt.MapClaims) { m["iat"] = start.Add(time.Hour).Unix() })),
		"sub not a uuid":          sign(t, jwt.SigningMethodHS256, key, kid, with(func(m jwt.MapClaims) { m["sub"] = "admin" })),
		"no sid":                  sign(t, jwt.SigningMethodHS256, key, kid, with(func(m jwt.MapClaims) { delete(m, "sid") })),
	}
	// The control: the same helper with nothing wrong is accepted, so each failure above is
	// caused by its one defect.
	if _, err := i.Verify(sign(t, jwt.SigningMethodHS256, key, kid, validClaims(start))); err != nil {
		t.Fatalf("a well-formed token made by hand is rejected: %v", err)
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := i.Verify(s)
			if !errors.Is(err, token.ErrInvalid) {
				t.Errorf("Verify = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	c := clock.NewManual(start)
	old := newIssuer(t, c, secretA)
	rotated := newIssuer(t, c, secretB, secretA)
	dropped := newIssuer(t, c, secretB)

	oldToken, _, _ := old.Issue(uuid.New(), uuid.New())
	if _, err := rotated.Verify(oldToken); err != nil {
		t.Errorf("a token of the previous secret is rejected during rotation: %v", err)
	}
	if _, err := dropped.Verify(oldToken); !errors.Is(err, token.ErrInvalid) {
		t.Errorf("a token of a retired secret = %v, want ErrInvalid", err)
	}
	newToken, claims, _ := rotated.Issue(uuid.New(), uuid.New())
	if claims.KeyID != dropped.KeyID() || claims.KeyID == old.KeyID() {
		t.Errorf("rotated issuer signs with kid %s; current is %s", claims.KeyID, dropped.KeyID())
	}
	if _, err := old.Verify(newToken); !errors.Is(err, token.ErrInvalid) {
		t.Errorf("a process that does not know the new secret accepts its token: %v", err)
	}
}

func TestShortSecretRefused(t *testing.T) {
	t.Parallel()
	if _, err := token.NewIssuer(clock.System(), []byte("short")); err == nil {
		t.Error("NewIssuer accepted a 5-byte secret")
	}
	if _, err := token.NewIssuer(clock.System(), secretA, []byte("short")); err == nil {
		t.Error("NewIssuer accepted a 5-byte previous secret")
	}
}

// TestVerifiedTokensAreRemembered: a token is presented on every request of its life; once
// verified it is not parsed again, but its times still apply.
func TestVerifiedTokensAreRemembered(t *testing.T) {
	c := clock.NewManual(start)
	i := newIssuer(t, c, secretA)
	s, issued, _ := i.Issue(uuid.New(), uuid.New())
	if _, err := i.Verify(s); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if got, err := i.Verify(s); err != nil || got != issued {
			t.Fatalf("Verify = %+v, %v", got, err)
		}
	}); n != 0 {
		t.Errorf("verifying a known token allocates %.0f times: it is parsed again", n)
	}
	c.Advance(token.TTL + token.Leeway)
	if _, err := i.Verify(s); !errors.Is(err, token.ErrExpired) {
		t.Errorf("a remembered token past its life: %v, want ErrExpired", err)
	}
}

func TestImpersonationTokenCarriesTheAdminAndEndsWithTheView(t *testing.T) {
	t.Parallel()
	c := clock.NewManual(start)
	i := newIssuer(t, c, secretA)
	act := token.Impersonator{UserID: uuid.New(), Role: "admin", SessionID: uuid.New()}
	user, view := uuid.New(), uuid.New()
	s, claims, err := i.IssueImpersonation(user, view, act, start.Add(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !claims.ExpiresAt.Equal(start.Add(10 * time.Minute)) {
		t.Fatalf("expires %v, want the view's end", claims.ExpiresAt)
	}
	// Verified twice: once by its signature, once from memory.
	for range 2 {
		got, err := i.Verify(s)
		if err != nil {
			t.Fatal(err)
		}
		if got.UserID != user || got.SessionID != view || got.Impersonator == nil || *got.Impersonator != act {
			t.Fatalf("claims %+v", got)
		}
	}
	own, _, err := i.Issue(act.UserID, act.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := i.Verify(own); err != nil || got.Impersonator != nil {
		t.Fatalf("an own token: %+v, %v", got, err)
	}
}

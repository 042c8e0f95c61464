package google_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth/google"
)

const clientID = "1234-test.apps.googleusercontent.com"

// nonce is the one the sign-in request carried; the provider's tokens repeat it.
const nonce = "n-0S6_WzA2Mj"

var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// testKeys are generated once: RSA key generation is slow under the race detector.
var testKeys = sync.OnceValue(func() [2]*rsa.PrivateKey {
	var keys [2]*rsa.PrivateKey
	for i := range keys {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		keys[i] = k
	}
	return keys
})

// provider is a local OpenID provider: discovery document, JWKS, and a signer.
type provider struct {
	srv *httptest.Server

	mu        sync.Mutex
	published map[string]*rsa.PublicKey // kid → key, as served at /jwks
	jwksHits  int
}

func newProvider(t *testing.T) *provider {
	t.Helper()
	p := &provider{published: map[string]*rsa.PublicKey{"k1": &testKeys()[0].PublicKey}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		serveJSON(t, w, map[string]any{
			"issuer":                                p.srv.URL,
			"authorization_endpoint":                p.srv.URL + "/auth",
			"token_endpoint":                        p.srv.URL + "/token",
			"jwks_uri":                              p.srv.URL + "/jwks",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.jwksHits++
		var keys []map[string]string
		for kid, k := range p.published {
			keys = append(keys, map[string]string{
				"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
				"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
				"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()),
			})
		}
		serveJSON(t, w, map[string]any{"keys": keys})
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// serveJSON writes a provider document; a failure is the test's, not the code under test's.
func serveJSON(t *testing.T, w http.ResponseWriter, v any) {
	if err := json.NewEncoder(w).Encode(v); err != nil {
		t.Errorf("provider: writing %T: %v", v, err)
	}
}

func (p *provider) publish(kid string, k *rsa.PublicKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.published[kid] = k
}

func (p *provider) claims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss": p.srv.URL, "aud": clientID, "sub": "109876543210", "email": "alice@gmail.com",
		"email_verified": true, "name": "Alice Example", "picture": "https://example.com/a.png",
		"iat": start.Unix(), "exp": start.Add(time.Hour).Unix(), "nonce": nonce,
	}
}

func (p *provider) sign(t *testing.T, kid string, key *rsa.PrivateKey, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newVerifier(t *testing.T, p *provider, c clock.Clock, discover bool) *google.Verifier {
	t.Helper()
	cfg := google.Config{ClientID: clientID, Issuer: p.srv.URL, HTTPClient: p.srv.Client(), Clock: c}
	if !discover {
		cfg.JWKSURL = p.srv.URL + "/jwks"
	}
	v, err := google.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerify(t *testing.T) {
	t.Parallel()
	for _, discover := range []bool{true, false} {
		name := map[bool]string{true: "discovered keys", false: "configured JWKS URL"}[discover]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newProvider(t)
			v := newVerifier(t, p, clock.NewManual(start.Add(time.Minute)), discover)
			raw := p.sign(t, "k1", testKeys()[0], p.claims())
			id, err := v.Verify(context.Background(), raw, nonce)
			if err != nil {
				t.Fatal(err)
			}
			want := google.Identity{Subject: "109876543210", Email: "alice@gmail.com", Name: "Alice Example", Picture: "https://example.com/a.png"}
			if id != want {
				t.Errorf("Identity = %+v, want %+v", id, want)
			}
			if _, err := v.Verify(context.Background(), raw, ""); !errors.Is(err, google.ErrInvalidToken) {
				t.Errorf("Verify with no nonce to check the token against = %v, want ErrInvalidToken", err)
			}
		})
	}
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	c := clock.NewManual(start.Add(time.Minute))
	v := newVerifier(t, p, c, false)
	good := testKeys()[0]
	with := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		m := p.claims()
		edit(m)
		return m
	}
	hsToken := func() string {
		// Algorithm confusion: an HMAC keyed with the provider's public key material.
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, p.claims())
		tok.Header["kid"] = "k1"
		s, err := tok.SignedString(good.N.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	noneToken := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, p.claims())
		tok.Header["kid"] = "k1"
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name  string
		token string
		nonce string
		want  error
	}{
		{"garbage", "not-a-jwt", nonce, google.ErrInvalidToken},
		{"wrong audience", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { m["aud"] = "someone-else.apps.googleusercontent.com" })), nonce, google.ErrInvalidToken},
		{"wrong issuer", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { m["iss"] = "https://evil.example" })), nonce, google.ErrInvalidToken},
		{"expired", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { m["exp"] = start.Unix() })), nonce, google.ErrInvalidToken},
		{"no expiry", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { delete(m, "exp") })), nonce, google.ErrInvalidToken},
		{"signed by an unknown key", p.sign(t, "k1", testKeys()[1], p.claims()), nonce, google.ErrInvalidToken},
		{"unknown kid", p.sign(t, "k9", testKeys()[1], p.claims()), nonce, google.ErrInvalidToken},
		{"HS256 with the public key", hsToken(), nonce, google.ErrInvalidToken},
		{"alg none", noneToken(), nonce, google.ErrInvalidToken},
		{"wrong nonce", p.sign(t, "k1", good, p.claims()), "another-nonce", google.ErrInvalidToken},
		{"no nonce to check against", p.sign(t, "k1", good, p.claims()), "", google.ErrInvalidToken},
		{"a token without a nonce", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { delete(m, "nonce") })), nonce, google.ErrInvalidToken},
		{"e-mail not verified", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { m["email_verified"] = false })), nonce, google.ErrEmailNotVerified},
		{"e-mail verification missing", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { delete(m, "email_verified") })), nonce, google.ErrEmailNotVerified},
		{"no e-mail", p.sign(t, "k1", good, with(func(m jwt.MapClaims) { delete(m, "email") })), nonce, google.ErrInvalidToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tt.token, tt.nonce)
			if !errors.Is(err, tt.want) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
	if kind, _, ok := domainerr.KindOf(google.ErrInvalidToken); !ok || kind != domainerr.Unauthenticated {
		t.Errorf("ErrInvalidToken kind = %v (classified %v)", kind, ok)
	}
	// email_verified as the string "true", as older tokens had it, is accepted.
	if _, err := v.Verify(context.Background(), p.sign(t, "k1", good, with(func(m jwt.MapClaims) { m["email_verified"] = "true" })), nonce); err != nil {
		t.Errorf(`email_verified "true": %v`, err)
	}
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	v := newVerifier(t, p, clock.NewManual(start.Add(time.Minute)), false)
	if _, err := v.Verify(context.Background(), p.sign(t, "k1", testKeys()[0], p.claims()), nonce); err != nil {
		t.Fatal(err)
	}
	// The provider starts signing with a new key; the verifier has only cached the old set.
	p.publish("k2", &testKeys()[1].PublicKey)
	if _, err := v.Verify(context.Background(), p.sign(t, "k2", testKeys()[1], p.claims()), nonce); err != nil {
		t.Errorf("a token signed with a newly published key: %v", err)
	}
	p.mu.Lock()
	hits := p.jwksHits
	p.mu.Unlock()
	if hits != 2 {
		t.Errorf("the key set was fetched %d times, want 2 (once, then on the unknown kid)", hits)
	}
}

func TestNewVerifierNeedsAClientID(t *testing.T) {
	t.Parallel()
	if _, err := google.NewVerifier(google.Config{}); err == nil {
		t.Error("NewVerifier without a client id succeeded")
	}
}

func TestPKCE(t *testing.T) {
	t.Parallel()
	// RFC 7636, Appendix B.
	if got := google.PKCEChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Errorf("PKCEChallenge = %s", got)
	}
	verifier, challenge := google.NewPKCE()
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(verifier) || challenge != google.PKCEChallenge(verifier) {
		t.Errorf("NewPKCE = %q, %q", verifier, challenge)
	}
	if other, _ := google.NewPKCE(); other == verifier {
		t.Error("NewPKCE repeats itself")
	}
}

func TestState(t *testing.T) {
	t.Parallel()
	s := google.NewState()
	if len(s) != 43 || s == google.NewState() {
		t.Errorf("NewState = %q", s)
	}
	if !google.StateMatches(s, s) || google.StateMatches(s, s[:42]) || google.StateMatches("", "") {
		t.Error("StateMatches is wrong")
	}
}

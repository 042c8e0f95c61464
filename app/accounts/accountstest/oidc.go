package accountstest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// oidcKey is generated once: RSA key generation is slow under the race detector.
var oidcKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// OIDCProvider is a local OpenID provider for the Google redirect flow, to be named by
// GOOGLE_ISSUER: its authorize endpoint signs the configured person in at once and redirects
// back with a code; its token endpoint checks the PKCE verifier against the challenge before it
// hands out an ID token carrying the nonce.
type OIDCProvider struct {
	// URL is the issuer.
	URL      string
	clientID string

	mu    sync.Mutex
	sub   string
	email string
	name  string
	codes map[string]oidcGrant
}

type oidcGrant struct{ challenge, nonce, redirectURI, sub, email, name string }

// NewOIDCProvider serves a provider for clientID until the test ends.
func NewOIDCProvider(t testing.TB, clientID string) *OIDCProvider {
	t.Helper()
	p := &OIDCProvider{clientID: clientID, codes: map[string]oidcGrant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": p.URL, "authorization_endpoint": p.URL + "/authorize",
			"token_endpoint": p.URL + "/token", "jwks_uri": p.URL + "/jwks",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		k := &oidcKey().PublicKey
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "k1",
			"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()),
		}}})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != p.clientID || q.Get("response_type") != "code" ||
			q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
			q.Get("nonce") == "" || q.Get("state") == "" || !strings.Contains(q.Get("scope"), "openid") {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		code := rand.Text()
		p.codes[code] = oidcGrant{challenge: q.Get("code_challenge"), nonce: q.Get("nonce"),
			redirectURI: q.Get("redirect_uri"), sub: p.sub, email: p.email, name: p.name}
		p.mu.Unlock()
		back, err := url.Parse(q.Get("redirect_uri"))
		if err != nil {
			http.Error(w, "bad redirect_uri", http.StatusBadRequest)
			return
		}
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		g, ok := p.codes[r.PostFormValue("code")]
		delete(p.codes, r.PostFormValue("code"))
		p.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		if !ok || r.PostFormValue("grant_type") != "authorization_code" || r.PostFormValue("client_id") != p.clientID ||
			r.PostFormValue("redirect_uri") != g.redirectURI ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		now := time.Now()
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
			"iss": p.URL, "aud": p.clientID, "sub": g.sub, "email": g.email, "email_verified": true,
			"name": g.name, "nonce": g.nonce, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		})
		tok.Header["kid"] = "k1"
		raw, err := tok.SignedString(oidcKey())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"id_token": raw, "token_type": "Bearer", "access_token": "at"})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// As makes the provider sign in this Google account next.
func (p *OIDCProvider) As(sub, email, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sub, p.email, p.name = sub, email, name
}

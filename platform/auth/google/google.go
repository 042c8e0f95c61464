// Package google verifies "Sign in with Google" ID tokens and provides the PKCE and state helpers
// of the OAuth redirect flow. What a verified identity may do (sign in, link to an existing
// account, register) is the application's decision, not this package's.
package google

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
)

// DefaultIssuer is Google's OpenID issuer. Tokens may also say "accounts.google.com" without
// the scheme, which the verifier accepts for this issuer only, as Google documents.
const DefaultIssuer = "https://accounts.google.com"

var (
	// ErrInvalidToken: the ID token is forged, expired, for another client or from another issuer.
	ErrInvalidToken = domainerr.New(domainerr.Unauthenticated, "Google sign-in failed. Please try again.")
	// ErrEmailNotVerified: Google does not vouch for the address, so it cannot identify anyone
	// here (anyone can put any address on a Google account without verifying it).
	ErrEmailNotVerified = domainerr.New(domainerr.Forbidden, "Your Google account's email address is not verified.")
)

// Config says whose tokens to accept and where the keys are.
type Config struct {
	// ClientID is the OAuth client id (GOOGLE_CLIENT_ID); tokens must name it as audience.
	ClientID string
	// Issuer defaults to DefaultIssuer.
	Issuer string
	// JWKSURL is where the signing keys are; empty means discovering it from the issuer's
	// /.well-known/openid-configuration on first use.
	JWKSURL string
	// HTTPClient fetches discovery and keys; nil means a client with a 10-second timeout.
	HTTPClient *http.Client
	// Clock judges expiry; nil means the system clock.
	Clock clock.Clock
}

// Identity is what a verified ID token says about the person.
type Identity struct {
	Subject string // Google's stable user id: link accounts by this, not by e-mail
	Email   string
	Name    string
	Picture string
}

// Verifier checks ID tokens. It fetches nothing until the first Verify, so a server starts even
// when Google is unreachable, and it caches keys (refetching when a token names an unknown kid,
// which is how Google's key rotation shows up).
type Verifier struct {
	cfg Config

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
}

// NewVerifier returns a verifier for cfg.
func NewVerifier(cfg Config) (*Verifier, error) {
	if cfg.ClientID == "" {
		return nil, errors.New("google: a client id is required")
	}
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultIssuer
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System()
	}
	return &Verifier{cfg: cfg}, nil
}

func (v *Verifier) oidcVerifier(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.verifier != nil {
		return v.verifier, nil
	}
	config := &oidc.Config{
		ClientID: v.cfg.ClientID,
		// Pinning the algorithm closes algorithm-confusion attacks whatever the token claims.
		SupportedSigningAlgs: []string{oidc.RS256},
		Now:                  v.cfg.Clock.Now,
	}
	if v.cfg.JWKSURL != "" {
		// The key set keeps its context for later fetches: a background one, not a request's.
		keys := oidc.NewRemoteKeySet(oidc.ClientContext(context.Background(), v.cfg.HTTPClient), v.cfg.JWKSURL)
		v.verifier = oidc.NewVerifier(v.cfg.Issuer, keys, config)
		return v.verifier, nil
	}
	// Discovery runs under the request's context; the provider keeps only the HTTP client.
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, v.cfg.HTTPClient), v.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("google: discovery: %w", err)
	}
	v.verifier = provider.Verifier(config)
	return v.verifier, nil
}

// claims are the ID token fields used here beyond the standard ones go-oidc checks.
type claims struct {
	Email         string    `json:"email"`
	EmailVerified boolClaim `json:"email_verified"`
	Name          string    `json:"name"`
	Picture       string    `json:"picture"`
}

// boolClaim accepts true and "true": older Google tokens sent email_verified as a string.
type boolClaim bool

func (b *boolClaim) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true", `"true"`:
		*b = true
	default:
		*b = false
	}
	return nil
}

// Verify checks an ID token's signature (RS256, against the issuer's keys), issuer, audience and
// expiry, that Google verified the e-mail address, and that the token carries nonce: the value
// this browser's sign-in request sent, which binds the token to it. An ID token is otherwise a
// bearer credential that anyone who obtained it (another site the person signed in to with
// Google, a log) could replay here, so a token is never accepted without its nonce.
func (v *Verifier) Verify(ctx context.Context, rawIDToken, nonce string) (Identity, error) {
	if nonce == "" {
		return Identity{}, ErrInvalidToken.Wrap(errors.New("google: no nonce to check the token against"))
	}
	verifier, err := v.oidcVerifier(ctx)
	if err != nil {
		return Identity{}, err
	}
	tok, err := verifier.Verify(ctx, rawIDToken)
	if err != nil {
		return Identity{}, ErrInvalidToken.Wrap(err)
	}
	if subtle.ConstantTimeCompare([]byte(tok.Nonce), []byte(nonce)) != 1 {
		return Identity{}, ErrInvalidToken.Wrap(errors.New("google: nonce mismatch"))
	}
	var c claims
	if err := tok.Claims(&c); err != nil {
		return Identity{}, ErrInvalidToken.Wrap(err)
	}
	if tok.Subject == "" || c.Email == "" {
		return Identity{}, ErrInvalidToken.Wrap(errors.New("google: token without subject or e-mail"))
	}
	if !c.EmailVerified {
		return Identity{}, ErrEmailNotVerified
	}
	return Identity{Subject: tok.Subject, Email: c.Email, Name: c.Name, Picture: c.Picture}, nil
}

// NewPKCE returns a PKCE code verifier (RFC 7636, 32 random bytes) and its S256 challenge. The
// verifier stays with the browser's sign-in attempt (e.g. in a short-lived cookie); only the
// challenge goes into the authorisation URL.
func NewPKCE() (verifier, challenge string) {
	verifier = auth.NewToken()
	return verifier, PKCEChallenge(verifier)
}

// PKCEChallenge is the S256 challenge of a code verifier.
func PKCEChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// NewState returns an unguessable OAuth state value. Kept in a cookie and compared with the
// state that comes back, it proves the callback answers a sign-in this browser started (login
// CSRF protection).
func NewState() string { return auth.NewToken() }

// StateMatches compares the returned state with the expected one in constant time; an empty
// expected state never matches.
func StateMatches(expected, got string) bool {
	return expected != "" && subtle.ConstantTimeCompare([]byte(expected), []byte(got)) == 1
}

package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ErrExchange: the provider refused the authorisation code (reused, expired, or the PKCE
// verifier does not match its challenge).
var ErrExchange = ErrInvalidToken

// OAuthConfig describes the OAuth client of the redirect (authorisation-code) flow.
type OAuthConfig struct {
	ClientID string
	// ClientSecret is sent to the token endpoint when set (a confidential client).
	ClientSecret string
	// Issuer defaults to DefaultIssuer; its discovery document names the endpoints.
	Issuer string
	// HTTPClient talks to the provider; nil means a client with a 10-second timeout.
	HTTPClient *http.Client
}

// OAuth builds authorisation URLs and exchanges codes for ID tokens. Endpoints are discovered
// on first use and cached, so a server starts even when the provider is unreachable.
type OAuth struct {
	cfg OAuthConfig

	mu        sync.Mutex
	endpoints *endpoints
}

type endpoints struct {
	Issuer        string `json:"issuer"`
	Authorization string `json:"authorization_endpoint"`
	Token         string `json:"token_endpoint"`
	JWKS          string `json:"jwks_uri"`
}

// NewOAuth returns the client for cfg.
func NewOAuth(cfg OAuthConfig) (*OAuth, error) {
	if cfg.ClientID == "" {
		return nil, errors.New("google: a client id is required")
	}
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultIssuer
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &OAuth{cfg: cfg}, nil
}

func (o *OAuth) discover(ctx context.Context) (*endpoints, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.endpoints != nil {
		return o.endpoints, nil
	}
	u := strings.TrimSuffix(o.cfg.Issuer, "/") + "/.well-known/openid-configuration"
	var e endpoints
	if err := o.getJSON(ctx, u, &e); err != nil {
		return nil, fmt.Errorf("google: discovery: %w", err)
	}
	// A document naming another issuer would send users, codes and secrets somewhere else.
	if strings.TrimSuffix(e.Issuer, "/") != strings.TrimSuffix(o.cfg.Issuer, "/") {
		return nil, fmt.Errorf("google: discovery: issuer %q, want %q", e.Issuer, o.cfg.Issuer)
	}
	if e.Authorization == "" || e.Token == "" || e.JWKS == "" {
		return nil, errors.New("google: discovery: missing endpoints")
	}
	o.endpoints = &e
	return o.endpoints, nil
}

func (o *OAuth) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	res, err := o.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d", u, res.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(v)
}

// AuthURL is where the browser goes to sign in. Only the S256 challenge of the PKCE verifier
// leaves the server; state and nonce bind the answer to this browser's attempt.
func (o *OAuth) AuthURL(ctx context.Context, redirectURI, state, nonce, challenge string) (string, error) {
	e, err := o.discover(ctx)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(e.Authorization)
	if err != nil {
		return "", fmt.Errorf("google: authorization endpoint: %w", err)
	}
	q := u.Query()
	q.Set("response_type", "code")
	q.Set("client_id", o.cfg.ClientID)
	q.Set("redirect_uri", redirectURI)
	q.Set("scope", "openid email profile")
	q.Set("state", state)
	q.Set("nonce", nonce)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Exchange trades an authorisation code for the raw ID token, proving with the PKCE verifier
// that this server started the sign-in. The token still has to be verified.
func (o *OAuth) Exchange(ctx context.Context, code, verifier, redirectURI string) (string, error) {
	e, err := o.discover(ctx)
	if err != nil {
		return "", err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"code_verifier": {verifier},
		"redirect_uri":  {redirectURI},
		"client_id":     {o.cfg.ClientID},
	}
	if o.cfg.ClientSecret != "" {
		form.Set("client_secret", o.cfg.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.Token, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := o.cfg.HTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("google: token endpoint: %w", err)
	}
	defer res.Body.Close()
	var body struct {
		IDToken string `json:"id_token"`
		Error   string `json:"error"`
	}
	_ = json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&body)
	if res.StatusCode != http.StatusOK || body.IDToken == "" {
		return "", ErrExchange.Wrap(fmt.Errorf("google: token endpoint: status %d %s", res.StatusCode, body.Error))
	}
	return body.IDToken, nil
}

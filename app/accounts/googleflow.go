package accounts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"clearvest/platform/auth/google"
)

// The redirect (authorisation-code) flow keeps its state in the browser, sealed with a key
// derived from the secret key: nothing is stored server-side for sign-ins that are abandoned.

// GoogleFlowLife bounds both the sign-in attempt and a pending link: long enough to type a
// password or fetch an e-mailed code, short enough that a stolen cookie soon expires.
const GoogleFlowLife = 10 * time.Minute

// GoogleRedirectPath is where the provider sends the browser back, under the public URL.
const GoogleRedirectPath = "/api/users/google/redirect"

var (
	aadGoogleFlow = []byte("google-flow")
	aadGoogleLink = []byte("google-link")
)

// googleFlow is one sign-in attempt: what the browser must bring back.
type googleFlow struct {
	Verifier string `json:"v"`
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Return   string `json:"r"`
	Expires  int64  `json:"e"`
	// What the person agreed to on the sign-up page before starting, and their language.
	Terms    Consent `json:"c,omitzero"`
	Language string  `json:"l,omitempty"`
}

// GoogleConsent is what the sign-up page passes to GoogleStart: the consent the person gave
// (zero when the flow starts from the sign-in page) and the language they read in.
type GoogleConsent struct {
	Terms    Consent
	Language string
}

// googlePending is a verified Google identity waiting for the account's password or code.
type googlePending struct {
	IDToken string `json:"t"`
	Nonce   string `json:"n"`
	Return  string `json:"r"`
	Expires int64  `json:"e"`
}

// GoogleRedirectEnabled reports whether the redirect flow is configured.
func (s *Service) GoogleRedirectEnabled() bool {
	return s.google != nil && s.googleOAuth != nil && s.googleSealer != nil
}

// GoogleStart begins a redirect sign-in: the provider URL to send the browser to and the sealed
// flow to keep in a cookie until it comes back. returnPath is where to land afterwards; anything
// but a path on this site becomes "/".
func (s *Service) GoogleStart(ctx context.Context, returnPath string, consent GoogleConsent) (authURL, flow string, err error) {
	if !s.GoogleRedirectEnabled() {
		return "", "", ErrGoogleDisabled
	}
	verifier, challenge := google.NewPKCE()
	f := googleFlow{
		Verifier: verifier, State: google.NewState(), Nonce: google.NewState(),
		Return: SafeReturnPath(returnPath), Expires: s.clock.Now().Add(GoogleFlowLife).Unix(),
		Terms: consent.Terms, Language: consent.Language,
	}
	authURL, err = s.googleOAuth.AuthURL(ctx, s.googleRedirectURI(), f.State, f.Nonce, challenge)
	if err != nil {
		return "", "", err
	}
	return authURL, s.sealJSON(f, aadGoogleFlow), nil
}

// GoogleRedirectResult is the outcome of the provider's answer. On ErrLinkRequired (or
// ErrTOTPRequired) Pending holds the sealed identity for GoogleLink.
type GoogleRedirectResult struct {
	SignIn  SignIn
	Return  string
	Pending string
}

// GoogleRedirect finishes a redirect sign-in: the state must match the browser's flow, the code
// is exchanged with the PKCE verifier, and the ID token must carry the flow's nonce. Then it is
// googleSignIn, with its refusal to link an existing account on the e-mail alone.
func (s *Service) GoogleRedirect(ctx context.Context, flow, code, state string, c Client) (GoogleRedirectResult, error) {
	if !s.GoogleRedirectEnabled() {
		return GoogleRedirectResult{}, ErrGoogleDisabled
	}
	var f googleFlow
	if !s.openJSON(flow, aadGoogleFlow, &f) || s.clock.Now().Unix() > f.Expires ||
		!google.StateMatches(f.State, state) || code == "" {
		return GoogleRedirectResult{}, ErrGoogleInvalid
	}
	if err := s.limit(ctx, ruleLinkIP, c.IP); err != nil {
		return GoogleRedirectResult{}, err
	}
	raw, err := s.googleOAuth.Exchange(ctx, code, f.Verifier, s.googleRedirectURI())
	if err != nil {
		return GoogleRedirectResult{}, ErrGoogleInvalid.Wrap(err)
	}
	out := GoogleRedirectResult{Return: f.Return}
	out.SignIn, err = s.googleSignIn(ctx, GoogleInput{Credential: raw, Nonce: f.Nonce, Terms: f.Terms, Language: f.Language}, c)
	if errors.Is(err, ErrLinkRequired) || errors.Is(err, ErrTOTPRequired) {
		out.Pending = s.sealJSON(googlePending{
			IDToken: raw, Nonce: f.Nonce, Return: f.Return, Expires: s.clock.Now().Add(GoogleFlowLife).Unix(),
		}, aadGoogleLink)
	}
	return out, err
}

// GoogleLink completes a redirect sign-in that needed the account's password or e-mailed code
// (and the authenticator code, if the account has one). It returns where to land.
func (s *Service) GoogleLink(ctx context.Context, pending string, in GoogleInput, c Client) (SignIn, string, error) {
	if !s.GoogleRedirectEnabled() {
		return SignIn{}, "", ErrGoogleDisabled
	}
	var p googlePending
	if !s.openJSON(pending, aadGoogleLink, &p) || s.clock.Now().Unix() > p.Expires {
		return SignIn{}, "", ErrGoogleInvalid
	}
	in.Credential, in.Nonce = p.IDToken, p.Nonce
	out, err := s.googleSignIn(ctx, in, c)
	return out, p.Return, err
}

func (s *Service) googleRedirectURI() string {
	return strings.TrimSuffix(s.cfg.PublicURL, "/") + GoogleRedirectPath
}

func (s *Service) sealJSON(v any, aad []byte) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(s.googleSealer.Seal(b, aad))
}

func (s *Service) openJSON(sealed string, aad []byte, v any) bool {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(b) == 0 {
		return false
	}
	plain, err := s.googleSealer.Open(b, aad)
	return err == nil && json.Unmarshal(plain, v) == nil
}

// SafeReturnPath keeps a post-sign-in destination on this site: a relative path, never a URL
// or a scheme-relative "//host" that a browser would follow elsewhere (no open redirect).
func SafeReturnPath(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return p
}

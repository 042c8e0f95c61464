package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"clearvest/api/httperr"
	"clearvest/app/accounts"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
)

// Cookie names (docs/identity.md). The refresh cookie is scoped to the refresh endpoint so that
// it travels on exactly one request; the device cookie to /api/users, where sign-ins happen.
const (
	CookieAccess  = "cv_access"
	CookieRefresh = "cv_refresh"
	CookieDevice  = "cv_device"
	// CookieSignedIn is the one cookie the page may read: it holds no secret, only "1" for as long
	// as the refresh cookie lives, so the UI knows whether a refresh attempt can succeed. Without
	// it, every signed-out visit would spend a request on a refresh that must fail with a 401
	// (and the browser would log that 401 in the console).
	CookieSignedIn = "cv_signed_in"

	refreshCookiePath = "/api/users/refresh"
	deviceCookiePath  = "/api/users"
)

// Principal is the signed-in caller of a request.
type Principal struct {
	UserID    string
	Role      identity.Role
	SessionID string
	// ViaCookie is true when the browser's cookie (not a bearer token) authenticated the
	// request; only such requests need the CSRF checks.
	ViaCookie bool
	// Impersonator is the admin holding a view-as-user session (impersonation.go), nil for the
	// user's own session.
	Impersonator *accounts.Impersonator
}

// Authenticator resolves an access token to the principal behind it, checking the session and
// principal rows on every call, so that a sign-out, a role change or a suspension takes effect
// on the very next request. It fails with identity.ErrSuspended for a suspended principal and
// with another classified (401) error for anything else that is not a live session.
type Authenticator interface {
	Authenticate(ctx context.Context, accessToken string) (accounts.Principal, error)
}

type authState struct {
	principal *Principal
	// suspended: a valid token of a suspended user. Operations that need a sign-in answer 403
	// with the suspended message, so the UI can show why rather than a login form.
	suspended bool
	// token is the access token presented, valid or not; sign-out uses it to find the session.
	token     string
	viaCookie bool
}

type authKey struct{}

func authStateFrom(ctx context.Context) authState {
	st, _ := ctx.Value(authKey{}).(authState)
	return st
}

// PrincipalFrom returns the signed-in caller, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	st := authStateFrom(ctx)
	if st.principal == nil {
		return Principal{}, false
	}
	return *st.principal, true
}

// authenticate resolves the caller from `Authorization: Bearer` or else the cv_access cookie.
// It never refuses a request itself: an invalid or expired token makes the caller anonymous,
// and the policy (authorize) decides whether the operation needs more. Only a failure to check
// (the database is down) ends the request here, as a 500 rather than a misleading 401.
//
// It does not refresh an expired access token by itself: the refresh cookie is scoped to
// /api/users/refresh (so it travels on no other request), which means the UI answers a 401 by
// calling refreshSession once and retrying, as openapi.yaml describes.
func authenticate(a Authenticator) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var st authState
			if h := r.Header.Get("Authorization"); h != "" {
				if scheme, tok, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
					st.token = strings.TrimSpace(tok)
				}
			} else if c, err := r.Cookie(CookieAccess); err == nil {
				st.token, st.viaCookie = c.Value, true
			}
			if st.token != "" && a != nil {
				p, err := a.Authenticate(r.Context(), st.token)
				switch {
				case err == nil:
					st.principal = &Principal{UserID: p.UserID, Role: p.Role, SessionID: p.SessionID, ViaCookie: st.viaCookie, Impersonator: p.Impersonator}
				case errors.Is(err, identity.ErrSuspended):
					st.suspended = true
				default:
					if _, _, classified := domainerr.KindOf(err); !classified {
						httperr.Write(w, r, err)
						return
					}
				}
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authKey{}, st)))
		})
	}
}

var errCrossSite = domainerr.New(domainerr.Forbidden, "Cross-site request refused")

// csrf refuses requests another site could have made the browser send (docs/identity.md):
//
//   - a cookie-authenticated unsafe request (and GET /users/logout, which changes state) must
//     come from our origin — Origin equal to the public URL (in development also to the
//     request's own host), or Sec-Fetch-Site: same-origin — and carry X-Requested-With:
//     XMLHttpRequest. A cross-site
//     page cannot add that header without a CORS preflight, which this server never approves.
//   - any unsafe request that a browser marks as cross-site is refused even without cookies, so
//     another site cannot sign a visitor in to an account of its choosing (login CSRF).
//
// Bearer-token requests are not affected: a browser never attaches that header by itself.
//
// In production the request's Host is no evidence of anything: whoever can reach the server
// under another name (a DNS name of their own pointed at it, a proxy that passes Host through)
// would make their own origin "ours". Only CLEARVEST_PUBLIC_URL's origin counts there.
// Development accepts the Host too, so a server reached at 127.0.0.1 or on another port works.
func csrf(publicURL string, production bool) func(http.Handler) http.Handler {
	public := origin(publicURL)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !refusedCrossSite(r, public, !production) {
				next.ServeHTTP(w, r)
				return
			}
			httperr.Write(w, r, errCrossSite)
		})
	}
}

func refusedCrossSite(r *http.Request, public string, trustHost bool) bool {
	unsafe := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/users/logout") {
		unsafe = true
	}
	if !unsafe || strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "bearer ") {
		return false
	}
	o := r.Header.Get("Origin")
	sameOrigin := r.Header.Get("Sec-Fetch-Site") == "same-origin" ||
		(o != "" && (o == public || trustHost && (o == "http://"+r.Host || o == "https://"+r.Host)))
	if (o != "" && !sameOrigin) || r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return true
	}
	if !carriesSessionCookie(r) {
		return false
	}
	return !sameOrigin || r.Header.Get("X-Requested-With") != "XMLHttpRequest"
}

// carriesSessionCookie: a cookie that authenticates (or refreshes) a session is present, valid
// or not; checking the header does not depend on whether the cookie would have worked.
func carriesSessionCookie(r *http.Request) bool {
	for _, name := range []string{CookieAccess, CookieRefresh} {
		if _, err := r.Cookie(name); err == nil {
			return true
		}
	}
	return false
}

// origin returns scheme://host[:port] of a URL, the form browsers send in Origin.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

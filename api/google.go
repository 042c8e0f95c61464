package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"clearvest/api/apigen"
	"clearvest/app/accounts"
	"clearvest/domain/identity"
)

// The Google redirect flow's cookies are scoped to the one route that reads each, so they travel
// nowhere else and die with the attempt.
const (
	cookieGoogleFlow = "cv_google"
	cookieGoogleLink = "cv_google_link"

	googleFlowPath = accounts.GoogleRedirectPath
	googleLinkPath = "/api/users/google/link"

	loginGoogleLink  = "/login?google=link"
	loginGoogleTOTP  = "/login?google=totp"
	loginGoogleError = "/login?google=error"
	// registerGoogleTerms: a Google account new to us, without consent given on the sign-up page.
	registerGoogleTerms = "/register?google=terms"
)

func (s *server) googleEnabled() bool {
	return s.accounts != nil && s.accounts.GoogleRedirectEnabled()
}

func redirectTo(location string) *string { return &location }

func (s *server) GoogleStart(ctx context.Context, req apigen.GoogleStartRequestObject) (apigen.GoogleStartResponseObject, error) {
	if !s.googleEnabled() {
		return nil, accounts.ErrGoogleDisabled
	}
	var consent accounts.GoogleConsent
	if req.Params.Language != nil {
		consent.Language = string(*req.Params.Language)
	}
	if req.Params.AcceptTerms != nil && *req.Params.AcceptTerms {
		var err error
		if consent.Terms, err = s.legalVersions(); err != nil {
			return nil, err
		}
	}
	authURL, flow, err := s.accounts.GoogleStart(ctx, str(req.Params.Return), consent)
	if err != nil {
		return nil, err
	}
	if w := exchangeFrom(ctx).w; w != nil {
		// Lax, not Strict: the provider's redirect back is a top-level cross-site navigation.
		http.SetCookie(w, s.cookie(cookieGoogleFlow, flow, googleFlowPath, accounts.GoogleFlowLife))
	}
	return apigen.GoogleStart302Response{Headers: apigen.GoogleStart302ResponseHeaders{Location: &authURL}}, nil
}

func (s *server) GoogleRedirect(ctx context.Context, req apigen.GoogleRedirectRequestObject) (apigen.GoogleRedirectResponseObject, error) {
	if !s.googleEnabled() {
		return nil, accounts.ErrGoogleDisabled
	}
	ex := exchangeFrom(ctx)
	var flow string
	if ex.r != nil {
		if c, err := ex.r.Cookie(cookieGoogleFlow); err == nil {
			flow = c.Value
		}
	}
	if ex.w != nil {
		// One attempt, one answer: a replayed callback finds no flow.
		http.SetCookie(ex.w, s.cookie(cookieGoogleFlow, "", googleFlowPath, -1))
	}
	to := func(location string) (apigen.GoogleRedirectResponseObject, error) {
		return apigen.GoogleRedirect302Response{Headers: apigen.GoogleRedirect302ResponseHeaders{Location: redirectTo(location)}}, nil
	}
	if req.Params.Error != nil {
		return to(loginGoogleError)
	}
	res, err := s.accounts.GoogleRedirect(ctx, flow, str(req.Params.Code), str(req.Params.State), clientOf(ctx))
	switch {
	case err == nil:
		s.signedIn(ctx, res.SignIn)
		return to(accounts.SafeReturnPath(res.Return))
	case res.Pending != "":
		if ex.w != nil {
			http.SetCookie(ex.w, s.cookie(cookieGoogleLink, res.Pending, googleLinkPath, accounts.GoogleFlowLife))
		}
		if errors.Is(err, accounts.ErrTOTPRequired) {
			return to(loginGoogleTOTP)
		}
		return to(loginGoogleLink)
	case errors.Is(err, identity.ErrTermsNotAccepted):
		// A new Google account, started from the sign-in page: the sign-up page asks for the
		// consent first.
		return to(registerGoogleTerms)
	default:
		// The browser lands on a page, not a JSON error, so the cause only goes to the log.
		slog.DebugContext(ctx, "google sign-in refused", "err", err)
		return to(loginGoogleError)
	}
}

func (s *server) GoogleLink(ctx context.Context, req apigen.GoogleLinkRequestObject) (apigen.GoogleLinkResponseObject, error) {
	if !s.googleEnabled() {
		return nil, accounts.ErrGoogleDisabled
	}
	ex := exchangeFrom(ctx)
	var pending string
	if ex.r != nil {
		if c, err := ex.r.Cookie(cookieGoogleLink); err == nil {
			pending = c.Value
		}
	}
	var in accounts.GoogleInput
	if b := req.Body; b != nil {
		in = accounts.GoogleInput{Password: str(b.Password), Code: str(b.Code), TOTPCode: str(b.TotpCode)}
	}
	res, _, err := s.accounts.GoogleLink(ctx, pending, in, clientOf(ctx))
	// As at sign-in, the authenticator's code is the next step, not an error; the pending
	// identity stays in its cookie for the same request with totpCode.
	if errors.Is(err, accounts.ErrTOTPRequired) {
		return apigen.GoogleLink202JSONResponse(totpStep()), nil
	}
	if err != nil {
		return nil, err
	}
	if ex.w != nil {
		http.SetCookie(ex.w, s.cookie(cookieGoogleLink, "", googleLinkPath, -1))
	}
	return apigen.GoogleLink200JSONResponse(s.signedIn(ctx, res)), nil
}

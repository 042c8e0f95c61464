package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"clearvest/api/apigen"
	"clearvest/api/idempotency"
	"clearvest/api/middleware"
	"clearvest/app/accounts"
	"clearvest/domain/account"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/projections/users"
)

// The user endpoints are thin: they turn the request into an accounts call, the result into the
// specification's JSON, and sign-in results into cookies. Every rule lives in accounts and
// below; who may call what lives in policy.go.

// Success messages the UI shows as they are (docs/product-rules.md, "Screens, messages and validation").
const (
	msgLoggedOut        = "Logout successful"
	msgVerificationSent = "Verification email sent"
	msgVerified         = "Email verified successfully"
	msgPasswordChanged  = "Password changed successfully, please login"
	msgForgot           = "If an account exists for that e-mail, we sent a reset link."
	msgReset            = "Password Reset Successful, please login"
	msgLoginCodeSent    = "We sent a new login code to your e-mail."
	msgLanguageSaved    = "Language saved"
	msgSessionEnded     = "Session ended"
	msgOthersEnded      = "All other sessions have been ended"
	msgTOTPEnabled      = "Two-factor authentication is on. Keep these recovery codes somewhere safe: each works once."
	msgTOTPDisabled     = "Two-factor authentication is off"
	msgSecured          = "Your account is secured: every session has ended and we sent you a link to set a new password."
	msgRoleChanged      = "User role updated"
	msgSuspended        = "User suspended"
	msgReinstated       = "User reinstated"
	msgClosed           = "Account closed and personal data erased"
)

// cookiePendingLogin holds the token of a sign-in waiting for its e-mailed code (new_device),
// which loginWithCode needs with the code. It travels only to /api/users, where loginWithCode
// and sendLoginCode are.
const (
	cookiePendingLogin     = "cv_pending_login"
	pendingLoginCookiePath = "/api/users"
)

var errAccountsMissing = errors.New("api: Deps.Accounts is not configured")

// exchange gives strict handlers the request and response writer, which they need for cookies
// and client details; the generated interface hands them only a context.
type exchange struct {
	w http.ResponseWriter
	r *http.Request
}

type exchangeKey struct{}

func withExchange(f apigen.StrictHandlerFunc, _ string) apigen.StrictHandlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, r *http.Request, req any) (any, error) {
		return f(context.WithValue(ctx, exchangeKey{}, exchange{w: w, r: r}), w, r, req)
	}
}

func exchangeFrom(ctx context.Context) exchange {
	ex, _ := ctx.Value(exchangeKey{}).(exchange)
	return ex
}

// clientOf describes the caller for rate limits, device checks and the security log. The IP is
// the client's as middleware.ClientAddress worked it out: behind a trusted proxy, the address
// the proxy forwarded for.
func clientOf(ctx context.Context) accounts.Client {
	r := exchangeFrom(ctx).r
	if r == nil {
		return accounts.Client{}
	}
	c := accounts.Client{IP: clientAddress(r), UserAgent: r.UserAgent(), Origin: r.Header.Get("Origin")}
	if dc, err := r.Cookie(CookieDevice); err == nil {
		c.DeviceToken = dc.Value
	}
	if pc, err := r.Cookie(cookiePendingLogin); err == nil {
		c.PendingLogin = pc.Value
	}
	return c
}

// withPendingLogin is the client with the pending sign-in an API client sent in the body, which
// wins over a cookie.
func withPendingLogin(c accounts.Client, fromBody *string) accounts.Client {
	if p := str(fromBody); p != "" {
		c.PendingLogin = p
	}
	return c
}

// clientAddress is the caller's IP address as the client-address middleware resolved it
// through the trusted proxies; "" when it has none.
func clientAddress(r *http.Request) string {
	if addr := middleware.ClientAddr(r); addr.IsValid() {
		return addr.String()
	}
	return ""
}

// actorOf is the signed-in caller; the policy has already refused anonymous callers of the
// operations that use it.
func actorOf(ctx context.Context) (accounts.Actor, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return accounts.Actor{}, accounts.ErrNotSignedIn
	}
	return accounts.Actor{UserID: p.UserID, Role: p.Role, SessionID: p.SessionID, Client: clientOf(ctx), Impersonator: p.Impersonator}, nil
}

// caller is the signed-in user an own-account or staff operation acts as.
func (s *server) caller(ctx context.Context) (accounts.Actor, error) {
	if s.accounts == nil {
		return accounts.Actor{}, errAccountsMissing
	}
	return actorOf(ctx)
}

// record runs a command as the signed-in caller and passes the position it reached on to the
// response (read-your-writes).
func (s *server) record(ctx context.Context, command func(accounts.Actor) (int64, error)) error {
	a, err := s.caller(ctx)
	if err != nil {
		return err
	}
	pos, err := command(a)
	if err != nil {
		return err
	}
	RecordPosition(ctx, pos)
	return nil
}

func (s *server) setSessionCookies(ctx context.Context, in accounts.SignIn) {
	w := exchangeFrom(ctx).w
	if w == nil {
		return
	}
	now := time.Now()
	http.SetCookie(w, s.cookie(CookieAccess, in.AccessToken, "/", in.AccessExpires.Sub(now)))
	if in.RefreshToken != "" {
		http.SetCookie(w, s.cookie(CookieRefresh, in.RefreshToken, refreshCookiePath, in.RefreshExpires.Sub(now)))
		hint := s.cookie(CookieSignedIn, "1", "/", in.RefreshExpires.Sub(now))
		hint.HttpOnly = false
		http.SetCookie(w, hint)
	}
	if in.DeviceToken != "" {
		http.SetCookie(w, s.cookie(CookieDevice, in.DeviceToken, deviceCookiePath, accounts.DeviceCookieLife))
	}
}

// setPendingLogin keeps a pending sign-in's token in the browser ("" forgets it), for as long
// as the sign-in may wait for its code.
func (s *server) setPendingLogin(ctx context.Context, token string) {
	if w := exchangeFrom(ctx).w; w != nil {
		http.SetCookie(w, s.cookie(cookiePendingLogin, token, pendingLoginCookiePath, accounts.PendingLoginLife))
	}
}

// clearSessionCookies signs the browser out. The device cookie stays: signing out does not make
// this browser a stranger (only "wasn't me" and password resets forget devices, server-side).
func (s *server) clearSessionCookies(ctx context.Context) {
	w := exchangeFrom(ctx).w
	if w == nil {
		return
	}
	http.SetCookie(w, s.cookie(CookieAccess, "", "/", -1))
	http.SetCookie(w, s.cookie(CookieRefresh, "", refreshCookiePath, -1))
	hint := s.cookie(CookieSignedIn, "", "/", -1)
	hint.HttpOnly = false
	http.SetCookie(w, hint)
}

func (s *server) cookie(name, value, path string, life time.Duration) *http.Cookie {
	c := &http.Cookie{
		Name: name, Value: value, Path: path, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.secureCookies,
	}
	if life < 0 || value == "" {
		c.MaxAge = -1
	} else {
		c.MaxAge = max(1, int(life.Seconds()))
	}
	return c
}

// userJSON maps the service's user onto the specification's field names. A suspended user's
// role reads "suspended", as the original client counts suspended users by role.
func userJSON(u accounts.User, token string) apigen.User {
	role := apigen.Role(u.Role)
	if u.Status == "suspended" {
		role = apigen.RoleSuspended
	}
	out := apigen.User{
		UnderscoreId: u.ID, Name: u.Name, Email: u.Email, Phone: u.Phone, Country: u.Country, Bio: u.Bio,
		Photo: u.Photo, Role: role, Status: apigen.UserStatus(u.Status), IsVerified: u.Verified,
		KycStatus: apigen.KycStatus(u.KYCStatus), Balance: u.Balance, InvestmentBalance: u.InvestmentBalance,
		TotalMaturityAmount: u.TotalMaturityAmount, Fees: u.Fees, HasFees: u.HasFees,
		ReferralCode: u.ReferralCode, IsImpersonated: false, TwoFactorEnabled: u.TwoFactorEnabled,
	}
	if !u.CreatedAt.IsZero() {
		t := u.CreatedAt
		out.CreatedAt = &t
	}
	if token != "" {
		out.Token = &token
	}
	return out
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// nextCursor is a staff queue page's nextCursor: absent on the last page.
func nextCursor(c string) *string {
	if c == "" {
		return nil
	}
	return &c
}

// signedIn records the sign-in's position and cookies and returns the user with the token.
func (s *server) signedIn(ctx context.Context, in accounts.SignIn) apigen.User {
	RecordPosition(ctx, in.Position)
	if id, err := uuid.Parse(in.User.ID); err == nil {
		idempotency.SetOwner(ctx, id) // the kept answer holds this user's profile and token
	}
	s.setSessionCookies(ctx, in)
	// The client keeps this answer as the signed-in user, so it carries the money figures too:
	// without them the dashboard would show zeros until the next read. A failed read leaves the
	// zeros; the client reads the user again after signing in.
	u := in.User
	if err := s.withFigures(ctx, &u); err != nil && ctx.Err() == nil {
		middleware.Logger(ctx).WarnContext(ctx, "sign-in answer without the figures", "error", err)
	}
	return userJSON(u, in.AccessToken)
}

// withFigures fills the user's money figures from the books; without the money service they
// stay zero. The books are a read model, and a sign-in (often from a new browser) carries no
// position, so it first waits, bounded as a positioned query is, until the read models have
// passed the user's own latest money event: a deposit confirmed a moment ago is in the answer.
// If they do not get there in time the figures are served as they are, marked stale as the
// read-your-writes middleware does. The position is sent back too, so the client's next
// queries wait for it as well.
func (s *server) withFigures(ctx context.Context, u *accounts.User) error {
	if s.money == nil {
		return nil
	}
	pos, err := s.money.AccountPosition(ctx, u.ID)
	if err != nil {
		return err
	}
	RecordPosition(ctx, pos)
	if err := middleware.Wait(ctx, s.waiter, pos, maxReadYourWritesWait); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		middleware.Logger(ctx).WarnContext(ctx, "read models behind the user's figures; answering with stale ones",
			"position", pos, "error", err)
		if w := exchangeFrom(ctx).w; w != nil {
			w.Header().Set(middleware.HeaderStale, "true")
		}
	}
	b, err := s.money.Balances(ctx, u.ID)
	if err != nil {
		return err
	}
	setFigures(u, b)
	return nil
}

// setFigures puts a user's money figures, as the books give them, into the user's answer.
func setFigures(u *accounts.User, b account.Balances) {
	u.Balance, u.InvestmentBalance, u.TotalMaturityAmount = b.Available.String(), b.Invested.String(), b.Returns.String()
	u.Fees, u.HasFees = b.Fees.String(), b.Fees.IsPositive()
}

func (s *server) Register(ctx context.Context, req apigen.RegisterRequestObject) (apigen.RegisterResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	var err error
	b := req.Body
	in := accounts.RegisterInput{
		Name: str(b.Name), Email: str(b.Email), Password: str(b.Password), ConfirmPassword: str(b.ConfirmPassword),
		Phone: str(b.Phone), Country: str(b.Country), ReferralCode: str(b.ReferralCode),
	}
	if b.Language != nil {
		in.Language = string(*b.Language)
	}
	if b.AcceptTerms != nil && *b.AcceptTerms {
		if in.Terms, err = s.legalVersions(); err != nil {
			return nil, err
		}
	}
	if in.ReferralCode == "" {
		in.ReferralCode = str(req.Params.Ref)
	}
	res, err := s.accounts.Register(ctx, in, clientOf(ctx))
	if err != nil {
		return nil, err
	}
	return apigen.Register201JSONResponse(s.signedIn(ctx, res)), nil
}

// legalVersions is what a person agrees to now: the versions of the terms and the privacy policy
// being served (their "updated" dates, docs/content.md).
func (s *server) legalVersions() (accounts.Consent, error) {
	if s.content == nil {
		return accounts.Consent{}, errContentUnavailable
	}
	terms, privacy, err := s.content.LegalVersions()
	if err != nil {
		return accounts.Consent{}, err
	}
	return accounts.Consent{TermsVersion: terms, PrivacyVersion: privacy}, nil
}

// SetLanguage records the language the signed-in user reads in; their e-mails follow it.
func (s *server) SetLanguage(ctx context.Context, req apigen.SetLanguageRequestObject) (apigen.SetLanguageResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	pos, err := s.accounts.SetLanguage(ctx, a, string(req.Body.Language))
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.SetLanguage200JSONResponse{Message: msgLanguageSaved}, nil
}

func (s *server) Login(ctx context.Context, req apigen.LoginRequestObject) (apigen.LoginResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	b := req.Body
	res, err := s.accounts.Login(ctx, accounts.LoginInput{Email: str(b.Email), Password: str(b.Password), TOTPCode: str(b.TotpCode)}, clientOf(ctx))
	// A new browser, or an account with an authenticator app, is the next step of the sign-in,
	// not an error: 202 with the step (and a new browser's pending sign-in).
	if pending, ok := errors.AsType[*accounts.NewDeviceError](err); ok {
		s.setPendingLogin(ctx, pending.Pending)
		return apigen.Login202JSONResponse{Status: apigen.LoginPendingStatusNewDevice, Message: pending.Error(), PendingLogin: &pending.Pending}, nil
	}
	if errors.Is(err, accounts.ErrTOTPRequired) {
		return apigen.Login202JSONResponse(totpStep()), nil
	}
	if err != nil {
		return nil, err
	}
	return apigen.Login200JSONResponse(s.signedIn(ctx, res)), nil
}

// totpStep asks for the authenticator's code: the password (or e-mailed code) was right, and
// the same request with totpCode finishes the sign-in.
func totpStep() apigen.LoginPending {
	return apigen.LoginPending{Status: apigen.LoginPendingStatusTotp, Message: accounts.ErrTOTPRequired.Error()}
}

func (s *server) LoginWithCode(ctx context.Context, req apigen.LoginWithCodeRequestObject) (apigen.LoginWithCodeResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	b := req.Body
	res, err := s.accounts.LoginWithCode(ctx, req.Email, str(b.LoginCode), str(b.TotpCode), withPendingLogin(clientOf(ctx), b.PendingLogin))
	if err == nil || errors.Is(err, accounts.ErrLoginExpired) {
		s.setPendingLogin(ctx, "") // used, or gone: either way of no more use
	}
	if errors.Is(err, accounts.ErrTOTPRequired) {
		return apigen.LoginWithCode202JSONResponse(totpStep()), nil
	}
	if err != nil {
		return nil, err
	}
	return apigen.LoginWithCode200JSONResponse(s.signedIn(ctx, res)), nil
}

func (s *server) SendLoginCode(ctx context.Context, req apigen.SendLoginCodeRequestObject) (apigen.SendLoginCodeResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	c := clientOf(ctx)
	if req.Body != nil {
		c = withPendingLogin(c, req.Body.PendingLogin)
	}
	if err := s.accounts.SendLoginCode(ctx, req.Email, c); err != nil {
		if errors.Is(err, accounts.ErrLoginExpired) {
			s.setPendingLogin(ctx, "")
		}
		return nil, err
	}
	return apigen.SendLoginCode200JSONResponse{Message: msgLoginCodeSent}, nil
}

func (s *server) RefreshSession(ctx context.Context, _ apigen.RefreshSessionRequestObject) (apigen.RefreshSessionResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	var token string
	if r := exchangeFrom(ctx).r; r != nil {
		if c, err := r.Cookie(CookieRefresh); err == nil {
			token = c.Value
		}
	}
	res, err := s.accounts.Refresh(ctx, token, clientOf(ctx))
	if err != nil {
		// A refresh cookie that no longer works is of no use to keep; clearing it stops the UI
		// from trying it again.
		if kind, _, ok := domainerr.KindOf(err); ok && (kind == domainerr.Unauthenticated || kind == domainerr.Forbidden) {
			s.clearSessionCookies(ctx)
		}
		return nil, err
	}
	s.setSessionCookies(ctx, res)
	return apigen.RefreshSession200JSONResponse{Token: res.AccessToken, ExpiresAt: res.AccessExpires}, nil
}

func (s *server) Logout(ctx context.Context, _ apigen.LogoutRequestObject) (apigen.LogoutResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	// The token may have expired: signing out must still end its session, so the service
	// accepts an expired (but genuine) token here.
	if tok := authStateFrom(ctx).token; tok != "" {
		if err := s.accounts.Logout(ctx, tok); err != nil {
			return nil, err
		}
	}
	s.clearSessionCookies(ctx)
	return apigen.Logout200JSONResponse{Message: msgLoggedOut}, nil
}

func (s *server) LoginStatus(ctx context.Context, _ apigen.LoginStatusRequestObject) (apigen.LoginStatusResponseObject, error) {
	_, ok := PrincipalFrom(ctx)
	return apigen.LoginStatus200JSONResponse(ok), nil
}

func (s *server) GetUser(ctx context.Context, _ apigen.GetUserRequestObject) (apigen.GetUserResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	if s.money == nil {
		// Without the money service the figures stay zero.
		u, err := s.accounts.User(ctx, a.UserID)
		if err != nil {
			return nil, err
		}
		return apigen.GetUser200JSONResponse(withImpersonation(ctx, userJSON(u, ""))), nil
	}
	// The figures come from the books, read in the same query as the user's row: this is every
	// signed-in page's first request, so it is one round trip to the database.
	figures := s.money.FiguresJoin()
	u, joined, err := s.accounts.UserWith(ctx, a.UserID, figures)
	if err != nil {
		return nil, err
	}
	b, err := figures.Balances()
	if !joined {
		// Read from the stream (the users read model does not hold the user yet).
		b, err = s.money.Balances(ctx, a.UserID)
	}
	if err != nil {
		return nil, err
	}
	setFigures(&u, b)
	return apigen.GetUser200JSONResponse(withImpersonation(ctx, userJSON(u, ""))), nil
}

// withImpersonation marks the user of a view-as-user session, so every page shows the banner.
func withImpersonation(ctx context.Context, u apigen.User) apigen.User {
	if p, ok := PrincipalFrom(ctx); ok && p.Impersonator != nil {
		u.IsImpersonated = true
		until := p.Impersonator.Until
		u.ImpersonationEndsAt = &until
	}
	return u
}

func (s *server) UpdateUser(ctx context.Context, req apigen.UpdateUserRequestObject) (apigen.UpdateUserResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	u, pos, err := s.accounts.UpdateProfile(ctx, a, accounts.ProfileInput{
		Name: b.Name, Phone: b.Phone, Bio: b.Bio, Country: b.Country, Photo: b.Photo,
	})
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.UpdateUser200JSONResponse(userJSON(u, "")), nil
}

var errNoPhotoPart = domainerr.Field("photo", "Please select a file.")

func (s *server) UploadPhoto(ctx context.Context, req apigen.UploadPhotoRequestObject) (apigen.UploadPhotoResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	part, err := photoPart(req.Body)
	if err != nil {
		return nil, err
	}
	defer part.Close()
	u, pos, err := s.accounts.UploadPhoto(ctx, a, part)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.UploadPhoto200JSONResponse(userJSON(u, "")), nil
}

// photoPart finds the "photo" file among the parts, skipping (and draining) any others.
func photoPart(mr *multipart.Reader) (*multipart.Part, error) {
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, errNoPhotoPart
		}
		if err != nil {
			if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
				return nil, err
			}
			return nil, domainerr.E(domainerr.Invalid, "The upload could not be read. Please try again.").Wrap(err)
		}
		if p.FormName() == "photo" {
			return p, nil
		}
		_, _ = io.Copy(io.Discard, p)
		p.Close()
	}
}

func (s *server) GetPhoto(ctx context.Context, req apigen.GetPhotoRequestObject) (apigen.GetPhotoResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	data, contentType, err := s.accounts.Photo(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	// Photo names are random and never reused, so a browser may keep one as long as it likes;
	// private, because it is personal data.
	if w := exchangeFrom(ctx).w; w != nil {
		w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	}
	if contentType == "image/png" {
		return apigen.GetPhoto200ImagepngResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
	}
	return apigen.GetPhoto200ImagejpegResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
}

func (s *server) SendVerificationEmail(ctx context.Context, _ apigen.SendVerificationEmailRequestObject) (apigen.SendVerificationEmailResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	msg, err := s.accounts.SendVerification(ctx, a)
	if err != nil {
		return nil, err
	}
	if msg == "" {
		msg = msgVerificationSent
	}
	return apigen.SendVerificationEmail200JSONResponse{Message: msg}, nil
}

func (s *server) VerifyUser(ctx context.Context, req apigen.VerifyUserRequestObject) (apigen.VerifyUserResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	pos, err := s.accounts.VerifyEmail(ctx, req.Token, clientOf(ctx))
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.VerifyUser200JSONResponse{Message: msgVerified}, nil
}

func (s *server) ChangePassword(ctx context.Context, req apigen.ChangePasswordRequestObject) (apigen.ChangePasswordResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	pos, err := s.accounts.ChangePassword(ctx, a, str(b.OldPassword), str(b.Password), str(b.ConfirmPassword))
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.ChangePassword200JSONResponse{Message: msgPasswordChanged}, nil
}

func (s *server) ForgotPassword(ctx context.Context, req apigen.ForgotPasswordRequestObject) (apigen.ForgotPasswordResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	if err := s.accounts.ForgotPassword(ctx, str(req.Body.Email), clientOf(ctx)); err != nil {
		return nil, err
	}
	return apigen.ForgotPassword200JSONResponse{Message: msgForgot}, nil
}

func (s *server) ResetPassword(ctx context.Context, req apigen.ResetPasswordRequestObject) (apigen.ResetPasswordResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	b := req.Body
	pos, err := s.accounts.ResetPassword(ctx, req.ResetToken, str(b.Password), str(b.ConfirmPassword), clientOf(ctx))
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	s.clearSessionCookies(ctx)
	return apigen.ResetPassword200JSONResponse{Message: msgReset}, nil
}

func (s *server) ListSessions(ctx context.Context, _ apigen.ListSessionsRequestObject) (apigen.ListSessionsResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.accounts.Sessions(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make(apigen.ListSessions200JSONResponse, 0, len(list))
	for _, ss := range list {
		out = append(out, apigen.Session{Id: ss.ID, CreatedAt: ss.CreatedAt, LastSeenAt: ss.LastSeenAt,
			Ip: ss.IP, UserAgent: ss.UserAgent, Current: ss.Current})
	}
	return out, nil
}

func (s *server) EndSession(ctx context.Context, req apigen.EndSessionRequestObject) (apigen.EndSessionResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.accounts.EndSession(ctx, a, req.Id); err != nil {
		return nil, err
	}
	if req.Id == a.SessionID {
		s.clearSessionCookies(ctx)
	}
	return apigen.EndSession200JSONResponse{Message: msgSessionEnded}, nil
}

func (s *server) RevokeOtherSessions(ctx context.Context, _ apigen.RevokeOtherSessionsRequestObject) (apigen.RevokeOtherSessionsResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.accounts.EndOtherSessions(ctx, a); err != nil {
		return nil, err
	}
	return apigen.RevokeOtherSessions200JSONResponse{Message: msgOthersEnded}, nil
}

func (s *server) SetupTwoFactor(ctx context.Context, _ apigen.SetupTwoFactorRequestObject) (apigen.SetupTwoFactorResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	setup, err := s.accounts.SetupTOTP(ctx, a)
	if err != nil {
		return nil, err
	}
	return apigen.SetupTwoFactor200JSONResponse{Secret: setup.Secret, OtpauthUrl: setup.URL, QrCode: setup.QRCode}, nil
}

func (s *server) EnableTwoFactor(ctx context.Context, req apigen.EnableTwoFactorRequestObject) (apigen.EnableTwoFactorResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	codes, pos, err := s.accounts.EnableTOTP(ctx, a, str(req.Body.Code))
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.EnableTwoFactor200JSONResponse{Message: msgTOTPEnabled, RecoveryCodes: codes}, nil
}

func (s *server) DisableTwoFactor(ctx context.Context, req apigen.DisableTwoFactorRequestObject) (apigen.DisableTwoFactorResponseObject, error) {
	if err := s.record(ctx, func(a accounts.Actor) (int64, error) {
		return s.accounts.DisableTOTP(ctx, a, str(req.Body.Password), str(req.Body.Code))
	}); err != nil {
		return nil, err
	}
	return apigen.DisableTwoFactor200JSONResponse{Message: msgTOTPDisabled}, nil
}

func (s *server) GetSecurityLog(ctx context.Context, _ apigen.GetSecurityLogRequestObject) (apigen.GetSecurityLogResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := s.accounts.SecurityLog(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make(apigen.GetSecurityLog200JSONResponse, 0, len(entries))
	for _, e := range entries {
		item := apigen.SecurityLogEntry{Id: e.ID, At: e.At, Kind: e.Kind, Description: e.Description}
		if e.IP != "" {
			item.Ip = &e.IP
		}
		if e.UserAgent != "" {
			item.UserAgent = &e.UserAgent
		}
		if e.StaffRole != "" {
			item.StaffRole = &e.StaffRole
		}
		out = append(out, item)
	}
	return out, nil
}

func (s *server) SecureAccount(ctx context.Context, req apigen.SecureAccountRequestObject) (apigen.SecureAccountResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	if err := s.accounts.SecureAccount(ctx, req.Token, clientOf(ctx)); err != nil {
		return nil, err
	}
	s.clearSessionCookies(ctx)
	return apigen.SecureAccount200JSONResponse{Message: msgSecured}, nil
}

func (s *server) GetUsers(ctx context.Context, req apigen.GetUsersRequestObject) (apigen.GetUsersResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	list, err := s.accounts.ListUsers(ctx, strings.TrimSpace(str(req.Params.Search)))
	if err != nil {
		return nil, err
	}
	return apigen.GetUsers200JSONResponse(s.staffUsersJSON(ctx, list)), nil
}

// ListUsers is the staff user list a page at a time, searched and filtered.
func (s *server) ListUsers(ctx context.Context, req apigen.ListUsersRequestObject) (apigen.ListUsersResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	p := req.Params
	f := users.Filter{Search: str(p.Search)}
	if p.Role != nil {
		f.Role = string(*p.Role)
	}
	if p.KycStatus != nil {
		f.KYCStatus = string(*p.KycStatus)
	}
	if p.Status != nil {
		f.Status = string(*p.Status)
	}
	page, counts, err := s.accounts.StaffUsersPage(ctx, f, str(p.Cursor), p.Limit)
	if err != nil {
		return nil, err
	}
	out := apigen.ListUsers200JSONResponse{Users: s.staffUsersJSON(ctx, page.Items), Total: page.Total,
		NextCursor: nextCursor(page.NextCursor)}
	out.Counts.Users, out.Counts.Verified, out.Counts.Suspended = counts.Total, counts.Verified, counts.Suspended
	return out, nil
}

// staffUsersJSON is the staff user list's users, each with their real figures from the read
// models, or none: a failed read shows as unavailable, never as $0.00.
func (s *server) staffUsersJSON(ctx context.Context, list []accounts.User) []apigen.User {
	var figures map[string]account.Balances
	var deposited map[string]money.Money
	if s.money != nil && len(list) > 0 {
		ids := make([]string, len(list))
		for i, u := range list {
			ids[i] = u.ID
		}
		var err error
		if figures, err = s.money.FiguresOf(ctx, ids); err == nil {
			deposited, err = s.money.DepositedOf(ctx, ids)
		}
		if err != nil {
			middleware.Logger(ctx).WarnContext(ctx, "staff user list: the figures could not be read; they show as unavailable", "error", err)
			figures = nil
		}
	}
	out := make([]apigen.User, 0, len(list))
	for _, u := range list {
		b, ok := figures[u.ID]
		if !ok {
			u.Balance, u.InvestmentBalance, u.TotalMaturityAmount, u.Fees = "", "", "", ""
			out = append(out, userJSON(u, ""))
			continue
		}
		setFigures(&u, b)
		j := userJSON(u, "")
		j.Figures = &apigen.UserFigures{Balance: u.Balance, InvestmentBalance: u.InvestmentBalance,
			TotalMaturityAmount: u.TotalMaturityAmount, Fees: u.Fees, Deposited: deposited[u.ID].String()}
		out = append(out, j)
	}
	return out
}

// UpgradeUser follows the original client: role "suspended" suspends, any other role on a
// suspended user reinstates them with that role.
func (s *server) UpgradeUser(ctx context.Context, req apigen.UpgradeUserRequestObject) (apigen.UpgradeUserResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	role, id := strings.TrimSpace(str(b.Role)), strings.TrimSpace(str(b.Id))
	if role == "suspended" {
		if !Allowed(a.Role, ActSuspendUsers) {
			return nil, errNotAllowed
		}
		pos, err := s.accounts.Suspend(ctx, a, id, str(b.Reason))
		if err != nil {
			return nil, err
		}
		RecordPosition(ctx, pos)
		return apigen.UpgradeUser200JSONResponse{Message: msgSuspended}, nil
	}
	if role == string(identity.RoleAdmin) && s.approvals != nil {
		p, err := s.accounts.ProposeAdmin(ctx, s.approvals, a, id, str(b.Reason))
		if err != nil {
			return nil, err
		}
		RecordPosition(ctx, p.Position)
		return apigen.UpgradeUser202JSONResponse{Message: msgSentForApproval, ProposalId: p.ProposalID}, nil
	}
	pos, err := s.accounts.SetRole(ctx, a, id, role)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.UpgradeUser200JSONResponse{Message: msgRoleChanged}, nil
}

func (s *server) SuspendUser(ctx context.Context, req apigen.SuspendUserRequestObject) (apigen.SuspendUserResponseObject, error) {
	if err := s.record(ctx, func(a accounts.Actor) (int64, error) { return s.accounts.Suspend(ctx, a, req.Id, str(req.Body.Reason)) }); err != nil {
		return nil, err
	}
	return apigen.SuspendUser200JSONResponse{Message: msgSuspended}, nil
}

func (s *server) ReinstateUser(ctx context.Context, req apigen.ReinstateUserRequestObject) (apigen.ReinstateUserResponseObject, error) {
	if err := s.record(ctx, func(a accounts.Actor) (int64, error) { return s.accounts.Reinstate(ctx, a, req.Id) }); err != nil {
		return nil, err
	}
	return apigen.ReinstateUser200JSONResponse{Message: msgReinstated}, nil
}

func (s *server) DeleteUser(ctx context.Context, req apigen.DeleteUserRequestObject) (apigen.DeleteUserResponseObject, error) {
	if s.approvals != nil {
		a, err := s.caller(ctx)
		if err != nil {
			return nil, err
		}
		var reason string
		if req.Body != nil {
			reason = str(req.Body.Reason)
		}
		p, err := s.accounts.ProposeClose(ctx, s.approvals, a, req.Id, reason)
		if err != nil {
			return nil, err
		}
		RecordPosition(ctx, p.Position)
		return apigen.DeleteUser202JSONResponse{Message: msgSentForApproval, ProposalId: p.ProposalID}, nil
	}
	if err := s.record(ctx, func(a accounts.Actor) (int64, error) { return s.accounts.Close(ctx, a, req.Id) }); err != nil {
		return nil, err
	}
	return apigen.DeleteUser200JSONResponse{Message: msgClosed}, nil
}

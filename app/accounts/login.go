package accounts

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/principal"
	"clearvest/platform/auth/session"
	"clearvest/platform/mail"
)

// PendingLoginLife is how long a sign-in from a new browser waits for its e-mailed code.
var PendingLoginLife = otp.TTL(otp.Login)

// Login signs in with e-mail and password.
//
// The order of checks is what keeps the answers from telling an attacker more than "wrong":
// limits first (before any password hashing, which is the expensive part), then the password
// (an unknown e-mail costs the same hash), and only for the right password whether the account
// is suspended, needs an authenticator code, or is on a browser it has not seen. A browser that
// is not trusted gets no session but a pending sign-in (a *NewDeviceError, answered 202 new_device):
// its token, and the code e-mailed for it, which LoginWithCode needs together. With two-factor
// authentication on, the authenticator code is the second factor instead.
//
// A browser the account already trusts counts against limits of its own, not the account's
// (signInLimits): failures from elsewhere never lock the owner out.
func (s *Service) Login(ctx context.Context, in LoginInput, c Client) (SignIn, error) {
	email := strings.TrimSpace(in.Email)
	if email == "" || in.Password == "" {
		return SignIn{}, ErrAllFields
	}
	if err := identity.ValidateEmail(email); err != nil {
		return SignIn{}, err
	}
	emailKey := principal.NormalizeEmail(email)
	uid, found, err := s.emails.Lookup(ctx, emailKey)
	if err != nil {
		return SignIn{}, err
	}
	trusted := false
	if found {
		if trusted, err = s.devices.IsTrusted(ctx, uid, c.DeviceToken); err != nil {
			return SignIn{}, err
		}
	}
	limits := s.signInLimits(emailKey, c, trusted)
	if err := limits.check(ctx); err != nil {
		return SignIn{}, err
	}
	ok, err := s.verifyPassword(ctx, uid, found, in.Password)
	if err != nil {
		return SignIn{}, err
	}
	if !ok {
		limits.failed(ctx)
		return SignIn{}, ErrBadCredentials
	}
	user, err := s.activeUser(ctx, uid, ErrBadCredentials)
	if err != nil {
		return SignIn{}, err
	}
	if user.TwoFactorEnabled() {
		if err := s.checkTOTP(ctx, uid, in.TOTPCode); err != nil {
			if errors.Is(err, ErrTOTPInvalid) {
				limits.failed(ctx)
			}
			return SignIn{}, err
		}
	} else if !trusted {
		pending, err := s.beginSignInAttempt(ctx, user, c.PendingLogin)
		if err != nil {
			return SignIn{}, err
		}
		return SignIn{}, &NewDeviceError{Pending: pending}
	}
	limits.succeeded(ctx)
	return s.completeSignIn(ctx, user, c, !trusted)
}

// checkPassword verifies a password for the account of an e-mail and returns the account.
func (s *Service) checkPassword(ctx context.Context, emailKey, pw string) (uuid.UUID, bool, error) {
	uid, found, err := s.emails.Lookup(ctx, emailKey)
	if err != nil {
		return uuid.Nil, false, err
	}
	ok, err := s.verifyPassword(ctx, uid, found, pw)
	if err != nil || !ok {
		return uuid.Nil, false, err
	}
	return uid, true, nil
}

// verifyPassword checks a password for an account found (or not) by its e-mail. An unknown
// e-mail, or an account without a password (Google only), costs the same hashing as a wrong
// password, so the time taken tells nothing about which addresses are registered.
func (s *Service) verifyPassword(ctx context.Context, uid uuid.UUID, found bool, pw string) (bool, error) {
	var cred principal.Credential
	hasPassword := false
	if found {
		var err error
		if cred, hasPassword, err = s.credentials.Get(ctx, uid); err != nil {
			return false, err
		}
	}
	if !hasPassword {
		return false, s.hasher.DummyVerify(ctx, pw)
	}
	ok, err := s.hasher.Verify(ctx, pw, cred.Hash)
	if err != nil || !ok {
		return false, err
	}
	if s.hasher.NeedsRehash(cred.Hash) {
		// Parameters were raised since this hash was made; the plaintext is at hand only now.
		if h, err := s.hasher.Hash(ctx, pw); err == nil {
			if err := s.credentials.Set(ctx, s.pool, uid, h); err != nil {
				s.log.WarnContext(ctx, "accounts: rehash failed", "err", err)
			}
		}
	}
	return true, nil
}

// beginSignInAttempt starts the pending sign-in of a browser that passed the password (see
// otp.Begin) and e-mails its code, and returns the attempt's token. current is the token the
// browser already holds: pressing "Sign in" again within a minute goes on with the code just
// sent instead of mailing another. A sign-in after a code was used always gets a fresh one.
func (s *Service) beginSignInAttempt(ctx context.Context, user loaded, current string) (string, error) {
	var token string
	err := s.writeRows(ctx, func(u *unit) error {
		a, sts, err := s.codes.Begin(ctx, uuid.MustParse(user.ID()), otp.Login, current)
		if err != nil {
			return err
		}
		u.write(sts...)
		token = a.Token
		return u.mailLoginCode(ctx, user, a)
	})
	return token, err
}

// mailLoginCode queues the e-mail with an attempt's new code; an attempt going on with the code
// already sent has none, and nothing is sent.
func (u *unit) mailLoginCode(ctx context.Context, user loaded, a otp.Attempt) error {
	if a.Code == "" {
		return nil
	}
	return u.mail(ctx, "login-code/"+hashID(a.Token+a.Code), user, mail.TemplateLoginCode,
		mail.LoginCodeData{Name: user.Profile().Name, Code: a.Code, ValidFor: otp.TTL(otp.Login)}, true)
}

// completeSignIn starts the session. A sign-in from a browser not seen before is recorded
// (user.signed_in_new_device), trusted from now on, and announced to the user by e-mail with a
// "this wasn't me" link, all in the session's round trip.
func (s *Service) completeSignIn(ctx context.Context, user loaded, c Client, newDevice bool) (SignIn, error) {
	return s.completeSignInWith(ctx, user, c, newDevice, nil)
}

// completeSignInWith is completeSignIn with more writes (extra) in the same round trip.
func (s *Service) completeSignInWith(ctx context.Context, user loaded, c Client, newDevice bool, extra func(u *unit) error) (SignIn, error) {
	return s.signIn(ctx, user, c, newDevice, nil, extra)
}

// signIn is completeSignInWith with a decision on the user as they are (decide), whose events
// are appended with the sign-in's: a passkey's use, say.
func (s *Service) signIn(ctx context.Context, user loaded, c Client, newDevice bool, decide func(fresh loaded) error, extra func(u *unit) error) (SignIn, error) {
	var out SignIn
	pos, err := s.submitUser(ctx, eventMetaFor(user.ID(), c), user.ID(), func(u *unit, fresh loaded) error {
		uid := uuid.MustParse(user.ID())
		if decide != nil {
			if err := decide(fresh); err != nil {
				return err
			}
		}
		if newDevice {
			if err := fresh.RecordNewDevice(uuid.Must(uuid.NewV7()).String(), c.IP, c.UserAgent); err != nil {
				return mapSignInError(err)
			}
			if err := u.alertNewDevice(ctx, fresh, c); err != nil {
				return err
			}
		}
		user = fresh
		if extra != nil {
			if err := extra(u); err != nil {
				return err
			}
		}
		devToken := ""
		if newDevice {
			devToken = u.trustDevice(uid, c)
			c.DeviceToken = devToken
		}
		signIn, err := u.startSession(ctx, user.ID(), c)
		if err != nil {
			return err
		}
		signIn.DeviceToken = devToken
		out = signIn
		return nil
	})
	if err != nil {
		return SignIn{}, err
	}
	out.Position = pos
	out.User = view(user)
	return out, nil
}

// alertNewDevice e-mails the "new sign-in" alert with its own "this wasn't me" link.
func (u *unit) alertNewDevice(ctx context.Context, user loaded, c Client) error {
	tok, err := u.issue(ctx, uuid.MustParse(user.ID()), otp.WasntMe, nil)
	if err != nil {
		return err
	}
	return u.mail(ctx, "new-device/"+hashID(tok), user, mail.TemplateNewDevice, mail.NewDeviceData{
		Name: user.Profile().Name, Time: u.s.clock.Now(), IP: c.IP, Device: session.DeviceLabel(c.UserAgent),
		SecureLink: u.s.link("/secure-account/" + tok),
	}, true)
}

// SendLoginCode e-mails a new code for the browser's pending sign-in (c.PendingLogin), once
// the last one is a minute old. Without a live pending sign-in of that account nothing is sent
// and the answer says the sign-in has expired (ErrLoginExpired): a code is only ever sent for
// an attempt that passed the password. The answer is the same whether or not the account
// exists, since only a browser that passed its password holds a pending sign-in.
func (s *Service) SendLoginCode(ctx context.Context, email string, c Client) error {
	email = strings.TrimSpace(email)
	if email == "" {
		return ErrEmailRequired
	}
	if err := identity.ValidateEmail(email); err != nil {
		return err
	}
	key := principal.NormalizeEmail(email)
	if err := s.policy.CodeRequest(ctx, key, c.IP); err != nil {
		return err
	}
	if c.PendingLogin == "" {
		return ErrLoginExpired
	}
	uid, found, err := s.emails.Lookup(ctx, key)
	if err != nil {
		return err
	}
	if !found {
		return ErrLoginExpired
	}
	user, err := s.activeUser(ctx, uid, ErrLoginExpired)
	if err != nil {
		return err
	}
	return s.writeRows(ctx, func(u *unit) error {
		a, st, err := s.codes.Resend(ctx, uid, otp.Login, c.PendingLogin)
		if err != nil {
			return err
		}
		u.write(st)
		// Another resend in between stored its code first (the cooldown); an attempt spent,
		// burnt or replaced in between is over.
		u.w.OnViolation(otp.CooldownConstraint, cooldownRaced)
		u.w.OnViolation(otp.AttemptGoneConstraint, otp.ErrNoAttempt)
		return u.mailLoginCode(ctx, user, a)
	})
}

// LoginWithCode finishes a pending sign-in: the code e-mailed for it, together with the token of
// the browser that passed the password (c.PendingLogin). The browser is trusted from now on.
func (s *Service) LoginWithCode(ctx context.Context, email, code, totpCode string, c Client) (SignIn, error) {
	code = strings.TrimSpace(code)
	switch {
	case code == "":
		return SignIn{}, ErrCodeEmpty
	case len(code) != otp.CodeDigits:
		return SignIn{}, ErrCodeLength
	}
	email = strings.TrimSpace(email)
	if err := identity.ValidateEmail(email); err != nil {
		return SignIn{}, err
	}
	// Without a pending sign-in there is nothing a code could be checked against, so nothing
	// is counted either: no guess was made.
	if c.PendingLogin == "" {
		return SignIn{}, ErrLoginExpired
	}
	key := principal.NormalizeEmail(email)
	if err := s.policy.Login(ctx, key, c.IP); err != nil {
		return SignIn{}, err
	}
	uid, found, err := s.emails.Lookup(ctx, key)
	if err != nil {
		return SignIn{}, err
	}
	if !found {
		return SignIn{}, ErrLoginExpired
	}
	// With two-factor authentication on, the e-mailed code is checked first and spent only once
	// the authenticator's code is right too: a missing or mistyped authenticator code asks for
	// it again without costing the e-mailed one.
	known, err := s.loadUser(ctx, uid.String())
	if err != nil {
		return SignIn{}, err
	}
	twoFactor := known.TwoFactorEnabled()
	redeem := s.codes.Redeem
	if twoFactor {
		redeem = s.codes.Check
	}
	if err := s.loginCodeOutcome(ctx, key, redeem(ctx, otp.Login, c.PendingLogin, code, uid)); err != nil {
		return SignIn{}, err
	}
	user, err := s.activeUser(ctx, uid, ErrLoginExpired)
	if err != nil {
		return SignIn{}, err
	}
	if twoFactor {
		if err := s.checkTOTP(ctx, uid, totpCode); err != nil {
			return SignIn{}, err
		}
		if err := s.loginCodeOutcome(ctx, key, s.codes.Redeem(ctx, otp.Login, c.PendingLogin, code, uid)); err != nil {
			return SignIn{}, err
		}
	}
	trusted, err := s.devices.IsTrusted(ctx, uid, c.DeviceToken)
	if err != nil {
		return SignIn{}, err
	}
	s.loginSucceeded(ctx, key)
	return s.completeSignIn(ctx, user, c, !trusted)
}

// loginCodeOutcome turns the answer to an e-mailed login code into the sign-in's, counting a
// wrong code against the account.
func (s *Service) loginCodeOutcome(ctx context.Context, key string, err error) error {
	switch {
	case errors.Is(err, otp.ErrInvalidCode):
		s.loginFailed(ctx, key)
		return ErrCodeInvalid
	case errors.Is(err, otp.ErrTooManyWrongCodes):
		s.loginFailed(ctx, key)
		return err
	}
	return err
}

// eventMetaFor is the metadata of events a user causes by signing in (no session yet).
func eventMetaFor(userID string, c Client) eventstore.Metadata {
	return eventstore.Metadata{ActorID: userID, ClientIP: c.IP}
}

// mapSignInError turns the aggregate's refusal to sign in into the API's answers.
func mapSignInError(err error) error {
	if errors.Is(err, identity.ErrSuspended) {
		return identity.ErrSuspended
	}
	return err
}

package accounts

import (
	"context"
	"embed"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/platform/auth"
	"clearvest/platform/auth/google"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/principal"
	"clearvest/platform/mail"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the service's own tables (google_links, referral_codes). The referral codes'
// first fill reads the event store's and the principals' tables, whose sets come first.
var Migrations = pgmigrate.MustFromFS("accounts", migrationFS, "migrations")

// googleVerifier checks a Google ID token; *google.Verifier is one (tests use a fake issuer).
type googleVerifier interface {
	Verify(ctx context.Context, rawIDToken, nonce string) (google.Identity, error)
}

func newGoogleVerifier(s *Service) (googleVerifier, error) {
	if s.cfg.GoogleClientID == "" {
		return nil, nil
	}
	v, err := google.NewVerifier(google.Config{ClientID: s.cfg.GoogleClientID, Issuer: s.cfg.GoogleIssuer, Clock: s.clock})
	if err != nil {
		return nil, err
	}
	if s.googleOAuth, err = google.NewOAuth(google.OAuthConfig{
		ClientID: s.cfg.GoogleClientID, ClientSecret: s.cfg.GoogleClientSecret, Issuer: s.cfg.GoogleIssuer,
	}); err != nil {
		return nil, err
	}
	if s.googleSealer, err = auth.NewSealer("clearvest google sign-in v1", s.cfg.SecretKey, s.cfg.PreviousSecretKeys...); err != nil {
		return nil, err
	}
	return v, nil
}

// SetGoogleVerifier replaces the verifier of Google ID tokens (tests point it at their own
// issuer). nil turns Google sign-in off.
func (s *Service) SetGoogleVerifier(v googleVerifier) { s.google = v }

// googleSignIn signs in with a Google ID token that the redirect flow obtained for this browser
// (GoogleRedirect, GoogleLink): the token must carry the flow's nonce, so a token obtained
// anywhere else is refused.
//
//   - A Google account already linked signs in to its Clearvest account.
//   - An e-mail nobody uses creates an account (verified: Google vouched for the address).
//   - An e-mail that belongs to an existing account is never linked on the strength of the
//     e-mail alone: whoever controls a Google account with that address would otherwise take
//     over the Clearvest account. The person must also give the account's password or the
//     code this call e-mails (401 link_required) — then the link is made and kept.
func (s *Service) googleSignIn(ctx context.Context, in GoogleInput, c Client) (SignIn, error) {
	if s.google == nil {
		return SignIn{}, ErrGoogleDisabled
	}
	if strings.TrimSpace(in.Credential) == "" || in.Nonce == "" {
		return SignIn{}, ErrGoogleInvalid
	}
	if err := s.limit(ctx, ruleLinkIP, c.IP); err != nil {
		return SignIn{}, err
	}
	gid, err := s.google.Verify(ctx, in.Credential, in.Nonce)
	if err != nil {
		return SignIn{}, err
	}
	var linked uuid.UUID
	err = s.pool.QueryRow(ctx, `SELECT user_id FROM google_links WHERE subject = $1`, gid.Subject).Scan(&linked)
	switch {
	case err == nil:
		return s.googleSignInLinked(ctx, linked, in, c, nil)
	case !errors.Is(err, pgx.ErrNoRows):
		return SignIn{}, err
	}

	if err := identity.ValidateEmail(strings.TrimSpace(gid.Email)); err != nil {
		return SignIn{}, ErrGoogleInvalid
	}
	key := principal.NormalizeEmail(gid.Email)
	uid, found, err := s.emails.Lookup(ctx, key)
	if err != nil {
		return SignIn{}, err
	}
	if !found {
		return s.googleRegister(ctx, gid, in, c)
	}

	// An existing account: prove it is yours before it is linked.
	if err := s.policy.Login(ctx, key, c.IP); err != nil {
		return SignIn{}, err
	}
	switch {
	case in.Password != "":
		got, ok, err := s.checkPassword(ctx, key, in.Password)
		if err != nil {
			return SignIn{}, err
		}
		if !ok || got != uid {
			s.loginFailed(ctx, key)
			return SignIn{}, ErrBadCredentials
		}
	case strings.TrimSpace(in.Code) != "":
		if _, err := s.codes.Consume(ctx, otp.LinkGoogle, in.Code, uid); err != nil {
			s.loginFailed(ctx, key)
			if errors.Is(err, otp.ErrInvalidCode) {
				return SignIn{}, ErrCodeInvalid
			}
			return SignIn{}, err
		}
	default:
		if err := s.mailLinkCode(ctx, uid); err != nil {
			return SignIn{}, err
		}
		return SignIn{}, ErrLinkRequired
	}
	s.loginSucceeded(ctx, key)
	return s.googleSignInLinked(ctx, uid, in, c, func(u *unit) error { u.linkGoogle(gid.Subject, uid); return nil })
}

// googleSignInLinked signs in to the account a Google identity belongs to. Google stands in for
// the password and for the e-mailed new-browser code (it proved control of the mailbox); the
// authenticator code, if the account has one, is still required.
func (s *Service) googleSignInLinked(ctx context.Context, uid uuid.UUID, in GoogleInput, c Client, link func(u *unit) error) (SignIn, error) {
	user, err := s.activeUser(ctx, uid, ErrGoogleInvalid)
	if err != nil {
		return SignIn{}, err
	}
	if user.TwoFactorEnabled() {
		if err := s.checkTOTP(ctx, uid, in.TOTPCode); err != nil {
			return SignIn{}, err
		}
	}
	trusted, err := s.devices.IsTrusted(ctx, uid, c.DeviceToken)
	if err != nil {
		return SignIn{}, err
	}
	return s.completeSignInWith(ctx, user, c, !trusted, link)
}

// googleRegister creates an account for a Google identity whose e-mail nobody uses yet.
// Like a sign-up with a password, it needs the person's consent to the terms and the privacy
// policy, given on the sign-up page before the flow started.
func (s *Service) googleRegister(ctx context.Context, gid google.Identity, in GoogleInput, c Client) (SignIn, error) {
	if !in.Terms.given() {
		return SignIn{}, identity.ErrTermsNotAccepted
	}
	if in.Language != "" && !identity.ValidLanguage(in.Language) {
		in.Language = ""
	}
	name := strings.TrimSpace(gid.Name)
	if identity.ValidateName(name) != nil {
		name, _, _ = strings.Cut(gid.Email, "@")
	}
	userID := uuid.Must(uuid.NewV7()).String()
	if err := s.prepareKey(userID); err != nil {
		return SignIn{}, err
	}
	var out SignIn
	pos, err := s.submitUser(ctx, eventstore.Metadata{ActorID: userID, ActorRole: string(identity.RoleSubscriber), ClientIP: c.IP}, userID, func(u *unit, fresh loaded) error {
		user := fresh.User
		if err := user.Register(identity.RegisterParams{
			UserID: userID, Name: name, Email: strings.TrimSpace(gid.Email), ReferralCode: newReferralCode(),
		}); err != nil {
			return err
		}
		if err := consent(user, in.Terms, in.Language); err != nil {
			return err
		}
		if err := user.VerifyEmail(); err != nil {
			return err
		}
		if err := u.createPrincipal(ctx, user, ""); err != nil {
			return err
		}
		uid := uuid.MustParse(userID)
		u.linkGoogle(gid.Subject, uid)
		devToken := u.trustDevice(uid, c)
		c.DeviceToken = devToken
		signIn, err := u.startSession(ctx, userID, c)
		if err != nil {
			return err
		}
		signIn.DeviceToken = devToken
		out = signIn
		out.User = view(loaded{User: user, createdAt: s.clock.Now()})
		return nil
	})
	if err != nil {
		s.discardKey(ctx, userID)
		return SignIn{}, err
	}
	out.Position = pos
	return out, nil
}

// linkGoogle links a Google identity to the user, with the flow's other writes.
func (u *unit) linkGoogle(subject string, uid uuid.UUID) {
	u.write(auth.Statement{SQL: `INSERT INTO google_links (subject, user_id, linked_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET subject = excluded.subject, linked_at = excluded.linked_at`,
		Args: []any{subject, uid, u.s.clock.Now()}})
}

// mailLinkCode e-mails the code that proves the person linking Google owns the account.
func (s *Service) mailLinkCode(ctx context.Context, uid uuid.UUID) error {
	user, err := s.loadUser(ctx, uid.String())
	if err != nil {
		return err
	}
	return s.writeRows(ctx, func(u *unit) error {
		code, err := u.issue(ctx, uid, otp.LinkGoogle, errCodeRaced)
		if errors.Is(err, otp.ErrCooldown) {
			return nil
		}
		if err != nil {
			return err
		}
		return u.mail(ctx, "link-google/"+hashID(uid.String()+code), user, mail.TemplateLoginCode,
			mail.LoginCodeData{Name: user.Profile().Name, Code: code, ValidFor: otp.TTL(otp.LinkGoogle)}, true)
	})
}

package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/geo"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/eventstore/pii"
	"clearvest/platform/auth"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/password"
	"clearvest/platform/auth/principal"
	"clearvest/platform/mail"
)

// Register creates a subscriber, signs them in on this browser (which it trusts from now on:
// the person just typed the password there) and e-mails a verification link, all in one
// transaction with the user.registered event.
func (s *Service) Register(ctx context.Context, in RegisterInput, c Client) (SignIn, error) {
	in.Name, in.Email, in.Phone = strings.TrimSpace(in.Name), strings.TrimSpace(in.Email), strings.TrimSpace(in.Phone)
	in.Country, in.ReferralCode = strings.TrimSpace(in.Country), strings.TrimSpace(in.ReferralCode)
	if in.Name == "" || in.Email == "" || in.Password == "" || in.Phone == "" || in.Country == "" {
		return SignIn{}, ErrAllFields
	}
	if !in.Terms.given() {
		return SignIn{}, identity.ErrTermsNotAccepted
	}
	if in.Language == "" {
		in.Language = identity.DefaultLanguage
	}
	if !identity.ValidLanguage(in.Language) {
		return SignIn{}, identity.ErrInvalidLanguage
	}
	if err := identity.ValidateEmail(in.Email); err != nil {
		return SignIn{}, err
	}
	if err := identity.ValidatePhone(identity.NormalizePhone(in.Phone)); err != nil {
		return SignIn{}, err
	}
	country, err := countryCode(in.Country)
	if err != nil {
		return SignIn{}, err
	}
	if err := password.Check(in.Password, in.Email, in.Name); err != nil {
		return SignIn{}, err
	}
	if in.ConfirmPassword != "" && in.ConfirmPassword != in.Password {
		return SignIn{}, ErrPasswordMismatch
	}
	if err := s.limit(ctx, ruleRegister, c.IP); err != nil {
		return SignIn{}, err
	}
	referredBy := ""
	if in.ReferralCode != "" {
		ref, err := s.referrer(ctx, in.ReferralCode)
		if err != nil {
			return SignIn{}, err
		}
		referredBy = ref
	}
	hash, err := s.hasher.Hash(ctx, in.Password)
	if err != nil {
		return SignIn{}, err
	}

	userID := uuid.Must(uuid.NewV7()).String()
	if err := s.prepareKey(userID); err != nil {
		return SignIn{}, err
	}
	var out SignIn
	pos, err := s.submitUser(ctx, eventstore.Metadata{ActorID: userID, ActorRole: string(identity.RoleSubscriber), ClientIP: c.IP}, userID, func(u *unit, fresh loaded) error {
		user := fresh.User
		if err := user.Register(identity.RegisterParams{
			UserID: userID, Name: in.Name, Email: in.Email, Phone: in.Phone, Country: country,
			ReferralCode: newReferralCode(), ReferredBy: referredBy,
		}); err != nil {
			return err
		}
		if err := consent(user, in.Terms, in.Language); err != nil {
			return err
		}
		if err := u.createPrincipal(ctx, user, hash); err != nil {
			return err
		}
		if err := u.sendVerification(ctx, user); err != nil {
			return err
		}
		signIn, err := u.startSession(ctx, userID, c)
		if err != nil {
			return err
		}
		signIn.DeviceToken = u.trustDevice(uuid.MustParse(userID), c)
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

// consent records, on a new user's stream, the versions of the terms and the privacy policy the
// person agreed to and the language they read in.
func consent(user *identity.User, terms Consent, language string) error {
	if err := user.AcceptTerms(terms.TermsVersion, terms.PrivacyVersion); err != nil {
		return err
	}
	if language == "" {
		return nil
	}
	return user.SetLanguage(language)
}

// createPrincipal writes the rows that let a new user sign in: e-mail claim, principal and (if
// they have one) password. The e-mail claim is what makes two concurrent sign-ups with one
// address impossible; it goes with the events, and a taken address fails the whole
// registration (and the caller discards the personal-data key it prepared). The key is claimed
// with them too, so the orphan sweep cannot take a key whose events are committing.
func (u *unit) createPrincipal(ctx context.Context, user *identity.User, passwordHash string) error {
	id := uuid.MustParse(user.ID())
	st, err := u.s.emails.ReserveStatement(user.Email(), id)
	if err != nil {
		return err
	}
	u.write(st)
	u.w.OnViolation(principal.EmailTakenConstraint, ErrEmailTaken)
	if u.s.pii != nil {
		sql, args, err := u.s.pii.ClaimStatement(user.ID())
		if err != nil {
			return err
		}
		u.write(auth.Statement{SQL: sql, Args: args})
		u.w.OnViolation(pii.KeyGoneConstraint, fmt.Errorf("accounts: register: %w", pii.ErrNoKey))
	}
	if err := u.syncPrincipal(ctx, user); err != nil {
		return err
	}
	u.write(auth.Statement{SQL: `INSERT INTO referral_codes (code, user_id) VALUES ($1, $2)`, Args: []any{user.ReferralCode(), id}})
	if passwordHash == "" {
		return nil
	}
	return u.setPassword(ctx, id, passwordHash)
}

// sendVerification issues a verification link and queues its e-mail.
func (u *unit) sendVerification(ctx context.Context, user *identity.User) error {
	tok, err := u.issue(ctx, uuid.MustParse(user.ID()), otp.VerifyEmail, cooldownRaced)
	if err != nil {
		return err
	}
	key, data := verificationMail(u.s, user, tok)
	return u.mail(ctx, key, user, mail.TemplateVerification, data, true)
}

// verificationMail is the dedupe key and the data of the e-mail that carries a verification
// link with tok.
func verificationMail(s *Service, user *identity.User, tok string) (string, mail.VerificationData) {
	return "verify/" + hashID(tok), mail.VerificationData{
		Name: user.Profile().Name, Link: s.link("/verify/" + tok), ValidFor: otp.TTL(otp.VerifyEmail),
	}
}

// CreateUser makes an account from operator tooling (`clearvest admin create`, the demo seed):
// any role, the e-mail optionally marked verified. The password policy still applies.
func (s *Service) CreateUser(ctx context.Context, in CreateUserInput) (User, error) {
	in.Name, in.Email = strings.TrimSpace(in.Name), strings.TrimSpace(in.Email)
	if in.Name == "" || in.Email == "" || in.Password == "" {
		return User{}, ErrAllFields
	}
	if err := identity.ValidateEmail(in.Email); err != nil {
		return User{}, err
	}
	role, err := identity.ParseRole(in.Role)
	if err != nil {
		return User{}, err
	}
	country := ""
	if in.Country != "" {
		if country, err = countryCode(in.Country); err != nil {
			return User{}, err
		}
	}
	if err := password.Check(in.Password, in.Email, in.Name); err != nil {
		return User{}, err
	}
	hash, err := s.hasher.Hash(ctx, in.Password)
	if err != nil {
		return User{}, err
	}
	userID := uuid.Must(uuid.NewV7()).String()
	if err := s.prepareKey(userID); err != nil {
		return User{}, err
	}
	var out User
	_, err = s.submitUser(ctx, eventstore.Metadata{ActorRole: "operator"}, userID, func(u *unit, fresh loaded) error {
		user := fresh.User
		if err := user.Register(identity.RegisterParams{
			UserID: userID, Name: in.Name, Email: in.Email, Country: country,
			ReferralCode: newReferralCode(), Role: role,
		}); err != nil {
			return err
		}
		if in.Verified {
			if err := user.VerifyEmail(); err != nil {
				return err
			}
		}
		if err := u.createPrincipal(ctx, user, hash); err != nil {
			return err
		}
		out = view(loaded{User: user, createdAt: s.clock.Now()})
		return nil
	})
	if err != nil {
		s.discardKey(ctx, userID)
		return User{}, err
	}
	return out, nil
}

// countryCode accepts an ISO code or a country's name (the original client sent names) and
// returns the ISO alpha-2 code the domain stores.
func countryCode(in string) (string, error) {
	if c, ok := geo.Lookup(in); ok {
		return c.Code, nil
	}
	for _, c := range geo.Countries() {
		if strings.EqualFold(c.Name, strings.TrimSpace(in)) {
			return c.Code, nil
		}
	}
	return "", identity.ErrInvalidCountry
}

// referralAlphabet leaves out letters and digits people confuse when they copy a code by hand.
const referralAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// newReferralCode returns 8 random characters (40 bits): collisions between users are
// negligible at any realistic number of accounts.
// referrer is the user whose referral code code is (any case), from the write side's own
// index, so a referrer who signed up a moment ago is found.
func (s *Service) referrer(ctx context.Context, code string) (string, error) {
	var id uuid.UUID
	err := s.pool.QueryRow(ctx, `SELECT user_id FROM referral_codes WHERE code = upper($1)`, strings.TrimSpace(code)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrUnknownReferral
	}
	if err != nil {
		return "", fmt.Errorf("accounts: look up referral code: %w", err)
	}
	return id.String(), nil
}

func newReferralCode() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = referralAlphabet[int(b[i])%len(referralAlphabet)]
	}
	return string(b)
}

// hashID is a short, non-reversible name for a secret, for dedupe keys and device ids.
func hashID(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:12])
}

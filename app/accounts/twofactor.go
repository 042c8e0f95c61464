package accounts

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"clearvest/domain/identity"
	"clearvest/platform/auth"
	"clearvest/platform/auth/totp"
)

// TOTPSetup is what the set-up page shows.
type TOTPSetup struct {
	Secret string // base32, for typing into the app
	URL    string // otpauth://
	QRCode string // the URL as a PNG data URL
}

// SetupTOTP starts enrolling an authenticator app; nothing changes for sign-in until EnableTOTP
// confirms a code from it.
func (s *Service) SetupTOTP(ctx context.Context, a Actor) (TOTPSetup, error) {
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return TOTPSetup{}, err
	}
	if !user.Registered() {
		return TOTPSetup{}, ErrUserNotFound
	}
	if user.TwoFactorEnabled() {
		return TOTPSetup{}, identity.ErrTwoFactorAlreadyEnabled
	}
	e, err := s.totp.Begin(ctx, uuid.MustParse(user.ID()), user.Email())
	if err != nil {
		return TOTPSetup{}, err
	}
	return TOTPSetup{Secret: e.Secret, URL: e.URL, QRCode: e.QRCode}, nil
}

// EnableTOTP checks the first code from the app and turns two-factor sign-in on; it returns
// the recovery codes, which are shown once. The event and the enabled secret commit together.
func (s *Service) EnableTOTP(ctx context.Context, a Actor, code string) ([]string, int64, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return nil, 0, ErrCodeEmpty.WithMessage("Please enter the code from your authenticator app")
	}
	if err := s.limit(ctx, ruleTOTP, a.UserID); err != nil {
		return nil, 0, err
	}
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return nil, 0, ErrNotSignedIn
	}
	var codes []string
	pos, err := s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		if err := user.EnableTwoFactor(s.clock.Now()); err != nil {
			return err
		}
		var st auth.Statement
		var err error
		if codes, st, err = s.totp.ConfirmStatement(ctx, uid, code); err != nil {
			return err
		}
		u.w.OnViolation(totp.EnrolmentChangedConstraint, totp.ErrNotEnrolling)
		u.write(st)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return codes, pos, nil
}

// DisableTOTP turns two-factor sign-in off; it needs the password and a current code (or a
// recovery code), so a session left open on someone else's screen cannot remove it.
func (s *Service) DisableTOTP(ctx context.Context, a Actor, pw, code string) (int64, error) {
	if pw == "" || strings.TrimSpace(code) == "" {
		return 0, ErrAllFields
	}
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return 0, ErrNotSignedIn
	}
	if err := s.limit(ctx, ruleTOTP, a.UserID); err != nil {
		return 0, err
	}
	cred, ok, err := s.credentials.Get(ctx, uid)
	if err != nil {
		return 0, err
	}
	if !ok {
		_ = s.hasher.DummyVerify(ctx, pw)
		return 0, ErrOldPassword.WithMessage("Password is incorrect")
	}
	if match, err := s.hasher.Verify(ctx, pw, cred.Hash); err != nil {
		return 0, err
	} else if !match {
		return 0, ErrOldPassword.WithMessage("Password is incorrect")
	}
	if err := s.checkTOTP(ctx, uid, code); err != nil {
		return 0, err
	}
	return s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		if err := user.DisableTwoFactor(s.clock.Now()); err != nil {
			return err
		}
		u.write(totp.ForgetStatement(uid))
		return nil
	})
}

// checkTOTP is the second step of a sign-in for a user with two-factor authentication on.
func (s *Service) checkTOTP(ctx context.Context, uid uuid.UUID, code string) error {
	code = strings.TrimSpace(code)
	if code == "" {
		return ErrTOTPRequired
	}
	if err := s.limit(ctx, ruleTOTP, uid.String()); err != nil {
		return err
	}
	if _, err := s.totp.Verify(ctx, uid, code); err != nil {
		if errors.Is(err, totp.ErrInvalidCode) || errors.Is(err, totp.ErrNotEnabled) {
			return ErrTOTPInvalid
		}
		return err
	}
	return nil
}

package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/domainerr"
	"clearvest/platform/auth/session"
)

// StepUpLifetime is how long a confirmation lets the session through operations that need one.
const StepUpLifetime = session.StepUpLifetime

// StepUpInput is what a person types to confirm it is them: the code from their authenticator
// app when the account has one, otherwise their password.
type StepUpInput struct {
	Code     string
	Password string
	// Passkey, when given, is the answer to a BeginPasskeyStepUp ceremony; it confirms on any
	// account with a passkey, whether or not it has an authenticator app.
	Passkey *PasskeyAnswer
}

// Refusals of a step-up. None is a 401: the session is fine, only the confirmation failed, and a
// 401 would send the browser to refresh its session instead of asking again.
var (
	ErrStepUpCodeNeeded = domainerr.Field("code", "Please enter the 6-digit code from your authenticator app.")
	ErrStepUpTOTPOnly   = domainerr.Field("code",
		"Your account uses an authenticator app, so please confirm with the 6-digit code from it rather than your password.")
	ErrStepUpCodeWrong     = domainerr.Field("code", "That authenticator code is not valid. Please try again.")
	ErrStepUpPasswordEmpty = domainerr.Field("password", "Please enter your password.")
	ErrStepUpNoTOTP        = domainerr.Field("password",
		"Your account has no authenticator app, so please confirm with your password.")
	ErrStepUpPasswordWrong = domainerr.Field("password", "That password is not correct. Please try again.")
	// ErrStepUpImpossible: a Google-only account without an authenticator app has nothing to
	// confirm with; a passkey, an app (or a password, through a reset) gives it something.
	ErrStepUpImpossible = domainerr.New(domainerr.RuleBroken,
		"To confirm it's you, please add a passkey or set up an authenticator app in your security settings first.")
)

// StepUp marks the caller's session as confirmed by the person for StepUpLifetime, once they
// have proved it with the code of their authenticator app or, on an account without one, with
// their password (the same verification as sign-in). An account with an app must use the code:
// the password alone is the weaker factor. Attempts are limited per account (ruleStepUp, not
// per address: the caller is already signed in, and people behind one office address must not
// share a budget), and each wrong answer counts towards the account's sign-in back-off, so
// step-up cannot be used to guess either.
func (s *Service) StepUp(ctx context.Context, a Actor, in StepUpInput) (time.Time, error) {
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return time.Time{}, ErrNotSignedIn
	}
	sid, err := uuid.Parse(a.SessionID)
	if err != nil {
		return time.Time{}, ErrNotSignedIn
	}
	code := strings.TrimSpace(in.Code)
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return time.Time{}, err
	}
	if !user.Registered() {
		return time.Time{}, ErrUserNotFound
	}
	if in.Passkey != nil {
		if err := s.limit(ctx, ruleStepUp, a.UserID); err != nil {
			return time.Time{}, err
		}
		if err := s.stepUpWithPasskey(ctx, a, *in.Passkey); err != nil {
			return time.Time{}, err
		}
		return s.markSteppedUp(ctx, a.UserID, uid, sid)
	}
	if user.TwoFactorEnabled() {
		switch {
		case code == "" && in.Password != "":
			return time.Time{}, ErrStepUpTOTPOnly
		case code == "":
			return time.Time{}, ErrStepUpCodeNeeded
		}
	} else {
		switch {
		case in.Password == "" && code != "":
			return time.Time{}, ErrStepUpNoTOTP
		case in.Password == "":
			return time.Time{}, ErrStepUpPasswordEmpty
		}
	}
	if err := s.limit(ctx, ruleStepUp, a.UserID); err != nil {
		return time.Time{}, err
	}
	if user.TwoFactorEnabled() {
		if err := s.checkTOTP(ctx, uid, code); errors.Is(err, ErrTOTPInvalid) || errors.Is(err, ErrTOTPRequired) {
			s.loginFailed(ctx, a.UserID)
			return time.Time{}, ErrStepUpCodeWrong
		} else if err != nil {
			return time.Time{}, err
		}
	} else {
		if _, hasPassword, err := s.credentials.Get(ctx, uid); err != nil {
			return time.Time{}, err
		} else if !hasPassword {
			_ = s.hasher.DummyVerify(ctx, in.Password)
			return time.Time{}, ErrStepUpImpossible
		}
		ok, err := s.verifyPassword(ctx, uid, true, in.Password)
		if err != nil {
			return time.Time{}, err
		}
		if !ok {
			s.loginFailed(ctx, a.UserID)
			return time.Time{}, ErrStepUpPasswordWrong
		}
	}
	return s.markSteppedUp(ctx, a.UserID, uid, sid)
}

func (s *Service) markSteppedUp(ctx context.Context, account string, uid, sid uuid.UUID) (time.Time, error) {
	s.loginSucceeded(ctx, account)
	until, err := s.sessions.MarkSteppedUp(ctx, uid, sid)
	if errors.Is(err, session.ErrNotFound) {
		return time.Time{}, ErrSessionEnded
	}
	return until, err
}

// SteppedUp reports whether the caller's session was confirmed within StepUpLifetime. A bearer
// token carries the id of the session it was issued for, so an API client's confirmation is
// that session's too.
func (s *Service) SteppedUp(ctx context.Context, a Actor) (bool, error) {
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return false, nil
	}
	sid, err := uuid.Parse(a.SessionID)
	if err != nil {
		return false, nil
	}
	return s.sessions.SteppedUp(ctx, uid, sid)
}

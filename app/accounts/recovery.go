package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/password"
	"clearvest/platform/auth/principal"
	"clearvest/platform/auth/session"
	"clearvest/platform/mail"
)

// forgotFloor is how long ForgotPassword takes. The work differs by whether the account exists
// (a lookup, or a lookup plus a code and an outbox row); answering at a deadline set when the
// request began makes both cases look alike from outside, as long as the work fits in it with
// room to spare.
const forgotFloor = 300 * time.Millisecond

// MsgAlreadyVerified is SendVerification's answer for an address already verified.
const MsgAlreadyVerified = "Your email is already verified"

// VerifyEmail redeems the link of a verification e-mail. The link works once; following it
// again after success, or for an address already verified, answers like success.
func (s *Service) VerifyEmail(ctx context.Context, token string, c Client) (int64, error) {
	if err := s.limit(ctx, ruleLinkIP, c.IP); err != nil {
		return 0, err
	}
	uid, err := s.codes.Consume(ctx, otp.VerifyEmail, strings.TrimSpace(token), uuid.Nil)
	if err != nil {
		return 0, err
	}
	return s.submitUser(ctx, eventstore.Metadata{ActorID: uid.String(), ClientIP: c.IP}, uid.String(), func(u *unit, user loaded) error {
		if err := user.VerifyEmail(); errors.Is(err, identity.ErrAlreadyVerified) {
			return nil
		} else if err != nil {
			return err
		}
		return nil
	})
}

// SendVerification e-mails a new verification link to the signed-in user. It returns the
// message to show when there was nothing to send.
func (s *Service) SendVerification(ctx context.Context, a Actor) (string, error) {
	if err := s.policy.CodeRequest(ctx, a.UserID, a.Client.IP); err != nil {
		return "", err
	}
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return "", err
	}
	if !user.Registered() {
		return "", ErrUserNotFound
	}
	if user.EmailVerified() {
		return MsgAlreadyVerified, nil
	}
	return "", s.writeRows(ctx, func(u *unit) error { return u.sendVerification(ctx, user.User) })
}

// ForgotPassword e-mails a reset link if the address belongs to an active account. The answer,
// and the time it takes, are the same either way (docs/identity.md): only the owner of the
// mailbox learns whether it has an account.
func (s *Service) ForgotPassword(ctx context.Context, email string, c Client) error {
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
	deadline := s.clock.Now().Add(forgotFloor)
	err := s.mailReset(ctx, key, c)
	if werr := s.waitUntil(ctx, deadline); werr != nil {
		return werr
	}
	return err
}

func (s *Service) mailReset(ctx context.Context, emailKey string, c Client) error {
	uid, found, err := s.emails.Lookup(ctx, emailKey)
	if err != nil || !found {
		return err
	}
	if p, err := s.principals.Get(ctx, uid); err != nil || p.Status == identity.StatusClosed {
		return nil
	}
	user, err := s.loadUser(ctx, uid.String())
	if err != nil {
		return err
	}
	return s.writeRows(ctx, func(u *unit) error { return u.mailResetLink(ctx, user) })
}

// mailResetLink issues a reset link and queues its e-mail. A link requested within the last
// minute is still valid and was just mailed, so nothing new is sent.
func (u *unit) mailResetLink(ctx context.Context, user loaded) error {
	tok, err := u.issue(ctx, uuid.MustParse(user.ID()), otp.ResetPassword, errCodeRaced)
	if errors.Is(err, otp.ErrCooldown) {
		return nil
	}
	if err != nil {
		return err
	}
	key, data := resetMail(u.s, user.User, tok)
	return u.mail(ctx, key, user, mail.TemplatePasswordReset, data, true)
}

// resetMail is the dedupe key and the data of the e-mail that carries a reset link with tok.
func resetMail(s *Service, user *identity.User, tok string) (string, mail.PasswordResetData) {
	return "reset/" + hashID(tok), mail.PasswordResetData{
		Name: user.Profile().Name, Link: s.link("/resetPassword/" + tok), ValidFor: otp.TTL(otp.ResetPassword),
	}
}

// ResetPassword sets a new password with a reset link and ends every session of the account:
// whoever knew the old password is signed out.
func (s *Service) ResetPassword(ctx context.Context, token, newPassword, confirm string, c Client) (int64, error) {
	if newPassword == "" {
		return 0, ErrAllFields
	}
	if confirm != "" && confirm != newPassword {
		return 0, ErrPasswordMismatch
	}
	// Checked before the link is spent, so a rejected password does not cost the user the link.
	if err := password.Check(newPassword); err != nil {
		return 0, err
	}
	if err := s.limit(ctx, ruleLinkIP, c.IP); err != nil {
		return 0, err
	}
	uid, err := s.codes.Consume(ctx, otp.ResetPassword, strings.TrimSpace(token), uuid.Nil)
	if err != nil {
		return 0, err
	}
	hash, err := s.hasher.Hash(ctx, newPassword)
	if err != nil {
		return 0, err
	}
	return s.submitUser(ctx, eventstore.Metadata{ActorID: uid.String(), ClientIP: c.IP}, uid.String(), func(u *unit, user loaded) error {
		if err := user.RecordPasswordChange(identity.ViaReset, s.clock.Now()); err != nil {
			return err
		}
		if err := u.setPassword(ctx, uid, hash); err != nil {
			return err
		}
		if err := u.endSessions(ctx, uid, uuid.Nil, reasonPasswordReset); err != nil {
			return err
		}
		return u.mailPasswordChanged(ctx, user)
	})
}

// ChangePassword replaces the password of the signed-in user, who must know the current one,
// and ends every other session.
func (s *Service) ChangePassword(ctx context.Context, a Actor, oldPassword, newPassword, confirm string) (int64, error) {
	if oldPassword == "" || newPassword == "" {
		return 0, ErrAllFields
	}
	if confirm != "" && confirm != newPassword {
		return 0, ErrPasswordMismatch
	}
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return 0, ErrNotSignedIn
	}
	if err := s.policy.Login(ctx, a.UserID, a.Client.IP); err != nil {
		return 0, err
	}
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return 0, err
	}
	cred, ok, err := s.credentials.Get(ctx, uid)
	if err != nil {
		return 0, err
	}
	if !ok {
		if err := s.hasher.DummyVerify(ctx, oldPassword); err != nil {
			return 0, err
		}
		return 0, ErrOldPassword
	}
	if match, err := s.hasher.Verify(ctx, oldPassword, cred.Hash); err != nil {
		return 0, err
	} else if !match {
		s.loginFailed(ctx, a.UserID)
		return 0, ErrOldPassword
	}
	if err := password.Check(newPassword, user.Email(), user.Profile().Name); err != nil {
		return 0, err
	}
	hash, err := s.hasher.Hash(ctx, newPassword)
	if err != nil {
		return 0, err
	}
	current, _ := uuid.Parse(a.SessionID)
	return s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		if err := user.RecordPasswordChange(identity.ViaChange, s.clock.Now()); err != nil {
			return err
		}
		if err := u.setPassword(ctx, uid, hash); err != nil {
			return err
		}
		if err := u.endSessions(ctx, uid, current, reasonPasswordChanged); err != nil {
			return err
		}
		return u.mailPasswordChanged(ctx, user)
	})
}

// mailPasswordChanged tells the user, with a "this wasn't me" link in case it was not them.
func (u *unit) mailPasswordChanged(ctx context.Context, user loaded) error {
	tok, err := u.issue(ctx, uuid.MustParse(user.ID()), otp.WasntMe, nil)
	if err != nil {
		return err
	}
	return u.mail(ctx, "password-changed/"+hashID(tok), user, mail.TemplatePasswordChanged, mail.PasswordChangedData{
		Name: user.Profile().Name, Time: u.s.clock.Now(), SecureLink: u.s.link("/secure-account/" + tok),
	}, true)
}

// SecureAccount is the "this wasn't me" link of a new-device or password-changed e-mail: every
// session ends, every trusted browser is forgotten, and a reset link goes to the owner's
// mailbox, so only the owner can get back in.
func (s *Service) SecureAccount(ctx context.Context, token string, c Client) error {
	if err := s.limit(ctx, ruleLinkIP, c.IP); err != nil {
		return err
	}
	uid, err := s.codes.Consume(ctx, otp.WasntMe, strings.TrimSpace(token), uuid.Nil)
	if err != nil {
		return err
	}
	user, err := s.loadUser(ctx, uid.String())
	if err != nil {
		return err
	}
	return s.writeRows(ctx, func(u *unit) error {
		if err := u.endSessions(ctx, uid, uuid.Nil, reasonWasntMe); err != nil {
			return err
		}
		u.write(session.ForgetAllStatement(uid))
		if user.Status() == identity.StatusClosed {
			return nil
		}
		// A link the intruder may have requested a moment ago went to this same mailbox, so
		// the cooldown that suppresses a second one loses the owner nothing.
		return u.mailResetLink(ctx, user)
	})
}

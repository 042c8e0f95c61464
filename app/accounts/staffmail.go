package accounts

import (
	"context"
	"errors"

	"clearvest/app/command"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/mail"
)

// Refusals of a resend.
var (
	ErrResendTemplate   = domainerr.New(domainerr.Invalid, "This message cannot be sent again by staff. Choose the verification or the password reset e-mail.")
	ErrResendVerified   = domainerr.New(domainerr.Conflict, "This user's e-mail address is already verified.")
	ErrResendClosed     = domainerr.New(domainerr.NotFound, "User not found")
	ErrResendRecentLink = domainerr.New(domainerr.Conflict, "A password reset link was sent to this user less than a minute ago.")
)

// QueueAutomated queues one of StaffResendable for userID inside the caller's transaction
// (tx, which has already appended its own events) and returns the dedupe keys of the queued
// messages. The caller wakes the mail sender after its commit. A closed account gets nothing;
// the verification e-mail only goes to an address not verified yet.
func (s *Service) QueueAutomated(ctx context.Context, tx *command.Tx, userID, template string) ([]string, error) {
	user, err := s.loadUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !user.Registered() || user.Status() == identity.StatusClosed {
		return nil, ErrResendClosed
	}
	u := &unit{s: s, tx: tx.Tx, cmd: tx}
	switch template {
	case mail.TemplateVerification:
		if user.EmailVerified() {
			return nil, ErrResendVerified
		}
		if err := u.sendVerification(ctx, user.User); err != nil {
			return nil, err
		}
	case mail.TemplatePasswordReset:
		if err := u.mailResetLink(ctx, user); err != nil {
			return nil, err
		}
		if len(u.queued) == 0 {
			return nil, ErrResendRecentLink
		}
	default:
		return nil, ErrResendTemplate
	}
	if len(u.queued) == 0 {
		return nil, errors.New("accounts: resend queued nothing")
	}
	return u.queued, nil
}

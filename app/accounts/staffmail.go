package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"clearvest/app/command"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/auth/otp"
	"clearvest/platform/mail"
)

// Refusals of a resend.
var (
	ErrResendTemplate   = domainerr.New(domainerr.Invalid, "This message cannot be sent again by staff. Choose the verification or the password reset e-mail.")
	ErrResendVerified   = domainerr.New(domainerr.Conflict, "This user's e-mail address is already verified.")
	ErrResendClosed     = domainerr.New(domainerr.NotFound, "User not found")
	ErrResendRecentLink = domainerr.New(domainerr.Conflict, "A password reset link was sent to this user less than a minute ago.")
)

// resend is one of the product's automated e-mails made again for a user, with a fresh link,
// for the caller's command to send in its round trip (command.Submit): the link's code and the
// message that carries it, in the caller's batch.
type resend struct {
	code    otp.Issued
	message string
	args    []any
	refusal error // what a code issued meanwhile, within the cooldown, answers
}

// queue adds the resend's writes to w: the code, and the message, which go out together or not
// at all. A code of the purpose issued since the resend was made fails the command.
func (r resend) queue(w *command.Writes) {
	w.Add(r.code.Statement.SQL, r.code.Statement.Args...)
	w.OnViolation(otp.CooldownConstraint, r.refusal)
	w.Add(r.message, r.args...)
}

// PrepareAutomated makes the verification e-mail or the password reset link again for userID,
// as the product's own flows make them, to be queued in batch by the caller's command
// (the function returned adds its writes), which wakes the mail sender after its commit. A closed account gets nothing;
// the verification e-mail only goes to an address not verified yet; a link of the same kind
// made less than a minute ago refuses it (that link is still valid).
func (s *Service) PrepareAutomated(ctx context.Context, userID, template, batch string) (func(*command.Writes), error) {
	user, err := s.loadUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !user.Registered() || user.Status() == identity.StatusClosed {
		return nil, ErrResendClosed
	}
	var purpose otp.Purpose
	var r resend
	switch template {
	case mail.TemplateVerification:
		if user.EmailVerified() {
			return nil, ErrResendVerified
		}
		purpose, r.refusal = otp.VerifyEmail, &otp.CooldownError{Wait: otp.Cooldown}
	case mail.TemplatePasswordReset:
		purpose, r.refusal = otp.ResetPassword, ErrResendRecentLink
	default:
		return nil, ErrResendTemplate
	}
	r.code, err = s.codes.IssueFor(ctx, uuid.MustParse(user.ID()), purpose, 0)
	if purpose == otp.ResetPassword && errors.Is(err, otp.ErrCooldown) {
		return nil, ErrResendRecentLink
	}
	if err != nil {
		return nil, err
	}
	var dedupeKey string
	var data any
	if purpose == otp.VerifyEmail {
		dedupeKey, data = verificationMail(s, user.User, r.code.Plaintext)
	} else {
		dedupeKey, data = resetMail(s, user.User, r.code.Plaintext)
	}
	subject, text, html, err := s.tmpl.RenderIn(user.Language(), template, data)
	if err != nil {
		return nil, err
	}
	r.message, r.args, err = mail.BatchStatement(ctx, batch, mail.BatchItem{DedupeKey: dedupeKey,
		Message: mail.Message{To: user.Email(), Subject: subject, Text: text, HTML: html}, Due: s.clock.Now(), Scrub: true})
	if err != nil {
		return nil, err
	}
	return r.queue, nil
}

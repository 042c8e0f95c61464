package accounts

import "clearvest/domain/domainerr"

// Error is a refusal the client may have to act on, not just show: besides the kind and the
// user's message it carries a stable Code ("new_device", "totp_required", …) that the API sends
// as the error's `code`.
type Error struct {
	kind    domainerr.Kind
	Message string
	Code    string
}

func (e *Error) Error() string        { return e.Message }
func (e *Error) Kind() domainerr.Kind { return e.kind }

// ErrorCode is read by api/httperr to fill the response's `code`.
func (e *Error) ErrorCode() string { return e.Code }

// Refusals of the sign-in flows, worded as docs/identity.md fixes them.
var (
	ErrBadCredentials = domainerr.New(domainerr.Unauthenticated, "Invalid email or password")
	ErrSuspended      = &Error{kind: domainerr.Forbidden, Code: "suspended",
		Message: "Your account has been suspended. Please contact support."}
	ErrNewDevice = &Error{kind: domainerr.Unauthenticated, Code: "new_device",
		Message: "New browser or device detected. We sent a login code to your e-mail."}
	ErrTOTPRequired = &Error{kind: domainerr.Unauthenticated, Code: "totp_required",
		Message: "Enter the 6-digit code from your authenticator app."}
	ErrTOTPInvalid = &Error{kind: domainerr.Unauthenticated, Code: "totp_required",
		Message: "That authenticator code is not valid. Please try again."}
	ErrLinkRequired = &Error{kind: domainerr.Unauthenticated, Code: "link_required",
		Message: "An account with this e-mail already exists. Enter its password, or the code we e-mailed you, to link Google sign-in."}

	// ErrNotSignedIn is the one 401 that means "your session is gone": the UI answers it, and only
	// it, by refreshing the session once and retrying.
	ErrNotSignedIn = &Error{kind: domainerr.Unauthenticated, Code: "not_signed_in",
		Message: "Please log in to continue."}
	ErrSessionEnded     = domainerr.New(domainerr.Unauthenticated, "Your session has ended. Please log in again.")
	ErrAllFields        = domainerr.New(domainerr.Invalid, "All fields are required")
	ErrPasswordMismatch = domainerr.New(domainerr.Invalid, "Passwords do not match")
	ErrEmailTaken       = domainerr.New(domainerr.Conflict, "Email has already been registered")
	ErrEmailRequired    = domainerr.New(domainerr.Invalid, "Please enter an email")
	ErrOldPassword      = domainerr.Field("oldPassword", "Old password is incorrect")
	ErrCodeEmpty        = domainerr.New(domainerr.Invalid, "Please fill in the login code")
	ErrCodeLength       = domainerr.New(domainerr.Invalid, "Access code must be 6 characters")
	ErrCodeInvalid      = domainerr.New(domainerr.Unauthenticated, "Invalid or expired login code")
	ErrUnknownReferral  = domainerr.New(domainerr.Invalid, "Invalid referral code")
	ErrUserNotFound     = domainerr.New(domainerr.NotFound, "User not found")
	ErrSessionNotFound  = domainerr.New(domainerr.NotFound, "Session not found")
	ErrGoogleDisabled   = domainerr.New(domainerr.NotFound, "Google sign-in is not enabled on this server.")
	ErrGoogleInvalid    = domainerr.New(domainerr.Unauthenticated, "Google sign-in failed. Please try again.")
)

package accounts

import (
	"clearvest/domain/domainerr"
	"clearvest/platform/auth/otp"
)

// Refusals of the sign-in flows, worded as docs/identity.md fixes them.
var (
	ErrBadCredentials = domainerr.New(domainerr.Unauthenticated, "Invalid email or password")
	ErrNewDevice      = domainerr.Coded(domainerr.Unauthenticated, "new_device",
		"New browser or device detected. We sent a login code to your e-mail.")
	ErrTOTPRequired = domainerr.Coded(domainerr.Unauthenticated, "totp_required",
		"Enter the 6-digit code from your authenticator app.")
	ErrTOTPInvalid = domainerr.Coded(domainerr.Unauthenticated, "totp_required",
		"That authenticator code is not valid. Please try again.")
	ErrLinkRequired = domainerr.Coded(domainerr.Unauthenticated, "link_required",
		"An account with this e-mail already exists. Enter its password, or the code we e-mailed you, to link Google sign-in.")

	// ErrNotSignedIn is the one 401 that means "your session is gone": the UI answers it, and only
	// it, by refreshing the session once and retrying.
	ErrNotSignedIn = domainerr.Coded(domainerr.Unauthenticated, "not_signed_in",
		"Please log in to continue.")
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

	// ErrLoginExpired: the browser holds no live pending sign-in (never had one, or it was used,
	// replaced by a newer sign-in, or expired). The client goes back to the login page.
	ErrLoginExpired = otp.ErrNoAttempt
)

// NewDeviceError is ErrNewDevice (401 new_device) with the pending sign-in the e-mailed code
// belongs to: its token goes to the browser in an HttpOnly cookie and to API clients in the
// answer, and LoginWithCode needs it with the code.
type NewDeviceError struct{ Pending string }

func (e *NewDeviceError) Error() string { return ErrNewDevice.Error() }
func (e *NewDeviceError) Unwrap() error { return ErrNewDevice }

// PendingLogin is read by the API's error mapper to put the token in the answer.
func (e *NewDeviceError) PendingLogin() string { return e.Pending }

// Package domainerr classifies domain failures so that exactly one place (api/httperr) can turn
// them into HTTP statuses and user-facing messages. The domain says *what kind* of failure
// happened and words the message for the user; it never speaks HTTP.
package domainerr

import "errors"

// Kind is the category of a failure.
type Kind int

const (
	Invalid          Kind = iota + 1 // the input is malformed (400)
	Unauthenticated                  // not signed in or bad credentials (401)
	Forbidden                        // signed in but not allowed (403)
	NotFound                         // no such object visible to the caller (404)
	Conflict                         // concurrent change or duplicate (409)
	TooLarge                         // payload too large (413)
	UnsupportedMedia                 // file type not accepted (415)
	RuleBroken                       // well-formed but breaks a business rule (422)
	RateLimited                      // too many attempts (429)
	Gone                             // existed, and was deleted for good (410)
)

// Classified is any error that knows its Kind. Its Error() text is shown to the user as-is, so
// it must be a sentence meant for them.
type Classified interface {
	error
	Kind() Kind
}

// Error is the general classified error. Field optionally names the input at fault; Code is a
// stable machine-readable reason for refusals the client must act on, not just show
// ("new_device", "suspended"), sent beside the message.
type Error struct {
	kind     Kind
	Message  string
	Field    string
	Code     string
	cause    error
	sentinel bool
}

// New returns a sentinel error of a kind: errors.Is(err, sentinel) holds for errors derived from
// it with Wrap or WithMessage.
func New(kind Kind, message string) *Error {
	return &Error{kind: kind, Message: message, sentinel: true}
}

// Coded returns a sentinel error that also carries a stable code for clients.
func Coded(kind Kind, code, message string) *Error {
	return &Error{kind: kind, Message: message, Code: code, sentinel: true}
}

// Newf-free constructors for one-off errors.

// E returns a one-off error of a kind.
func E(kind Kind, message string) *Error { return &Error{kind: kind, Message: message} }

// Field returns a validation error about one input field.
func Field(field, message string) *Error {
	return &Error{kind: Invalid, Message: message, Field: field}
}

// WithMessage returns a copy of a sentinel with a more specific user message; it still matches
// the sentinel under errors.Is.
func (e *Error) WithMessage(message string) *Error {
	return &Error{kind: e.kind, Message: message, Field: e.Field, Code: e.Code, cause: e}
}

// Wrap attaches an internal cause (never shown to the user) to a classified error.
func (e *Error) Wrap(cause error) *Error {
	return &Error{kind: e.kind, Message: e.Message, Field: e.Field, Code: e.Code, cause: errors.Join(e, cause)}
}

// ErrorCode is read by the API's error mapper to fill the response's code.
func (e *Error) ErrorCode() string { return e.Code }

func (e *Error) Error() string { return e.Message }
func (e *Error) Kind() Kind    { return e.kind }
func (e *Error) Unwrap() error { return e.cause }

// Is matches another error of the same kind and message only when target is a sentinel that this
// error derives from; plain kind matching would make unrelated rules look alike.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t == e
}

// KindOf returns the kind of the outermost classified error in err's chain, and false when there
// is none (an internal error).
func KindOf(err error) (Kind, string, bool) {
	var c Classified
	if errors.As(err, &c) {
		return c.Kind(), c.Error(), true
	}
	return 0, "", false
}

// Package support is the support ticket: a message a visitor sends with the contact form, which
// staff answer by e-mail.
//
// Rules (docs/support.md):
//   - A ticket is opened with a name, an e-mail address and a message; all three are required,
//     the address must be valid, and name and message have length limits.
//   - Staff reply to an open or answered ticket; every reply is e-mailed to the requester and
//     leaves the ticket answered. A follow-up reply is allowed (the requester may write back
//     by e-mail), so answering twice is not an error.
//   - Staff close a ticket once it needs nothing more; a closed ticket takes no reply and cannot
//     be closed again.
package support

import (
	"strings"
	"time"
	"unicode/utf8"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/textcheck"
)

// Status is where a ticket stands. The strings are the API's.
type Status string

const (
	StatusOpen     Status = "open"
	StatusAnswered Status = "answered"
	StatusClosed   Status = "closed"
)

// Limits.
const (
	MaxNameRunes    = 100
	MaxMessageRunes = 5000
)

// Errors. Their messages are shown to the user as they are; the first two are the contact
// form's own wording.
var (
	ErrAllFields        = domainerr.New(domainerr.Invalid, "All fields are required")
	ErrNameInvisible    = textcheck.Refusal("name", "Your name")
	ErrMessageInvisible = textcheck.Refusal("message", "Your message")
	ErrReplyInvisible   = textcheck.Refusal("message", "The reply")
	ErrInvalidEmail     = fieldError("user_email", "Please enter a valid email")
	ErrNameTooLong      = fieldError("user_name", "Your name must be at most 100 characters.")
	ErrMessageTooLong   = fieldError("message", "Your message must be at most 5000 characters.")
	ErrReplyRequired    = fieldError("message", "Please write a reply.")
	ErrReplyTooLong     = fieldError("message", "The reply must be at most 5000 characters.")
	ErrNotFound         = domainerr.New(domainerr.NotFound, "Ticket not found")
	ErrClosed           = domainerr.New(domainerr.Conflict, "This ticket is closed.")
	ErrAlreadyOpened    = domainerr.New(domainerr.Conflict, "This ticket already exists.")
	ErrInvalidStaffID   = domainerr.New(domainerr.Invalid, "Invalid staff id")
	ErrInvalidTicketAt  = domainerr.New(domainerr.Invalid, "Invalid ticket time")
)

func fieldError(field, message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = field
	return e
}

// Request is what the contact form sends.
type Request struct {
	Name    string
	Email   string
	Message string
}

// Normalize trims the fields as they will be stored.
func (r Request) Normalize() Request {
	return Request{Name: strings.TrimSpace(r.Name), Email: strings.TrimSpace(r.Email), Message: strings.TrimSpace(r.Message)}
}

// Validate checks a normalized request against the rules of the contact form.
func (r Request) Validate() error {
	if r.Name == "" || r.Email == "" || r.Message == "" {
		return ErrAllFields
	}
	if identity.ValidateEmail(r.Email) != nil {
		return ErrInvalidEmail
	}
	if !textcheck.SingleLine(r.Name) {
		return ErrNameInvisible
	}
	if !textcheck.MultiLine(r.Message) {
		return ErrMessageInvisible
	}
	if utf8.RuneCountInString(r.Name) > MaxNameRunes {
		return ErrNameTooLong
	}
	if utf8.RuneCountInString(r.Message) > MaxMessageRunes {
		return ErrMessageTooLong
	}
	return nil
}

// Reply is one answer staff sent.
type Reply struct {
	StaffID string
	Message string
	At      time.Time
}

// Ticket is the aggregate of one support ticket.
type Ticket struct {
	aggregate.Root
	opened  bool
	request Request
	at      time.Time
	status  Status
	replies []Reply
}

// New returns an empty ticket, ready to load or to open.
func New() *Ticket { return &Ticket{} }

// Open records a new ticket from the contact form.
func (t *Ticket) Open(r Request, at time.Time) error {
	if t.opened {
		return ErrAlreadyOpened
	}
	if at.IsZero() {
		return ErrInvalidTicketAt
	}
	r = r.Normalize()
	if err := r.Validate(); err != nil {
		return err
	}
	aggregate.Raise(t, Opened{Name: r.Name, Email: r.Email, Message: r.Message, At: at.UTC()})
	return nil
}

// Reply records staff's answer; the caller e-mails it in the same transaction.
func (t *Ticket) Reply(staffID, message string, at time.Time) error {
	if err := t.staffAction(staffID); err != nil {
		return err
	}
	message = strings.TrimSpace(message)
	if message == "" {
		return ErrReplyRequired
	}
	if !textcheck.MultiLine(message) {
		return ErrReplyInvisible
	}
	if utf8.RuneCountInString(message) > MaxMessageRunes {
		return ErrReplyTooLong
	}
	aggregate.Raise(t, Replied{StaffID: staffID, Message: message, At: at.UTC()})
	return nil
}

// Close records that the ticket needs nothing more.
func (t *Ticket) Close(staffID string, at time.Time) error {
	if err := t.staffAction(staffID); err != nil {
		return err
	}
	aggregate.Raise(t, Closed{StaffID: staffID, At: at.UTC()})
	return nil
}

func (t *Ticket) staffAction(staffID string) error {
	if !t.opened {
		return ErrNotFound
	}
	if t.status == StatusClosed {
		return ErrClosed
	}
	if strings.TrimSpace(staffID) == "" {
		return ErrInvalidStaffID
	}
	return nil
}

// Apply implements aggregate.Aggregate.
func (t *Ticket) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case Opened:
		t.opened, t.status, t.at = true, StatusOpen, e.At
		t.request = Request{Name: e.Name, Email: e.Email, Message: e.Message}
	case Replied:
		t.status = StatusAnswered
		t.replies = append(t.replies, Reply(e))
	case Closed:
		t.status = StatusClosed
	}
}

// Opened reports whether the ticket exists.
func (t *Ticket) Opened() bool { return t.opened }

// Request is what the requester sent.
func (t *Ticket) Request() Request { return t.request }

// Status is where the ticket stands.
func (t *Ticket) Status() Status { return t.status }

// OpenedAt is when the requester sent it.
func (t *Ticket) OpenedAt() time.Time { return t.at }

// Replies are staff's answers, oldest first.
func (t *Ticket) Replies() []Reply { return append([]Reply(nil), t.replies...) }

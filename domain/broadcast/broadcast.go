// Package broadcast is an e-mail staff send through the outbox: a message they composed to one
// user, a role or every verified user, or one of the product's automated messages sent again to
// one user.
//
// Rules (docs/staff.md, "E-mail"):
//   - A send names its author, its audience, a subject and either a Markdown body or a template.
//     The subject is one line of at most 150 characters; the body at most 20,000 characters.
//   - An audience is one user (by id), a role (subscriber, author, admin) or every verified user.
//   - A send with no recipients is refused: nothing would be recorded as sent.
//   - A send may be cancelled once while messages still wait; the ones still waiting are
//     withdrawn. A cancelled send cannot be cancelled again.
package broadcast

import (
	"strings"
	"time"
	"unicode/utf8"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/textcheck"
)

// Audience kinds. The strings are the API's.
const (
	AudienceUser     = "user"
	AudienceRole     = "role"
	AudienceVerified = "verified"
)

// Roles a role audience may name.
var Roles = []string{"subscriber", "author", "admin"}

// Audience is who a send goes to: one user, everyone with a role, or every verified user.
type Audience struct {
	Kind   string `json:"kind"`
	Role   string `json:"role,omitempty"`
	UserID string `json:"userId,omitempty"`
}

// Limits.
const (
	MaxSubjectRunes = 150
	MaxBodyRunes    = 20000
)

// Errors. Their messages are shown to staff as they are.
var (
	ErrSubjectRequired  = fieldError("subject", "Please write a subject.")
	ErrSubjectTooLong   = fieldError("subject", "The subject must be at most 150 characters.")
	ErrSubjectInvisible = textcheck.Refusal("subject", "The subject")
	ErrBodyRequired     = fieldError("body", "Please write a message.")
	ErrBodyTooLong      = fieldError("body", "The message must be at most 20000 characters.")
	ErrBodyInvisible    = textcheck.Refusal("body", "The message")
	ErrAudience         = fieldError("audience", "Please choose who receives the e-mail: one user, a role or all verified users.")
	ErrRole             = fieldError("role", "Please choose a role: subscriber, author or admin.")
	ErrUserRequired     = fieldError("userId", "Please choose a user.")
	ErrNoRecipients     = domainerr.New(domainerr.RuleBroken, "No one would receive this e-mail: the audience has no active, verified users.")
	ErrNotFound         = domainerr.New(domainerr.NotFound, "E-mail not found")
	ErrAlreadyStarted   = domainerr.New(domainerr.Conflict, "This e-mail was already sent.")
	ErrAlreadyCancelled = domainerr.New(domainerr.Conflict, "This e-mail was already cancelled.")
	ErrInvalidStaffID   = domainerr.New(domainerr.Invalid, "Invalid staff id")
)

func fieldError(field, message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = field
	return e
}

// Normalize trims the audience as it is stored.
func (a Audience) Normalize() Audience {
	a.Kind, a.Role, a.UserID = strings.TrimSpace(a.Kind), strings.TrimSpace(a.Role), strings.TrimSpace(a.UserID)
	switch a.Kind {
	case AudienceUser:
		a.Role = ""
	case AudienceRole:
		a.UserID = ""
	case AudienceVerified:
		a.Role, a.UserID = "", ""
	}
	return a
}

// Validate checks a normalized audience.
func (a Audience) Validate() error {
	switch a.Kind {
	case AudienceUser:
		if a.UserID == "" {
			return ErrUserRequired
		}
	case AudienceRole:
		for _, r := range Roles {
			if a.Role == r {
				return nil
			}
		}
		return ErrRole
	case AudienceVerified:
	default:
		return ErrAudience
	}
	return nil
}

// Message is what staff wrote: a subject and a Markdown body.
type Message struct {
	Subject string
	Body    string
}

// Normalize trims the message as it is stored.
func (m Message) Normalize() Message {
	return Message{Subject: strings.TrimSpace(m.Subject), Body: strings.TrimSpace(strings.ReplaceAll(m.Body, "\r\n", "\n"))}
}

// Validate checks a normalized message.
func (m Message) Validate() error {
	switch {
	case m.Subject == "":
		return ErrSubjectRequired
	case !textcheck.SingleLine(m.Subject):
		return ErrSubjectInvisible
	case utf8.RuneCountInString(m.Subject) > MaxSubjectRunes:
		return ErrSubjectTooLong
	case m.Body == "":
		return ErrBodyRequired
	case !textcheck.MultiLine(m.Body):
		return ErrBodyInvisible
	case utf8.RuneCountInString(m.Body) > MaxBodyRunes:
		return ErrBodyTooLong
	}
	return nil
}

// Broadcast is the aggregate of one send.
type Broadcast struct {
	aggregate.Root
	started   bool
	cancelled bool
	start     Started
}

// New returns an empty broadcast, ready to load or to start.
func New() *Broadcast { return &Broadcast{} }

// Start records a send to recipients people. The caller queues the messages in the same
// transaction.
func (b *Broadcast) Start(e Started) error {
	if b.started {
		return ErrAlreadyStarted
	}
	if strings.TrimSpace(e.AuthorID) == "" {
		return ErrInvalidStaffID
	}
	e.Audience = e.Audience.Normalize()
	if err := e.Audience.Validate(); err != nil {
		return err
	}
	if e.Template == "" {
		m := Message{Subject: e.Subject, Body: e.Body}.Normalize()
		if err := m.Validate(); err != nil {
			return err
		}
		e.Subject, e.Body = m.Subject, m.Body
	}
	if e.Recipients <= 0 {
		return ErrNoRecipients
	}
	e.At = e.At.UTC()
	aggregate.Raise(b, e)
	return nil
}

// Cancel records that staff stopped the send; withdrawn is how many messages were still
// waiting and were taken out of the outbox in the same transaction.
func (b *Broadcast) Cancel(staffID string, withdrawn int, at time.Time) error {
	if !b.started {
		return ErrNotFound
	}
	if b.cancelled {
		return ErrAlreadyCancelled
	}
	if strings.TrimSpace(staffID) == "" {
		return ErrInvalidStaffID
	}
	aggregate.Raise(b, Cancelled{StaffID: staffID, Withdrawn: max(withdrawn, 0), At: at.UTC()})
	return nil
}

// Apply implements aggregate.Aggregate.
func (b *Broadcast) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case Started:
		b.started, b.start = true, e
	case Cancelled:
		b.cancelled = true
	}
}

// Started reports whether the send exists.
func (b *Broadcast) Started() bool { return b.started }

// Cancelled reports whether staff cancelled it.
func (b *Broadcast) Cancelled() bool { return b.cancelled }

// Details is the send as recorded.
func (b *Broadcast) Details() Started { return b.start }

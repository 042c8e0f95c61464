// Package testimonial is the aggregate of one investor's testimonial: written by the investor,
// published or refused by staff. Each testimonial is a stream ("testimonial-<id>").
//
// Rules (docs/community.md):
//   - Only a verified investor writes one: e-mail verified and at least one confirmed deposit.
//     The application checks that (it sees the read models); the aggregate is handed the answer.
//   - The text, after trimming and collapsing runs of white space, has MinTextRunes to
//     MaxTextRunes characters and no control characters other than line breaks.
//   - A user has at most one testimonial that is pending or approved; a rejected one frees the
//     place for a new one. That spans streams, so the application enforces it (app/community).
//   - Staff decide once: approve, or reject with a reason of 1 to MaxReasonRunes characters. A
//     second decision is ErrAlreadyDecided. Nobody decides their own testimonial.
package testimonial

import (
	"strings"
	"time"
	"unicode/utf8"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/textcheck"
)

// Limits of the text and of a rejection reason, in characters.
const (
	MinTextRunes   = 20
	MaxTextRunes   = 600
	MaxReasonRunes = 500
)

// Status of a testimonial.
type Status string

const (
	StatusPending  Status = "Pending"
	StatusApproved Status = "Approved"
	StatusRejected Status = "Rejected"
)

// Errors about testimonials. Their messages are shown to the user as they are.
var (
	ErrTextLength     = domainerr.Field("text", "Your testimonial must be 20 to 600 characters.")
	ErrTextInvalid    = domainerr.Field("text", textcheck.Message("Your testimonial"))
	ErrReasonRequired = domainerr.Field("reason", "A reason of 1 to 500 characters is required.")
	ErrNotEligible    = domainerr.New(domainerr.RuleBroken, "Only verified investors can share their experience: verify your e-mail and make a first deposit.")
	ErrAlreadyWritten = domainerr.New(domainerr.Conflict, "You have already shared your experience; it is waiting for review or already published.")
	ErrAlreadyDecided = domainerr.New(domainerr.Conflict, "This testimonial was already decided.")
	ErrNotFound       = domainerr.New(domainerr.NotFound, "Testimonial not found")
	ErrExists         = domainerr.New(domainerr.Conflict, "This testimonial exists already.")
	ErrOwnTestimonial = domainerr.New(domainerr.RuleBroken, "You cannot review your own testimonial.")
)

// NormalizeText trims the text and collapses runs of spaces and tabs; line breaks are kept,
// at most one empty line in a row, so paragraphs survive.
func NormalizeText(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	out := make([]string, 0, len(lines))
	blank := false
	for _, l := range lines {
		l = strings.Join(strings.Fields(l), " ")
		if l == "" {
			if blank || len(out) == 0 {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// ValidateText checks a normalised text.
func ValidateText(text string) error {
	if !textcheck.MultiLine(text) {
		return ErrTextInvalid
	}
	if n := utf8.RuneCountInString(text); n < MinTextRunes || n > MaxTextRunes {
		return ErrTextLength
	}
	return nil
}

// Testimonial is the aggregate. Create it with New and load the stream into it.
type Testimonial struct {
	aggregate.Root
	id          string
	userID      string
	text        string
	status      Status
	submittedAt time.Time
	decidedAt   time.Time
	reason      string
}

// New returns an empty testimonial, ready to load history into.
func New() *Testimonial { return &Testimonial{} }

// Submit writes the testimonial. eligible is the application's answer to "is userID a verified
// investor"; text is normalised first.
func (t *Testimonial) Submit(id, userID, text string, eligible bool, at time.Time) error {
	if t.status != "" {
		return ErrExists
	}
	if !eligible {
		return ErrNotEligible
	}
	text = NormalizeText(text)
	if err := ValidateText(text); err != nil {
		return err
	}
	aggregate.Raise(t, Submitted{TestimonialID: id, UserID: userID, Text: text, At: at.UTC()})
	return nil
}

// Approve publishes a pending testimonial.
func (t *Testimonial) Approve(staffID string, at time.Time) error {
	if err := t.decidable(staffID); err != nil {
		return err
	}
	aggregate.Raise(t, Approved{StaffID: staffID, At: at.UTC()})
	return nil
}

// Reject refuses a pending testimonial with a reason the author sees.
func (t *Testimonial) Reject(staffID, reason string, at time.Time) error {
	if err := t.decidable(staffID); err != nil {
		return err
	}
	reason = strings.TrimSpace(reason)
	if n := utf8.RuneCountInString(reason); n < 1 || n > MaxReasonRunes {
		return ErrReasonRequired
	}
	aggregate.Raise(t, Rejected{StaffID: staffID, Reason: reason, At: at.UTC()})
	return nil
}

func (t *Testimonial) decidable(staffID string) error {
	switch t.status {
	case "":
		return ErrNotFound
	case StatusPending:
	default:
		return ErrAlreadyDecided
	}
	if staffID == t.userID {
		return ErrOwnTestimonial
	}
	return nil
}

// Apply implements aggregate.Aggregate.
func (t *Testimonial) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case Submitted:
		t.id, t.userID, t.text, t.status, t.submittedAt = e.TestimonialID, e.UserID, e.Text, StatusPending, e.At
	case Approved:
		t.status, t.decidedAt = StatusApproved, e.At
	case Rejected:
		t.status, t.decidedAt, t.reason = StatusRejected, e.At, e.Reason
	}
}

// ID is the testimonial's id; "" before it was submitted.
func (t *Testimonial) ID() string { return t.id }

// UserID is the author.
func (t *Testimonial) UserID() string { return t.userID }

// Text is what the author wrote.
func (t *Testimonial) Text() string { return t.text }

// Status is where the testimonial is; "" before it was submitted.
func (t *Testimonial) Status() Status { return t.status }

// Reason is the reason of a rejection.
func (t *Testimonial) Reason() string { return t.reason }

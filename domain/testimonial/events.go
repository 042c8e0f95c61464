package testimonial

import (
	"time"

	"clearvest/domain/aggregate"
)

// StreamCategory is the category of testimonial streams: "testimonial-<id>".
const StreamCategory = "testimonial"

// Event type names. They are stored with every event and must never change.
const (
	TypeSubmitted = "testimonial.submitted"
	TypeApproved  = "testimonial.approved"
	TypeRejected  = "testimonial.rejected"
)

// Submitted records a user's testimonial, waiting for staff. The text is what the user wrote,
// normalised; it is public once approved, so it is not sealed as personal data, and the author
// is named only by id (their name is read from the users read model when it is shown).
type Submitted struct {
	TestimonialID string    `json:"testimonialId"`
	UserID        string    `json:"userId"`
	Text          string    `json:"text"`
	At            time.Time `json:"at"`
}

// Approved publishes the testimonial.
type Approved struct {
	StaffID string    `json:"staffId"`
	At      time.Time `json:"at"`
}

// Rejected keeps the testimonial off the site; the reason is shown to the author.
type Rejected struct {
	StaffID string    `json:"staffId"`
	Reason  string    `json:"reason"`
	At      time.Time `json:"at"`
}

func (Submitted) EventName() string { return TypeSubmitted }
func (Approved) EventName() string  { return TypeApproved }
func (Rejected) EventName() string  { return TypeRejected }

// Events returns a zero value of every event type of the aggregate.
func Events() []aggregate.Event { return []aggregate.Event{Submitted{}, Approved{}, Rejected{}} }

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every event type at its current schema version.
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

package broadcast

import (
	"time"

	"clearvest/domain/aggregate"
)

// StreamCategory names the streams of staff e-mails: "broadcast-<id>", one per send.
const StreamCategory = "broadcast"

// Event type names. They are stored with every event and must never change.
const (
	TypeStarted   = "broadcast.started"
	TypeCancelled = "broadcast.cancelled"
)

// Started records a send: who wrote it, to whom, what, and how many people it was queued for.
// For a composed message Body is the Markdown staff wrote; for an automated one Template names
// the product's message that was sent again, and Body is empty. The text is addressed to many
// and names no one, so nothing here is sealed.
type Started struct {
	AuthorID   string    `json:"authorId"`
	AuthorRole string    `json:"authorRole"`
	Audience   Audience  `json:"audience"`
	Template   string    `json:"template"`
	Language   string    `json:"language"`
	Subject    string    `json:"subject"`
	Body       string    `json:"body"`
	Recipients int       `json:"recipients"`
	At         time.Time `json:"at"`
}

// Cancelled records that staff stopped a send: Withdrawn messages were still waiting and will
// never go out.
type Cancelled struct {
	StaffID   string    `json:"staffId"`
	Withdrawn int       `json:"withdrawn"`
	At        time.Time `json:"at"`
}

func (Started) EventName() string   { return TypeStarted }
func (Cancelled) EventName() string { return TypeCancelled }

// Events returns a zero value of every broadcast event type.
func Events() []aggregate.Event { return []aggregate.Event{Started{}, Cancelled{}} }

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every broadcast event type at its current schema version (all 1).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

package support

import (
	"time"

	"clearvest/domain/aggregate"
)

// StreamCategory names the streams of support tickets: "ticket-<id>". Personal fields are
// sealed with the ticket's own key (the stream's id part), since a visitor who writes to
// support need not have an account.
const StreamCategory = "ticket"

// Event type names. They are stored with every event and must never change.
const (
	TypeOpened  = "support.ticket_opened"
	TypeReplied = "support.ticket_replied"
	TypeClosed  = "support.ticket_closed"
)

// Opened records a message sent with the contact form.
type Opened struct {
	Name    string    `json:"name" pii:"true"`
	Email   string    `json:"email" pii:"true"`
	Message string    `json:"message" pii:"true"`
	At      time.Time `json:"at"`
}

// Replied records staff's answer, which was e-mailed to the requester. The text answers a
// person's question, so it is sealed like the question.
type Replied struct {
	StaffID string    `json:"staffId"`
	Message string    `json:"message" pii:"true"`
	At      time.Time `json:"at"`
}

// Closed records that staff closed the ticket: nothing more is sent on it.
type Closed struct {
	StaffID string    `json:"staffId"`
	At      time.Time `json:"at"`
}

func (Opened) EventName() string  { return TypeOpened }
func (Replied) EventName() string { return TypeReplied }
func (Closed) EventName() string  { return TypeClosed }

// Events returns a zero value of every support event type.
func Events() []aggregate.Event { return []aggregate.Event{Opened{}, Replied{}, Closed{}} }

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every support event type at its current schema version (all 1).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

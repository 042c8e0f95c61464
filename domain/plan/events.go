package plan

import (
	"time"

	"clearvest/domain/aggregate"
)

// StreamCategory is the category of plan streams: a plan's events live in "plan-<planID>".
const StreamCategory = "plan"

// Event type names. They are stored with every event and must never change.
const (
	TypeCreated      = "plan.created"
	TypeTermsChanged = "plan.terms_changed"
	TypeActivated    = "plan.activated"
	TypeDeactivated  = "plan.deactivated"
)

// Created records a new plan: its name, its first terms (version 1) and whether it is offered.
type Created struct {
	PlanID string    `json:"planId"`
	Name   string    `json:"name"`
	Terms  Terms     `json:"terms"`
	Active bool      `json:"active"`
	At     time.Time `json:"at"`
	// Reason is the admin's reason, for a plan created in the staff console.
	Reason string `json:"reason,omitempty"`
}

// TermsChanged records new terms for the plan as version Version. They apply to investments made
// from now on; an investment keeps the version it was made with.
type TermsChanged struct {
	Version int       `json:"version"`
	Terms   Terms     `json:"terms"`
	At      time.Time `json:"at"`
	Reason  string    `json:"reason,omitempty"`
}

// Activated records that the plan is offered to investors again.
type Activated struct {
	At time.Time `json:"at"`
}

// Deactivated records that the plan is no longer offered (retired); investments already made keep
// their terms and run to their term.
type Deactivated struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

func (Created) EventName() string      { return TypeCreated }
func (TermsChanged) EventName() string { return TypeTermsChanged }
func (Activated) EventName() string    { return TypeActivated }
func (Deactivated) EventName() string  { return TypeDeactivated }

// Events returns a zero value of every plan event type.
func Events() []aggregate.Event {
	return []aggregate.Event{Created{}, TermsChanged{}, Activated{}, Deactivated{}}
}

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every plan event type at its current schema version (all 1 so far).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

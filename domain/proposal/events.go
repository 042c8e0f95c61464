package proposal

import (
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/money"
)

// StreamCategory names the streams of proposals: one stream per subject,
// "proposal-<kind>.<subject id>" (for example "proposal-deposit_confirmation.DEP-7K3Q-9XM2"), so
// that the store's optimistic concurrency on that one stream is what keeps a second proposal for
// the same thing from opening while one waits.
const StreamCategory = "proposal"

// Event type names. They are stored with every event and must never change.
const (
	TypeOpened   = "proposal.opened"
	TypeApproved = "proposal.approved"
	TypeRejected = "proposal.rejected"
)

// Opened records that a staff member asked for a decision that needs a second person. Params
// hold what the decision will do once approved (the amount received, a payout's details, a
// role), so that the approver approves exactly what was proposed.
type Opened struct {
	ProposalID string            `json:"proposalId"`
	Kind       Kind              `json:"kind"`
	SubjectID  string            `json:"subjectId"`
	UserID     string            `json:"userId"` // whose money or account it concerns
	Amount     money.Money       `json:"amount"` // zero for decisions that move no money
	Why        string            `json:"why"`    // which rule asked for a second person
	Params     map[string]string `json:"params,omitempty"`
	ProposerID string            `json:"proposerId"`
	Reason     string            `json:"reason"`
	At         time.Time         `json:"at"`
}

// Approved records the second person's approval; the decision itself is appended in the same
// transaction, so one never exists without the other.
type Approved struct {
	ProposalID string    `json:"proposalId"`
	StaffID    string    `json:"staffId"`
	Reason     string    `json:"reason,omitempty"`
	At         time.Time `json:"at"`
}

// Rejected records that the second person refused the proposal: nothing was decided, and the
// subject is free for a new proposal or a decision below the thresholds.
type Rejected struct {
	ProposalID string    `json:"proposalId"`
	StaffID    string    `json:"staffId"`
	Reason     string    `json:"reason"`
	At         time.Time `json:"at"`
}

func (Opened) EventName() string   { return TypeOpened }
func (Approved) EventName() string { return TypeApproved }
func (Rejected) EventName() string { return TypeRejected }

// Events returns a zero value of every proposal event type.
func Events() []aggregate.Event { return []aggregate.Event{Opened{}, Approved{}, Rejected{}} }

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every proposal event type at its current schema version (all 1).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

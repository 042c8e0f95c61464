// Package proposal is the four-eyes rule: a decision that no one person may take alone is first
// a proposal, which a second, different staff member approves or rejects.
//
// Rules (docs/security.md, "Separation of duties"):
//   - A proposal names its kind, its subject, whose account it concerns, what it will do
//     (its parameters), why a second person is needed, and its proposer's reason; the reason is
//     required.
//   - At most one proposal per subject is open at a time: a second one is a Conflict until the
//     first is decided.
//   - Only an open proposal is decided, once: approved or rejected, never both.
//   - The proposer never approves or rejects their own proposal (Forbidden): a second person
//     decides. A rejection needs a reason; an approval may give one.
//   - Every step records its staff member and time.
//
// Which decisions need a proposal, and who may approve, are the callers' rules (thresholds in
// the money service, roles in the API policy); this package keeps the proposal itself honest.
package proposal

import (
	"strings"
	"time"
	"unicode/utf8"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
)

// Kind is what a proposal would decide. The strings are stored and sent by the API.
type Kind string

const (
	KindDepositConfirmation Kind = "deposit_confirmation"
	KindWithdrawalApproval  Kind = "withdrawal_approval"
	KindAdminGrant          Kind = "admin_grant"
	KindAccountClosure      Kind = "account_closure"
	KindBalanceCorrection   Kind = "balance_correction"
)

// Kinds lists every kind, in the order staff pages show them.
var Kinds = []Kind{KindDepositConfirmation, KindWithdrawalApproval, KindBalanceCorrection, KindAdminGrant, KindAccountClosure}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	for _, known := range Kinds {
		if k == known {
			return true
		}
	}
	return false
}

// Status is where a proposal stands. The strings are the API's.
type Status string

const (
	StatusPending  Status = "pending"
	StatusApproved Status = "approved"
	StatusRejected Status = "rejected"
)

// MaxReasonRunes bounds a reason, like every free text staff write.
const MaxReasonRunes = 500

// Errors. Their messages are shown to staff as they are.
var (
	ErrAlreadyOpen     = domainerr.New(domainerr.Conflict, "A proposal for this is already waiting for a second staff member.")
	ErrNotFound        = domainerr.New(domainerr.NotFound, "Proposal not found")
	ErrDecided         = domainerr.New(domainerr.Conflict, "This proposal was already decided.")
	ErrOwnProposal     = domainerr.New(domainerr.Forbidden, "You made this proposal: a second staff member must decide it.")
	ErrReasonRequired  = fieldError("reason", "Please enter a reason")
	ErrReasonTooLong   = fieldError("reason", "Reason must be at most 500 characters")
	ErrInvalidProposal = domainerr.New(domainerr.Invalid, "Invalid proposal")
)

func fieldError(field, message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = field
	return e
}

// Stream is the stream id part of a subject's proposals.
func Stream(kind Kind, subjectID string) string { return string(kind) + "." + subjectID }

// Proposal is one proposal as its stream tells it.
type Proposal struct {
	Opened
	Status         Status
	DeciderID      string
	DecisionReason string
	DecidedAt      time.Time
}

// Subject is the aggregate of the proposals about one thing (a deposit, a withdrawal, a user's
// role, an account): the place where "one open proposal at a time" is decided.
type Subject struct {
	aggregate.Root
	proposals []Proposal
}

// New returns an empty subject, ready to load or to take a first proposal.
func New() *Subject { return &Subject{} }

// Open records a new proposal. The caller fills ProposalID, Kind, SubjectID, UserID, Amount,
// Why, Params, ProposerID and Reason; At is set here.
func (s *Subject) Open(p Opened, at time.Time) error {
	if _, open := s.Pending(); open {
		return ErrAlreadyOpen
	}
	if strings.TrimSpace(p.ProposalID) == "" || !p.Kind.Valid() || strings.TrimSpace(p.SubjectID) == "" ||
		strings.TrimSpace(p.ProposerID) == "" || at.IsZero() || p.Amount.IsNegative() {
		return ErrInvalidProposal
	}
	reason, err := requiredReason(p.Reason)
	if err != nil {
		return err
	}
	p.Reason, p.At = reason, at.UTC()
	aggregate.Raise(s, p)
	return nil
}

// Approve records the approval of the open proposal id by staffID, who must not be its proposer.
// The caller appends the decision itself in the same transaction.
func (s *Subject) Approve(id, staffID, reason string, at time.Time) error {
	if _, err := s.decidable(id, staffID); err != nil {
		return err
	}
	reason = strings.TrimSpace(reason)
	if utf8.RuneCountInString(reason) > MaxReasonRunes {
		return ErrReasonTooLong
	}
	aggregate.Raise(s, Approved{ProposalID: id, StaffID: staffID, Reason: reason, At: at.UTC()})
	return nil
}

// Reject records that staffID, who must not be the proposer, refused the open proposal id.
func (s *Subject) Reject(id, staffID, reason string, at time.Time) error {
	if _, err := s.decidable(id, staffID); err != nil {
		return err
	}
	reason, err := requiredReason(reason)
	if err != nil {
		return err
	}
	aggregate.Raise(s, Rejected{ProposalID: id, StaffID: staffID, Reason: reason, At: at.UTC()})
	return nil
}

func (s *Subject) decidable(id, staffID string) (Proposal, error) {
	p, ok := s.Proposal(id)
	switch {
	case !ok:
		return Proposal{}, ErrNotFound
	case p.Status != StatusPending:
		return Proposal{}, ErrDecided
	case strings.TrimSpace(staffID) == "":
		return Proposal{}, ErrInvalidProposal
	case staffID == p.ProposerID:
		return Proposal{}, ErrOwnProposal
	}
	return p, nil
}

func requiredReason(r string) (string, error) {
	r = strings.TrimSpace(r)
	if r == "" {
		return "", ErrReasonRequired
	}
	if utf8.RuneCountInString(r) > MaxReasonRunes {
		return "", ErrReasonTooLong
	}
	return r, nil
}

// Apply implements aggregate.Aggregate.
func (s *Subject) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case Opened:
		s.proposals = append(s.proposals, Proposal{Opened: e, Status: StatusPending})
	case Approved:
		s.decide(e.ProposalID, StatusApproved, e.StaffID, e.Reason, e.At)
	case Rejected:
		s.decide(e.ProposalID, StatusRejected, e.StaffID, e.Reason, e.At)
	}
}

func (s *Subject) decide(id string, st Status, staffID, reason string, at time.Time) {
	for i := range s.proposals {
		if s.proposals[i].ProposalID == id {
			p := &s.proposals[i]
			p.Status, p.DeciderID, p.DecisionReason, p.DecidedAt = st, staffID, reason, at
		}
	}
}

// Proposal returns the proposal with this id.
func (s *Subject) Proposal(id string) (Proposal, bool) {
	for _, p := range s.proposals {
		if p.ProposalID == id {
			return p, true
		}
	}
	return Proposal{}, false
}

// Pending returns the proposal waiting for a second person, if any.
func (s *Subject) Pending() (Proposal, bool) {
	for _, p := range s.proposals {
		if p.Status == StatusPending {
			return p, true
		}
	}
	return Proposal{}, false
}

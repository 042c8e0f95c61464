// Package plan is the catalogue of savings plans. Plans are data, not code: each plan is a stream
// ("plan-<id>") holding its name and its terms (amount range, term in days, rate for the term),
// which are versioned. Changing the terms makes a new version that applies to investments made
// from then on; an investment keeps the version it was made with.
//
// Rules (docs/plans.md):
//   - A name has 1 to 40 characters (spaces around it are dropped, runs of spaces inside it
//     become one), no control characters. Names are unique in the catalogue, ignoring case;
//     that is checked by the application, which sees the whole catalogue (app/plans).
//   - 0 < min ≤ max; a term of 1 to 3650 days; 0 < rate for the term < 1, with at most 8
//     decimals.
//   - The annualised rate shown beside the term rate is simple: rate × 365 / termDays.
//   - A plan is created once. Changing the terms to what they already are, or activating an
//     active plan, changes nothing and raises nothing.
package plan

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
)

// MaxNameRunes bounds a plan's name.
const MaxNameRunes = 40

// Errors about plans. Their messages are shown to the user as they are.
var (
	ErrNameLength  = domainerr.New(domainerr.Invalid, "The plan name must be 1 to 40 characters.")
	ErrNameInvalid = domainerr.New(domainerr.Invalid, "The plan name cannot contain control characters.")
	ErrInvalidID   = domainerr.New(domainerr.Invalid, "Invalid plan id")
	ErrExists      = domainerr.New(domainerr.Conflict, "This plan exists already.")
	ErrNotFound    = domainerr.New(domainerr.NotFound, "Plan not found")
	ErrRetired     = domainerr.New(domainerr.RuleBroken, "This plan is retired.")
	ErrSameTerms   = domainerr.New(domainerr.RuleBroken, "These are the plan's current terms.")
)

// NormalizeName is the name as it is kept: spaces around it dropped, runs of white space inside
// it made one space.
func NormalizeName(name string) string {
	return strings.Join(strings.Fields(name), " ")
}

// NameKey is what two names must differ in to be different plans: the normalised name, ignoring
// case ("Basic" and " basic " are one plan).
func NameKey(name string) string {
	return strings.ToLower(NormalizeName(name))
}

// ValidateName checks a (normalised) name.
func ValidateName(name string) error {
	if !utf8.ValidString(name) {
		return ErrNameInvalid
	}
	if n := utf8.RuneCountInString(name); n < 1 || n > MaxNameRunes {
		return ErrNameLength
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return ErrNameInvalid
	}
	return nil
}

// Plan is the aggregate. Create it with New and load the plan's stream into it.
type Plan struct {
	aggregate.Root
	id      string
	name    string
	created bool
	active  bool
	// versions holds every version of the terms; version n is versions[n-1].
	versions  []Terms
	createdAt time.Time
	changedAt time.Time
}

// New returns an empty plan, ready to load history into.
func New() *Plan { return &Plan{} }

// Create starts a plan with its first terms (version 1). name is normalised first.
func (p *Plan) Create(id, name string, terms Terms, active bool, at time.Time) error {
	return p.CreateBecause(id, name, terms, active, "", at)
}

// CreateBecause is Create with the admin's reason recorded in the event.
func (p *Plan) CreateBecause(id, name string, terms Terms, active bool, reason string, at time.Time) error {
	if p.created {
		return ErrExists
	}
	if strings.TrimSpace(id) == "" || strings.ContainsFunc(id, unicode.IsSpace) {
		return ErrInvalidID
	}
	name = NormalizeName(name)
	if err := ValidateName(name); err != nil {
		return err
	}
	if err := terms.Validate(); err != nil {
		return err
	}
	aggregate.Raise(p, Created{PlanID: id, Name: name, Terms: terms, Active: active, At: at.UTC(), Reason: reason})
	return nil
}

// ChangeTerms makes terms the plan's next version. Terms equal to the current ones raise nothing.
func (p *Plan) ChangeTerms(terms Terms, at time.Time) error {
	if !p.created {
		return ErrNotFound
	}
	if err := terms.Validate(); err != nil {
		return err
	}
	if terms.Equal(p.Terms()) {
		return nil
	}
	aggregate.Raise(p, TermsChanged{Version: p.CurrentVersion() + 1, Terms: terms, At: at.UTC()})
	return nil
}

// SetActive offers the plan to investors (true) or withdraws it (false). Setting the state it
// already has raises nothing.
// NewVersion records terms as the plan's next version, with the admin's reason. Unlike
// ChangeTerms it refuses the current terms (ErrSameTerms) and a retired plan (ErrRetired).
func (p *Plan) NewVersion(terms Terms, reason string, at time.Time) error {
	if !p.created {
		return ErrNotFound
	}
	if !p.active {
		return ErrRetired
	}
	if err := terms.Validate(); err != nil {
		return err
	}
	if terms.Equal(p.Terms()) {
		return ErrSameTerms
	}
	aggregate.Raise(p, TermsChanged{Version: p.CurrentVersion() + 1, Terms: terms, At: at.UTC(), Reason: reason})
	return nil
}

// Retire stops the plan taking new investments, with the admin's reason; investments already
// made run to their term. A retired plan is ErrRetired.
func (p *Plan) Retire(reason string, at time.Time) error {
	if !p.created {
		return ErrNotFound
	}
	if !p.active {
		return ErrRetired
	}
	aggregate.Raise(p, Deactivated{At: at.UTC(), Reason: reason})
	return nil
}

func (p *Plan) SetActive(active bool, at time.Time) error {
	if !p.created {
		return ErrNotFound
	}
	switch {
	case active == p.active:
		return nil
	case active:
		aggregate.Raise(p, Activated{At: at.UTC()})
	default:
		aggregate.Raise(p, Deactivated{At: at.UTC()})
	}
	return nil
}

// Apply implements aggregate.Aggregate.
func (p *Plan) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case Created:
		p.id, p.name, p.created, p.active = e.PlanID, e.Name, true, e.Active
		p.versions = []Terms{e.Terms}
		p.createdAt, p.changedAt = e.At, e.At
	case TermsChanged:
		p.versions = append(p.versions, e.Terms)
		p.changedAt = e.At
	case Activated:
		p.active, p.changedAt = true, e.At
	case Deactivated:
		p.active, p.changedAt = false, e.At
	}
}

// ID is the plan's id ("" before it is created).
func (p *Plan) ID() string { return p.id }

// Name is the plan's name.
func (p *Plan) Name() string { return p.name }

// Created reports whether the plan exists.
func (p *Plan) Created() bool { return p.created }

// Active reports whether the plan is offered to new investments.
func (p *Plan) Active() bool { return p.active }

// CurrentVersion is the version of the current terms (1 for a new plan, 0 before it exists).
func (p *Plan) CurrentVersion() int { return len(p.versions) }

// Terms are the current terms (zero before the plan exists).
func (p *Plan) Terms() Terms {
	if len(p.versions) == 0 {
		return Terms{}
	}
	return p.versions[len(p.versions)-1]
}

// TermsAt returns the terms of a version, as an investment made under it keeps them.
func (p *Plan) TermsAt(version int) (Terms, bool) {
	if version < 1 || version > len(p.versions) {
		return Terms{}, false
	}
	return p.versions[version-1], true
}

// CreatedAt is when the plan was created; ChangedAt when its terms or state last changed.
func (p *Plan) CreatedAt() time.Time { return p.createdAt }

// ChangedAt is when the plan last changed.
func (p *Plan) ChangedAt() time.Time { return p.changedAt }

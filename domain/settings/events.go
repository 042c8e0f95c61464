package settings

import (
	"time"

	"clearvest/domain/aggregate"
)

// Event type names. They are stored with every event and must never change.
const (
	TypeWithdrawalFeeChanged    = "settings.withdrawal_fee_changed"
	TypeReferralChanged         = "settings.referral_changed"
	TypeApprovalsChanged        = "settings.approvals_changed"
	TypeDepositAddressesChanged = "settings.deposit_addresses_changed"
	TypeSupportChanged          = "settings.support_changed"
)

// Record is what every change of the settings carries: why, and when. Embedded, its fields
// sit beside the section's own in the event's JSON.
type Record struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Recorded returns the change's reason and time, whichever section it changed.
func (r Record) Recorded() Record { return r }

// WithdrawalFeeChanged records a new withdrawal fee schedule, in force for quotes and requests
// from then on; a withdrawal already requested keeps the fee it was quoted.
type WithdrawalFeeChanged struct {
	WithdrawalFee
	Record
}

// ReferralChanged records a new referral bonus and the least deposit that earns it.
type ReferralChanged struct {
	Referral
	Record
}

// ApprovalsChanged records new thresholds of the four-eyes rule.
type ApprovalsChanged struct {
	Approvals
	Record
}

// DepositAddressesChanged records the whole new list of deposit addresses.
type DepositAddressesChanged struct {
	Addresses []Address `json:"addresses"`
	Record
}

// SupportChanged records a new support contact.
type SupportChanged struct {
	Support
	Record
}

func (WithdrawalFeeChanged) EventName() string    { return TypeWithdrawalFeeChanged }
func (ReferralChanged) EventName() string         { return TypeReferralChanged }
func (ApprovalsChanged) EventName() string        { return TypeApprovalsChanged }
func (DepositAddressesChanged) EventName() string { return TypeDepositAddressesChanged }
func (SupportChanged) EventName() string          { return TypeSupportChanged }

// Events returns a zero value of every settings event type.
func Events() []aggregate.Event {
	return []aggregate.Event{WithdrawalFeeChanged{}, ReferralChanged{}, ApprovalsChanged{}, DepositAddressesChanged{}, SupportChanged{}}
}

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every settings event type at its current schema version (all 1).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

package account

import (
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/money"
)

// StreamCategory is the category of money streams: a user's money lives in "account-<userID>",
// a stream of its own beside the user's identity stream, so that money commands never wait on
// profile or sign-in changes and the other way round.
const StreamCategory = "account"

// Event type names. They are stored with every event and must never change.
const (
	TypeDepositRequested      = "account.deposit_requested"
	TypeDepositConfirmed      = "account.deposit_confirmed"
	TypeDepositRejected       = "account.deposit_rejected"
	TypeDepositLinkedToChain  = "account.deposit_linked_to_chain"
	TypeInvestmentRequested   = "account.investment_requested"
	TypeInvestmentActivated   = "account.investment_activated"
	TypeInvestmentRejected    = "account.investment_rejected"
	TypeInvestmentMatured     = "account.investment_matured"
	TypeInstructionSet        = "account.investment_instruction_set"
	TypeInvestmentRedeemed    = "account.investment_redeemed"
	TypeInvestmentReinvested  = "account.investment_reinvested"
	TypeWithdrawalRequested   = "account.withdrawal_requested"
	TypeWithdrawalApproved    = "account.withdrawal_approved"
	TypeWithdrawalRejected    = "account.withdrawal_rejected"
	TypeFeeWaived             = "account.fee_waived"
	TypeReferralBonusCredited = "account.referral_bonus_credited"
	TypeAdjustmentPosted      = "account.adjustment_posted"
	TypeFeeExemptionSet       = "account.fee_exemption_set"
)

// Every decision event carries the amounts it moves, so that a reader (the double-entry view, a
// read model) needs no earlier event to know what changed.

// DepositRequested records that the user says they sent crypto worth Amount. Nothing moves until
// staff confirm what actually arrived.
type DepositRequested struct {
	DepositID     string      `json:"depositId"`
	TransactionID string      `json:"transactionId"` // human-friendly reference shown to the user
	Amount        money.Money `json:"amount"`        // USD the user expects to be credited
	Asset         string      `json:"asset"`         // e.g. "USDT"
	Network       string      `json:"network"`       // e.g. "TRC20"
	OnChainAmount string      `json:"onChainAmount"` // decimal in the asset's own precision
	USDRate       string      `json:"usdRate"`       // USD per unit of the asset, as applied
	TxHash        string      `json:"txHash,omitempty"`
	// Address is where the user was told to send the asset (absent in events written before
	// deposits had a service).
	Address string `json:"address,omitempty"`
	// Source is SourceChain for a deposit the chain watcher saw arrive; empty for one an
	// investor declared.
	Source string    `json:"source,omitempty"`
	At     time.Time `json:"at"`
}

// DepositConfirmed credits Received, what actually arrived in USD (it may differ from the
// amount requested), to the available balance.
type DepositConfirmed struct {
	DepositID string      `json:"depositId"`
	Received  money.Money `json:"received"`
	Notes     string      `json:"notes,omitempty"`
	StaffID   string      `json:"staffId"`
	// ProposalID and ApprovedBy name the four-eyes proposal and its second staff member when
	// the confirmation needed one; StaffID is then the proposer.
	ProposalID string `json:"proposalId,omitempty"`
	ApprovedBy string `json:"approvedBy,omitempty"`
	// Source is SourceChain when the chain watcher credited the deposit by itself (StaffID is
	// then empty): Received is the on-chain amount at Rate (USD per unit, as of RateAt), once
	// the transfer had Confirmations blocks on it.
	Source        string     `json:"source,omitempty"`
	Rate          string     `json:"rate,omitempty"`
	RateAt        *time.Time `json:"rateAt,omitempty"`
	Confirmations uint64     `json:"confirmations,omitempty"`
	At            time.Time  `json:"at"`
}

// DepositRejected records that nothing arrived, or not what was claimed; nothing is credited.
type DepositRejected struct {
	DepositID string `json:"depositId"`
	Notes     string `json:"notes,omitempty"`
	StaffID   string `json:"staffId"`
	// Source is SourceChain when the chain watcher withdrew the deposit (its block left the
	// chain before it was confirmed); StaffID is then empty.
	Source string    `json:"source,omitempty"`
	At     time.Time `json:"at"`
}

// DepositLinkedToChain records that the chain watcher saw the transfer an investor had declared
// by hand (same network and transaction hash) arrive at their own address. Still pending, the
// deposit becomes a chain deposit: the watcher credits it at its confirmations, or rejects it if
// the transfer leaves the chain, and staff no longer decide it. Already confirmed by staff, it
// stays as they decided and the transfer is not credited again. Nothing moves.
type DepositLinkedToChain struct {
	DepositID     string `json:"depositId"`
	TransactionID string `json:"transactionId"` // the declared deposit's reference
	// ChainDepositID is the id the watcher derived for the transfer's deposit; it names this
	// deposit from now on, so a second sighting records nothing new.
	ChainDepositID string    `json:"chainDepositId"`
	TxHash         string    `json:"txHash"`
	Address        string    `json:"address"`
	Asset          string    `json:"asset"`
	OnChainAmount  string    `json:"onChainAmount"` // what arrived, in the asset's own precision
	At             time.Time `json:"at"`
}

// Terms are a plan's terms as they were when the investment was requested. The investment keeps
// them whatever later versions of the plan say.
type Terms struct {
	PlanID      string      `json:"planId"`
	PlanVersion int         `json:"planVersion"`
	PlanName    string      `json:"planName"`
	TermDays    int         `json:"termDays"`
	TermRate    string      `json:"termRate"` // the return for the whole term, as a fraction: "0.015" is 1.5 %
	Min         money.Money `json:"min"`
	Max         money.Money `json:"max"`
}

// InvestmentRequested holds Amount from the available balance until staff decide.
type InvestmentRequested struct {
	InvestmentID string      `json:"investmentId"`
	Terms        Terms       `json:"terms"`
	Amount       money.Money `json:"amount"`
	At           time.Time   `json:"at"`
}

// InvestmentActivated settles the hold into the invested balance and fixes the return:
// Amount × the term rate, half-even to the cent.
type InvestmentActivated struct {
	InvestmentID string      `json:"investmentId"`
	Amount       money.Money `json:"amount"`
	Return       money.Money `json:"return"`
	Start        time.Time   `json:"start"`
	End          time.Time   `json:"end"`
	StaffID      string      `json:"staffId"`
}

// InvestmentRejected releases the hold back to the available balance.
type InvestmentRejected struct {
	InvestmentID string      `json:"investmentId"`
	Amount       money.Money `json:"amount"`
	Reason       string      `json:"reason"`
	StaffID      string      `json:"staffId"`
	At           time.Time   `json:"at"`
}

// InvestmentMatured pays the principal and the return fixed at activation into the available
// balance.
type InvestmentMatured struct {
	InvestmentID string      `json:"investmentId"`
	Principal    money.Money `json:"principal"`
	Return       money.Money `json:"return"`
	At           time.Time   `json:"at"`
	// ReinvestRefused says, in words for the investor, why an investment with the reinvest
	// instruction was paid out instead (a reinvestment breaks a rule a new investment must
	// pass); empty otherwise.
	ReinvestRefused string `json:"reinvestRefused,omitempty"`
}

// InvestmentInstructionSet records what the investor wants done at maturity: pay out to the
// wallet (the default) or reinvest into the same terms.
type InvestmentInstructionSet struct {
	InvestmentID string      `json:"investmentId"`
	Instruction  Instruction `json:"instruction"`
	At           time.Time   `json:"at"`
}

// InvestmentRedeemed closes an active investment before its end at the investor's request: the
// principal goes back to the available balance and the return fixed at activation is forfeited.
type InvestmentRedeemed struct {
	InvestmentID string      `json:"investmentId"`
	Principal    money.Money `json:"principal"`
	Forfeited    money.Money `json:"forfeited"`
	At           time.Time   `json:"at"`
}

// InvestmentReinvested follows the InvestmentMatured of an investment whose instruction was
// reinvest: Amount (its principal and return) moves from the available balance straight into
// a new, already active investment, NewInvestmentID, under the same terms. Its term starts when
// the old one ended, so a reinvestment loses no days however late maturity runs.
type InvestmentReinvested struct {
	InvestmentID    string      `json:"investmentId"`
	NewInvestmentID string      `json:"newInvestmentId"`
	Terms           Terms       `json:"terms"`
	Amount          money.Money `json:"amount"`
	Return          money.Money `json:"return"`
	Start           time.Time   `json:"start"`
	End             time.Time   `json:"end"`
}

// WithdrawalRequested holds Amount from the available balance. The user will receive
// Amount − Fee; Fee comes from the published schedule and is charged only when the withdrawal
// is approved.
type WithdrawalRequested struct {
	WithdrawalID string      `json:"withdrawalId"`
	Amount       money.Money `json:"amount"`
	Fee          money.Money `json:"fee"`
	Address      string      `json:"address"`
	Network      string      `json:"network"`
	Asset        string      `json:"asset"`
	At           time.Time   `json:"at"`
}

// WithdrawalApproved settles the hold: Amount − Fee was paid out in transaction TxHash and Fee
// was charged. OnChainAmount and USDRate, when known, record the payout in the asset.
type WithdrawalApproved struct {
	WithdrawalID  string      `json:"withdrawalId"`
	Amount        money.Money `json:"amount"`
	Fee           money.Money `json:"fee"`
	TxHash        string      `json:"txHash"`
	OnChainAmount string      `json:"onChainAmount,omitempty"`
	USDRate       string      `json:"usdRate,omitempty"`
	StaffID       string      `json:"staffId"`
	// ProposalID and ApprovedBy name the four-eyes proposal and its second staff member, who
	// paid it out, when the withdrawal needed one; StaffID is then the proposer.
	ProposalID string    `json:"proposalId,omitempty"`
	ApprovedBy string    `json:"approvedBy,omitempty"`
	At         time.Time `json:"at"`
}

// WithdrawalRejected releases the hold back to the available balance; no fee is charged.
type WithdrawalRejected struct {
	WithdrawalID string      `json:"withdrawalId"`
	Amount       money.Money `json:"amount"`
	Reason       string      `json:"reason"`
	StaffID      string      `json:"staffId"`
	At           time.Time   `json:"at"`
}

// FeeWaived refunds Amount of the fee charged on an approved withdrawal to the available
// balance.
type FeeWaived struct {
	WithdrawalID string      `json:"withdrawalId"`
	Amount       money.Money `json:"amount"`
	Reason       string      `json:"reason"`
	StaffID      string      `json:"staffId"`
	At           time.Time   `json:"at"`
}

// ReferralBonusCredited credits a bonus for a user this user referred, at most once per
// referred user.
type ReferralBonusCredited struct {
	ReferredUserID string      `json:"referredUserId"`
	Amount         money.Money `json:"amount"`
	At             time.Time   `json:"at"`
}

// AdjustmentPosted is a correction by staff: a signed amount added to the available balance,
// with a category and a reason the user sees.
type AdjustmentPosted struct {
	AdjustmentID string      `json:"adjustmentId"`
	Amount       money.Money `json:"amount"`
	Category     Category    `json:"category"`
	Reason       string      `json:"reason"`
	StaffID      string      `json:"staffId"`
	// ProposalID and ApprovedBy name the four-eyes proposal and its second staff member when
	// the correction needed one.
	ProposalID string    `json:"proposalId,omitempty"`
	ApprovedBy string    `json:"approvedBy,omitempty"`
	At         time.Time `json:"at"`
}

// FeeExemptionSet turns the account's withdrawal fee exemption on (Exempt) or off: while it is
// on, withdrawals are charged no fee. It moves no money.
type FeeExemptionSet struct {
	Exempt  bool      `json:"exempt"`
	Reason  string    `json:"reason"`
	StaffID string    `json:"staffId"`
	At      time.Time `json:"at"`
}

func (DepositRequested) EventName() string         { return TypeDepositRequested }
func (DepositConfirmed) EventName() string         { return TypeDepositConfirmed }
func (DepositRejected) EventName() string          { return TypeDepositRejected }
func (DepositLinkedToChain) EventName() string     { return TypeDepositLinkedToChain }
func (InvestmentRequested) EventName() string      { return TypeInvestmentRequested }
func (InvestmentActivated) EventName() string      { return TypeInvestmentActivated }
func (InvestmentRejected) EventName() string       { return TypeInvestmentRejected }
func (InvestmentMatured) EventName() string        { return TypeInvestmentMatured }
func (InvestmentInstructionSet) EventName() string { return TypeInstructionSet }
func (InvestmentRedeemed) EventName() string       { return TypeInvestmentRedeemed }
func (InvestmentReinvested) EventName() string     { return TypeInvestmentReinvested }
func (WithdrawalRequested) EventName() string      { return TypeWithdrawalRequested }
func (WithdrawalApproved) EventName() string       { return TypeWithdrawalApproved }
func (WithdrawalRejected) EventName() string       { return TypeWithdrawalRejected }
func (FeeWaived) EventName() string                { return TypeFeeWaived }
func (ReferralBonusCredited) EventName() string    { return TypeReferralBonusCredited }
func (AdjustmentPosted) EventName() string         { return TypeAdjustmentPosted }
func (FeeExemptionSet) EventName() string          { return TypeFeeExemptionSet }

// Events returns a zero value of every money event type.
func Events() []aggregate.Event {
	return []aggregate.Event{
		DepositRequested{}, DepositConfirmed{}, DepositRejected{},
		InvestmentRequested{}, InvestmentActivated{}, InvestmentRejected{}, InvestmentMatured{},
		InvestmentInstructionSet{}, InvestmentRedeemed{}, InvestmentReinvested{},
		WithdrawalRequested{}, WithdrawalApproved{}, WithdrawalRejected{},
		FeeWaived{}, ReferralBonusCredited{}, AdjustmentPosted{}, FeeExemptionSet{},
		DepositLinkedToChain{},
	}
}

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every money event type at its current schema version (all 1 so far).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

package account

import (
	"clearvest/domain/domainerr"
	"clearvest/domain/payout"
	"clearvest/domain/textcheck"
)

func fieldError(kind domainerr.Kind, field, message string) *domainerr.Error {
	e := domainerr.New(kind, message)
	e.Field = field
	return e
}

// Errors. Their messages are shown to the user (or the staff member) as they are. Several are
// refined with WithMessage to name the amounts involved; errors.Is still matches the sentinel.
var (
	// ErrInsufficientBalance refuses a hold or a correction the available balance cannot cover.
	ErrInsufficientBalance = fieldError(domainerr.RuleBroken, "amount", "Insufficient balance")

	ErrInvalidID      = fieldError(domainerr.Invalid, "id", "Invalid request id")
	ErrDuplicateID    = domainerr.New(domainerr.Conflict, "A request with this id was already made")
	ErrInvalidStaffID = fieldError(domainerr.Invalid, "staffId", "Invalid staff id")
	ErrOwnAccount     = domainerr.New(domainerr.RuleBroken, "You cannot decide or correct money on your own account")
	ErrSamePerson     = domainerr.New(domainerr.Forbidden, "A second staff member must approve this decision")

	ErrDepositNotFound = domainerr.New(domainerr.NotFound, "Deposit not found")
	ErrDepositDecided  = domainerr.New(domainerr.Conflict, "This deposit was already decided")
	// ErrChainDeposit refuses a staff decision on a deposit the chain watcher decides
	// (docs/chain.md, "Declared and detected deposits").
	ErrChainDeposit = domainerr.New(domainerr.Conflict,
		"This deposit is credited by the network once it has its confirmations; it cannot be confirmed or rejected by hand.")
	ErrInvalidTransaction   = fieldError(domainerr.Invalid, "transactionId", "Transaction ID is missing!")
	ErrDuplicateTransaction = fieldError(domainerr.Conflict, "transactionId", "A deposit with this transaction ID already exists")
	ErrInvalidAsset         = fieldError(domainerr.Invalid, "asset", "Please select an asset")
	ErrInvalidNetwork       = fieldError(domainerr.Invalid, "network", "Please select a network")
	ErrInvalidOnChain       = fieldError(domainerr.Invalid, "onChainAmount", "Please enter a valid amount of the asset")
	ErrInvalidRate          = fieldError(domainerr.Invalid, "usdRate", "Invalid exchange rate")
	// ErrInvalidTxHash is payout's: a hash that is not well-formed for its network (every error
	// of payout.CanonicalTxHash matches it).
	ErrInvalidTxHash  = payout.ErrInvalidTxHash
	ErrInvalidAddress = fieldError(domainerr.Invalid, "address", "Invalid deposit address")
	ErrNotesTooLong   = fieldError(domainerr.Invalid, "notes", "Notes must be at most 500 characters")
	// A rejected deposit is money the investor believes they sent: they are owed the reason.
	ErrRejectReasonRequired = fieldError(domainerr.Invalid, "notes", "Please give the reason for rejecting this deposit. The investor is shown it.")

	ErrInvestmentNotFound = domainerr.New(domainerr.NotFound, "Investment not found")
	ErrInvestmentDecided  = domainerr.New(domainerr.Conflict, "This investment was already decided")
	ErrInvalidTerms       = domainerr.New(domainerr.Invalid, "Please select an investment plan.")
	ErrOutOfRange         = fieldError(domainerr.RuleBroken, "amount", "Amount is outside this plan's limits")
	ErrNotActive          = domainerr.New(domainerr.Conflict, "This investment is not active")
	ErrNotDue             = domainerr.New(domainerr.RuleBroken, "This investment has not reached its end date")
	ErrInvestmentEnded    = domainerr.New(domainerr.Conflict, "This investment has already ended")
	ErrInvalidInstruction = fieldError(domainerr.Invalid, "instruction", "Please choose what happens at maturity: pay out or reinvest")
	ErrPastEnd            = domainerr.New(domainerr.RuleBroken, "This investment has reached its end date: it pays out in full at maturity")

	ErrWithdrawalNotFound = domainerr.New(domainerr.NotFound, "Withdrawal not found")
	ErrWithdrawalDecided  = domainerr.New(domainerr.Conflict, "This withdrawal was already decided")
	ErrFeeNegative        = fieldError(domainerr.Invalid, "fee", "The fee cannot be negative")
	ErrFeeTooHigh         = fieldError(domainerr.RuleBroken, "amount", "The amount must be more than the withdrawal fee")
	ErrPayoutTxRequired   = fieldError(domainerr.Invalid, "txHash", "Please enter the payout transaction hash")

	ErrNotApproved      = domainerr.New(domainerr.Conflict, "Only the fee of an approved withdrawal can be waived")
	ErrNoFeeToWaive     = domainerr.New(domainerr.RuleBroken, "There is no fee left to waive on this withdrawal")
	ErrWaiverTooLarge   = fieldError(domainerr.RuleBroken, "amount", "The waiver cannot be more than the fee charged")
	ErrReasonRequired   = fieldError(domainerr.Invalid, "reason", "Please enter a reason")
	ErrReasonTooLong    = fieldError(domainerr.Invalid, "reason", "Reason must be at most 500 characters")
	ErrReasonInvisible  = textcheck.Refusal("reason", "Reason")
	ErrNotesInvisible   = textcheck.Refusal("notes", "Notes")
	ErrInvalidReferred  = fieldError(domainerr.Invalid, "referredUserId", "Invalid referred user id")
	ErrSelfReferral     = fieldError(domainerr.RuleBroken, "referredUserId", "A user cannot earn a bonus for referring themselves")
	ErrReferralCredited = domainerr.New(domainerr.Conflict, "The bonus for this referral was already credited")

	ErrAdjustmentZero     = fieldError(domainerr.Invalid, "amount", "The adjustment amount cannot be zero")
	ErrInvalidCategory    = fieldError(domainerr.Invalid, "category", "Please select a category")
	ErrAdjustmentNegative = fieldError(domainerr.RuleBroken, "amount", "This adjustment would make the available balance negative")
)

// ErrTooManyOpenDeposits: the investor's quota of deposits waiting for staff is used up
// (AllowAnotherDeposit gives it a message with the count).
var ErrTooManyOpenDeposits = domainerr.New(domainerr.RuleBroken, "You have too many deposits waiting for confirmation.")

// Package referrals holds the referral reactor: when a referred user's first confirmed deposit
// of at least the configured minimum is confirmed, it credits the user who referred them the
// configured bonus (docs/referrals.md).
//
// The rule is in Decide, a pure function of what the reactor found out; the reactor
// (reactor.go) gathers those facts and runs the one command that follows from them.
package referrals

import (
	"clearvest/domain/account"
	"clearvest/domain/money"
)

// Facts are what the reactor knows about one confirmed deposit when it decides.
type Facts struct {
	// ReferredUserID owns the deposit.
	ReferredUserID string
	// ReferrerID is who referred them, "" when nobody did.
	ReferrerID string
	// ReferrerOpen: the referrer is registered and their account is not closed.
	ReferrerOpen bool
	// Received is what this deposit credited (its confirmation's received amount).
	Received money.Money
	// Minimum is the least a deposit must credit to earn the bonus (CLEARVEST_REFERRAL_MIN_DEPOSIT).
	Minimum money.Money
	// EarlierQualifying is how many deposits of the referred user of at least Minimum were
	// confirmed before this one, in their stream's order.
	EarlierQualifying int
	// StaffID confirmed this deposit.
	StaffID string
}

// Outcome is what the reactor does about a confirmed deposit.
type Outcome string

const (
	// Credit the referrer's bonus for this referred user.
	Credit Outcome = "credit"
	// NotReferred: nobody referred the depositor.
	NotReferred Outcome = "not referred"
	// BelowMinimum: this deposit credited less than the minimum; a later one may still qualify.
	BelowMinimum Outcome = "below the minimum"
	// NotFirst: an earlier deposit qualified (or could have); the bonus is once per referred user.
	NotFirst Outcome = "not the first qualifying deposit"
	// ConfirmedByReferrer: the staff member who confirmed the qualifying deposit is the referrer.
	// Nobody decides on their own bonus, so it is dropped, never paid for a later deposit.
	ConfirmedByReferrer Outcome = "confirmed by the referrer"
	// ReferrerClosed: the referrer closed their account (or never finished registering); the bonus
	// is dropped, not kept for later.
	ReferrerClosed Outcome = "referrer closed"
	// SelfReferral cannot happen through registration; refused here as the aggregate would.
	SelfReferral Outcome = "self referral"
)

// Decide says what a confirmed deposit causes. Only the first confirmed deposit of a referred
// user that credits at least the minimum counts: smaller ones before it earn nothing and do not
// use it up, a rejected deposit (no DepositConfirmed at all) counts for nothing, and every
// deposit after it credits nothing. A bonus that could not be paid when it was earned (the
// referrer closed, or confirmed the deposit themselves) is not paid later either: otherwise a
// referrer on the staff could wait for a colleague's confirmation of a second deposit.
func Decide(f Facts) Outcome {
	switch {
	case f.ReferrerID == "":
		return NotReferred
	case f.ReferrerID == f.ReferredUserID:
		return SelfReferral
	case f.Received.LessThan(f.Minimum):
		return BelowMinimum
	case f.EarlierQualifying > 0:
		return NotFirst
	case f.StaffID == f.ReferrerID:
		return ConfirmedByReferrer
	case !f.ReferrerOpen:
		return ReferrerClosed
	}
	return Credit
}

// countQualifying counts the confirmations of at least minimum among earlier deposit confirmations.
func countQualifying(confirmed []account.DepositConfirmed, minimum money.Money) int {
	n := 0
	for _, c := range confirmed {
		if !c.Received.LessThan(minimum) {
			n++
		}
	}
	return n
}

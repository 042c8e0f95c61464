// Package referrals holds the referral reactor: when a referred user's first deposit is
// confirmed, it credits the user who referred them the configured bonus (docs/referrals.md).
//
// The rule is in Decide, a pure function of what the reactor found out; the reactor
// (reactor.go) gathers those facts and runs the one command that follows from them.
package referrals

import "clearvest/domain/account"

// Facts are what the reactor knows about one confirmed deposit when it decides.
type Facts struct {
	// ReferredUserID owns the deposit.
	ReferredUserID string
	// ReferrerID is who referred them, "" when nobody did.
	ReferrerID string
	// ReferrerOpen: the referrer is registered and their account is not closed.
	ReferrerOpen bool
	// EarlierConfirmed is how many deposits of the referred user were confirmed before this
	// one, in their stream's order.
	EarlierConfirmed int
}

// Outcome is what the reactor does about a confirmed deposit.
type Outcome string

const (
	// Credit the referrer's bonus for this referred user.
	Credit Outcome = "credit"
	// NotReferred: nobody referred the depositor.
	NotReferred Outcome = "not referred"
	// NotFirst: an earlier deposit qualified (or could have); the bonus is once per referred user.
	NotFirst Outcome = "not the first deposit"
	// ReferrerClosed: the referrer closed their account (or never finished registering); the bonus
	// is dropped, not kept for later.
	ReferrerClosed Outcome = "referrer closed"
	// SelfReferral cannot happen through registration; refused here as the aggregate would.
	SelfReferral Outcome = "self referral"
)

// Decide says what a confirmed deposit causes. Only the first confirmed deposit of a referred
// user counts, so a rejected deposit (no DepositConfirmed at all) and every later one credit
// nothing; a bonus the referrer could not take when it was earned is not paid later either.
func Decide(f Facts) Outcome {
	switch {
	case f.ReferrerID == "":
		return NotReferred
	case f.ReferrerID == f.ReferredUserID:
		return SelfReferral
	case f.EarlierConfirmed > 0:
		return NotFirst
	case !f.ReferrerOpen:
		return ReferrerClosed
	}
	return Credit
}

// countConfirmed counts deposit confirmations among event types.
func countConfirmed(types []string) int {
	n := 0
	for _, t := range types {
		if t == account.TypeDepositConfirmed {
			n++
		}
	}
	return n
}

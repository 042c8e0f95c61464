package account

import "clearvest/domain/money"

// ReinvestFacts are what a reinvestment is checked against besides the account: the rules a new
// investment passes (docs/investments.md), read when it matures.
type ReinvestFacts struct {
	// PlanActive is whether the investment's plan is still offered; its limits are then the
	// plan's current Min and Max.
	PlanActive bool
	Min, Max   money.Money
	// IdentityApproved is whether the investor may invest: a verified e-mail address and an
	// approved identity check.
	IdentityApproved bool
	// AccountActive is whether the investor's account is open and not suspended.
	AccountActive bool
}

// Refusal says why inv's payout of amount may not be reinvested, in words for the investor, or
// "" when it may. Its method value is the ReinvestRule of one maturity run.
func (f ReinvestFacts) Refusal(inv Investment, amount money.Money) string {
	const not = "It was not reinvested as you asked: "
	plan := "the " + inv.Terms.PlanName + " plan"
	switch {
	case !f.AccountActive:
		return not + "your account is not active."
	case !f.IdentityApproved:
		return not + "investing needs a verified e-mail address and an approved identity check."
	case !f.PlanActive:
		return not + plan + " is no longer offered."
	case amount.LessThan(f.Min):
		return not + amount.Dollars() + " is below the minimum of " + plan + " (" + f.Min.Dollars() + ")."
	case f.Max.LessThan(amount):
		return not + amount.Dollars() + " is above the maximum of " + plan + " (" + f.Max.Dollars() + ")."
	}
	return ""
}

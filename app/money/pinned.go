package money

import (
	"fmt"
	"strings"

	"clearvest/domain/domainerr"
	"clearvest/domain/money"
)

// Pinned quotes: a request carries the figures the investor saw (the plan version of an
// investment, the fee of a withdrawal), and is refused when the server would now use other ones.
// Re-reading them silently would move money on terms nobody agreed to.
var (
	ErrPlanVersionRequired = fieldError(domainerr.Invalid, "planVersion",
		"Please review the plan's terms before investing: the request must say which plan version you saw (planVersion from the quote).")
	ErrFeeRequired = fieldError(domainerr.Invalid, "fee",
		"Please review the fee before withdrawing: the request must say which fee you saw (fee from the quote).")
	ErrFeeInvalid = fieldError(domainerr.Invalid, "fee", "The fee must be an amount in dollars, like 2.00.")
)

// Codes of the 409 refusals of a pinned quote.
const (
	PlanChangedCode = "plan_changed"
	FeeChangedCode  = "fee_changed"
)

// PlanChangedError refuses an investment whose plan changed since the investor saw its terms;
// Quote is the same investment worked out with the current terms.
type PlanChangedError struct{ Quote InvestmentQuote }

func (e *PlanChangedError) Error() string {
	return fmt.Sprintf("The terms of the %s plan changed since you reviewed them. Please review the new terms and confirm again.", e.Quote.PlanName)
}

// Kind makes it a classified error (409).
func (e *PlanChangedError) Kind() domainerr.Kind { return domainerr.Conflict }

// ErrorCode is the response's code.
func (e *PlanChangedError) ErrorCode() string { return PlanChangedCode }

// FeeChangedError refuses a withdrawal whose fee is not the one the investor saw; Quote is the
// withdrawal worked out with the schedule in force.
type FeeChangedError struct{ Quote WithdrawalQuote }

func (e *FeeChangedError) Error() string {
	return fmt.Sprintf("The withdrawal fee is now %s, so you would receive %s. Please review the new figures and confirm again.",
		e.Quote.Fee.Dollars(), e.Quote.Receives.Dollars())
}

// Kind makes it a classified error (409).
func (e *FeeChangedError) Kind() domainerr.Kind { return domainerr.Conflict }

// ErrorCode is the response's code.
func (e *FeeChangedError) ErrorCode() string { return FeeChangedCode }

// seenFee reads the fee a withdrawal request says the investor saw.
func seenFee(s string) (money.Money, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return money.Money{}, ErrFeeRequired
	}
	fee, err := money.Parse(s)
	if err != nil {
		return money.Money{}, ErrFeeInvalid
	}
	return fee, nil
}

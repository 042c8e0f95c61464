// Package fees is the published fee schedule: what an operation costs, computed the same way for
// the quote a user sees before confirming and for the fee charged when the operation settles.
//
// Rules (product rules, Principles 3 and "fees"; docs/payouts.md, "Fee schedule"):
//   - Fees come only from a published schedule. Per operation (today: withdrawal) it has a
//     minimum amount, a percentage and/or a flat fee, and optionally a cap.
//   - fee = flat + amount × percent, the percentage part rounded half-even to the cent, then
//     capped, and never more than the amount.
//   - The fee is taken out of the amount: the user asks for Amount, receives Net = Amount − Fee,
//     and Fee + Net = Amount. So a fee never needs more than the balance the amount came from.
//   - An amount below the minimum is refused, with the minimum in the message.
//   - A schedule is checked when it is made: no negative terms, a percentage below 100, a cap
//     no lower than the flat fee, and a minimum large enough that its fee leaves something to
//     pay out. Because the fee grows more slowly than the amount, every accepted amount then
//     pays out something.
package fees

import (
	"strings"

	"github.com/shopspring/decimal"

	"clearvest/domain/domainerr"
	"clearvest/domain/money"
	"clearvest/domain/plaindecimal"
)

// Operation is something a fee is charged for.
type Operation string

// Withdrawal is paying money out of the wallet on-chain.
const Withdrawal Operation = "withdrawal"

// MaxPercentDecimals is the most decimals a percentage may have ("1.2345%").
const MaxPercentDecimals = 4

// Errors. ErrBelowMinimum is shown to users (with the minimum in its message); ErrInvalidSchedule
// is about configuration and names the term at fault.
var (
	ErrBelowMinimum    = belowMinimum()
	ErrInvalidSchedule = domainerr.New(domainerr.Invalid, "The fee schedule is not valid")
)

func belowMinimum() *domainerr.Error {
	e := domainerr.New(domainerr.RuleBroken, "The amount is below the minimum")
	e.Field = "amount"
	return e
}

// Terms are the published terms of one operation's fee. The zero value is free, with no minimum.
type Terms struct {
	Minimum money.Money     // the smallest amount accepted; zero: any amount above zero
	Percent decimal.Decimal // a percentage of the amount: 1.5 means 1.5 %
	Flat    money.Money     // a fixed part, added to the percentage
	Cap     money.Money     // the most the fee can be; zero: no cap
}

// Schedule is the validated fee of one operation. The zero value is not a schedule; make one
// with New.
type Schedule struct {
	op    Operation
	terms Terms
}

// Quote is what an amount costs: Fee is kept, Net is paid out, and Fee + Net = Amount.
type Quote struct {
	Amount money.Money `json:"amount"`
	Fee    money.Money `json:"fee"`
	Net    money.Money `json:"net"`
}

// New checks terms and returns the schedule of op.
func New(op Operation, t Terms) (Schedule, error) {
	bad := func(why string) (Schedule, error) {
		return Schedule{}, ErrInvalidSchedule.WithMessage("The " + string(op) + " fee schedule is not valid: " + why)
	}
	switch {
	case op == "":
		return Schedule{}, ErrInvalidSchedule.WithMessage("A fee schedule needs an operation")
	case t.Minimum.IsNegative():
		return bad("the minimum cannot be negative")
	case t.Flat.IsNegative():
		return bad("the flat fee cannot be negative")
	case t.Cap.IsNegative():
		return bad("the cap cannot be negative")
	case t.Percent.IsNegative() || t.Percent.GreaterThanOrEqual(decimal.NewFromInt(100)):
		return bad("the percentage must be at least 0 and below 100")
	case !t.Percent.Equal(t.Percent.Truncate(MaxPercentDecimals)):
		return bad("the percentage can have at most 4 decimal places")
	case t.Cap.IsPositive() && !t.Percent.IsPositive():
		return bad("a cap only limits a percentage; without one, the flat fee is the fee")
	case t.Cap.IsPositive() && t.Cap.LessThan(t.Flat):
		return bad("the cap " + t.Cap.Dollars() + " is below the flat fee " + t.Flat.Dollars())
	}
	s := Schedule{op: op, terms: t}
	smallest := t.Minimum
	if !smallest.IsPositive() {
		smallest = money.FromCents(1)
	}
	if fee := s.fee(smallest); !fee.LessThan(smallest) {
		return bad("the fee on the smallest amount accepted, " + smallest.Dollars() + ", would be " + fee.Dollars() +
			", leaving nothing to pay out; raise the minimum")
	}
	return s, nil
}

// Operation returns the operation the schedule is for.
func (s Schedule) Operation() Operation { return s.op }

// Terms returns the schedule's terms.
func (s Schedule) Terms() Terms { return s.terms }

// Minimum returns the smallest amount the operation accepts ($0.00: any amount above zero).
func (s Schedule) Minimum() money.Money { return s.terms.Minimum }

// Quote returns the fee on amount and what is left to pay out. An amount that is not positive is
// refused with money.ErrNotPositive, one below the minimum with ErrBelowMinimum
// ('The minimum withdrawal is $10.00').
func (s Schedule) Quote(amount money.Money) (Quote, error) {
	if !amount.IsPositive() {
		return Quote{}, money.ErrNotPositive
	}
	if amount.LessThan(s.terms.Minimum) {
		return Quote{}, ErrBelowMinimum.WithMessage("The minimum " + string(s.op) + " is " + s.terms.Minimum.Dollars())
	}
	fee := s.fee(amount)
	if amount.LessThan(fee) { // unreachable for a schedule New accepted; a guard, not a rule
		fee = amount
	}
	return Quote{Amount: amount, Fee: fee, Net: amount.Sub(fee)}, nil
}

// fee is flat + amount × percent (half-even to the cent), capped.
func (s Schedule) fee(amount money.Money) money.Money {
	fee := s.terms.Flat.Add(amount.MulRate(s.terms.Percent.Shift(-2)))
	if s.terms.Cap.IsPositive() && s.terms.Cap.LessThan(fee) {
		fee = s.terms.Cap
	}
	return fee
}

// String renders the schedule for people, as it is published: "1.5% + $1.00 (at most $50.00),
// minimum $10.00"; "$2.00"; "Free, minimum $10.00".
func (s Schedule) String() string {
	out := s.FeeString()
	if s.terms.Minimum.IsPositive() {
		out += ", minimum " + s.terms.Minimum.Dollars()
	}
	return out
}

// FeeString renders the fee alone, without the minimum amount: "1.5% + $1.00 (at most
// $50.00)"; "Free". A page that shows the minimum on a line of its own uses it, so that the
// minimum never reads as part of the fee.
func (s Schedule) FeeString() string {
	var parts []string
	if s.terms.Percent.IsPositive() {
		parts = append(parts, s.terms.Percent.String()+"%")
	}
	if s.terms.Flat.IsPositive() {
		parts = append(parts, s.terms.Flat.Dollars())
	}
	out := strings.Join(parts, " + ")
	if out == "" {
		out = "Free"
	}
	if s.terms.Cap.IsPositive() {
		out += " (at most " + s.terms.Cap.Dollars() + ")"
	}
	return out
}

// ParsePercent reads a percentage written as digits with an optional point and at most
// MaxPercentDecimals decimals ("1.5", "0"), without a sign, exponent or "%". It never rounds.
func ParsePercent(s string) (decimal.Decimal, error) {
	intPart, frac, ok := plaindecimal.Split(s)
	d, parsed := plaindecimal.Parse(s)
	if !ok || !parsed || len(intPart) > 3 || len(frac) > MaxPercentDecimals {
		return decimal.Decimal{}, ErrInvalidSchedule.WithMessage("A percentage is written like 1.5, with at most 4 decimal places")
	}
	return d, nil
}

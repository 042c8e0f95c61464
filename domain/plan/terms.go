package plan

import (
	"math/big"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/domain/domainerr"
	"clearvest/domain/money"
	"clearvest/domain/plaindecimal"
)

// Limits of a plan's terms.
const (
	MinTermDays = 1
	MaxTermDays = 3650 // ten years
	// MaxRateDecimals bounds the precision of a term rate (0.00400000 is fine, 0.004000001 is
	// not): more digits than this would be a typo, not a term anyone agreed to.
	MaxRateDecimals = 8
	// DaysPerYear is the year of the annualised rate: simple interest over 365 days.
	DaysPerYear = 365
	// RateDisplayDecimals is how many decimals a term rate shows at least ("0.0040").
	RateDisplayDecimals = 4
	// APRDecimals is how many decimals of a percent the annualised rate shows ("4.87").
	APRDecimals = 2
)

// Errors about terms. Their messages are shown to the user as they are.
var (
	ErrMinNotPositive = onField("min", "The minimum amount must be greater than zero.")
	ErrMaxBelowMin    = onField("max", "The maximum amount must be at least the minimum amount.")
	ErrTermDays       = onField("termDays", "The term must be between 1 and 3650 days.")
	ErrRate           = onField("termRate", "The rate for the term must be more than 0 and less than 1 (under 100%).")
	ErrRatePrecision  = onField("termRate", "The rate for the term can have at most 8 decimal places.")
)

// Terms are what an investment in a plan agrees to: the amounts it accepts, how long it runs and
// the rate it earns over that whole term (not per year). A term rate of 0.004 over 30 days pays
// $0.40 on $100 at maturity.
type Terms struct {
	Min      money.Money     `json:"min"`
	Max      money.Money     `json:"max"`
	TermDays int             `json:"termDays"`
	TermRate decimal.Decimal `json:"termRate"`
}

// Validate checks the rules every version of a plan's terms follows: 0 < min ≤ max, a term of 1
// to 3650 days, and 0 < rate < 1 with at most 8 decimals.
func (t Terms) Validate() error {
	if !t.Min.IsPositive() {
		return ErrMinNotPositive
	}
	if t.Max.LessThan(t.Min) {
		return ErrMaxBelowMin
	}
	if t.TermDays < MinTermDays || t.TermDays > MaxTermDays {
		return ErrTermDays
	}
	if t.TermRate.Sign() <= 0 || t.TermRate.Cmp(decimal.NewFromInt(1)) >= 0 {
		return ErrRate
	}
	if !t.TermRate.Equal(t.TermRate.Truncate(MaxRateDecimals)) {
		return ErrRatePrecision
	}
	return nil
}

// Equal reports whether two versions of terms are the same agreement.
func (t Terms) Equal(o Terms) bool {
	return t.Min.Equal(o.Min) && t.Max.Equal(o.Max) && t.TermDays == o.TermDays && t.TermRate.Equal(o.TermRate)
}

// Accepts reports whether amount is within the plan's range, both ends included.
func (t Terms) Accepts(amount money.Money) bool {
	return !amount.LessThan(t.Min) && !t.Max.LessThan(amount)
}

// RateText is the term rate as a decimal string with at least four decimals ("0.0040"), all of
// its digits kept.
func (t Terms) RateText() string {
	places := int32(RateDisplayDecimals)
	for places < MaxRateDecimals && !t.TermRate.Equal(t.TermRate.Truncate(places)) {
		places++
	}
	return t.TermRate.StringFixed(places)
}

// RatePercent is the term rate in percent with at least two decimals, all of its digits kept:
// 0.004 is "0.40", 0.00125 is "0.125". Messages that quote the rate use it.
func (t Terms) RatePercent() string {
	pct := t.TermRate.Shift(2)
	places := int32(2)
	for places < MaxRateDecimals && !pct.Equal(pct.Truncate(places)) {
		places++
	}
	return pct.StringFixed(places)
}

// AnnualRate is the simple annualised rate, termRate × 365 / termDays, as an exact fraction:
// nothing is rounded until it is shown.
func (t Terms) AnnualRate() *big.Rat {
	if t.TermDays <= 0 {
		return new(big.Rat)
	}
	r := new(big.Rat).Mul(t.TermRate.Rat(), big.NewRat(DaysPerYear, 1))
	return r.Quo(r, big.NewRat(int64(t.TermDays), 1))
}

// APRPercent is the annualised rate in percent, rounded half-even to two decimals for display:
// 0.004 over 30 days is 4.87 (4.8666…).
func (t Terms) APRPercent() decimal.Decimal {
	pct := new(big.Rat).Mul(t.AnnualRate(), big.NewRat(100, 1))
	return roundHalfEven(pct, APRDecimals)
}

// Return is what amount earns over the whole term: amount × termRate, rounded half-even to the
// cent, the rule for returns (product rules, Money).
func (t Terms) Return(amount money.Money) money.Money {
	return amount.MulRate(t.TermRate)
}

// MaturesAt is when an investment started at start matures: termDays later, counted in whole
// days of 24 hours.
func (t Terms) MaturesAt(start time.Time) time.Time {
	return start.Add(time.Duration(t.TermDays) * 24 * time.Hour)
}

// Example is a worked example of the terms for one amount.
type Example struct {
	Amount       money.Money
	Return       money.Money
	Payout       money.Money // Amount + Return, paid at maturity
	MaturityDays int
}

// ExampleFor works the terms through for amount: what it earns and what is paid back at
// maturity, after termDays days.
func (t Terms) ExampleFor(amount money.Money) Example {
	ret := t.Return(amount)
	return Example{Amount: amount, Return: ret, Payout: amount.Add(ret), MaturityDays: t.TermDays}
}

// roundHalfEven rounds r to places decimals, a tie going to the even last digit, exactly.
func roundHalfEven(r *big.Rat, places int32) decimal.Decimal {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)
	num := new(big.Int).Mul(r.Num(), scale)
	den := r.Denom() // always positive
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	// m has the sign of num; compare |2m| with den.
	twice := new(big.Int).Abs(m)
	twice.Lsh(twice, 1)
	switch c := twice.Cmp(den); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return decimal.NewFromBigInt(q, -places)
}

// ErrRateFormat is returned for a rate that is not written as a plain decimal.
var ErrRateFormat = onField("termRate", "The rate for the term must be a decimal such as 0.0040.")

// onField is an invalid-input sentinel about one field of the terms.
func onField(field, message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = field
	return e
}

// ParseRate reads a rate for the term written as a plain decimal ("0.004", "0.0040"): digits, a
// point and more digits. Exponents, signs, spaces and percent signs are refused rather than
// guessed at; a rate that was misread is worse than one that was refused. Range and precision
// are Validate's.
func ParseRate(s string) (decimal.Decimal, error) {
	d, ok := plaindecimal.Parse(s)
	if !ok || len(s) > 40 {
		return decimal.Decimal{}, ErrRateFormat
	}
	return d, nil
}

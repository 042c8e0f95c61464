// Package money is the one representation of an amount of money in Clearvest: US dollars with
// exactly two decimal places, backed by an arbitrary-precision decimal.
//
// Rules:
//   - An amount never passes through float64: not when parsed, not in JSON, not in arithmetic.
//   - Parsing never rounds. Input with more than two decimals is refused, because silently
//     rounding what a user typed (or what another system sent) moves money nobody agreed to move.
//   - Rounding happens only where a rule says so. Today that is MulRate (the return on an
//     investment): half-even to the cent.
//   - At most 18 integer digits are accepted, so every parsed amount fits NUMERIC(20,2).
//   - The sign is part of the value; Positive and NonNegative check inputs where a sign makes no
//     sense, so that rule lives next to the value instead of in every handler.
package money

import (
	"cmp"
	"encoding/json"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"

	"clearvest/domain/domainerr"
)

// MaxIntegerDigits is the most integer digits an input may have: NUMERIC(20,2) leaves 18.
const MaxIntegerDigits = 18

// Errors returned for bad amounts. Their messages are shown to the user as they are.
var (
	ErrInvalid         = domainerr.New(domainerr.Invalid, "Please enter a valid amount")
	ErrTooManyDecimals = domainerr.New(domainerr.Invalid, "Amount can have at most 2 decimal places")
	ErrTooLarge        = domainerr.New(domainerr.Invalid, "Amount is too large")
	ErrNotPositive     = domainerr.New(domainerr.Invalid, "Amount must be greater than zero")
	ErrNegative        = domainerr.New(domainerr.Invalid, "Amount cannot be negative")
)

// Money is an immutable amount of US dollars with two decimal places. The zero value is $0.00.
// Compare amounts with Cmp or Equal, never with ==.
//
// An amount is held as whole cents in an int64 while it is below smallLimit in size, and as a
// decimal beyond that. Replays and rebuilds add millions of amounts: an int64 sum allocates
// nothing, where each big.Int sum allocated twice. Every operation gives the same result either
// way (FuzzArithmetic holds both to a big.Int model), and a result that fits is always held as
// cents, so one amount has one representation.
type Money struct {
	cents int64            // the amount, when large is nil
	large *decimal.Decimal // the amount when it does not fit below smallLimit; then cents is 0
}

// smallLimit bounds the amounts held as int64 cents, exclusive: two of them add or subtract
// without overflow (2e18 < 9.2e18), and every amount Parse reads with up to 16 integer digits
// is one.
const smallLimit = 1_000_000_000_000_000_000

// Zero is $0.00.
var Zero = Money{}

// FromCents returns the amount of the given number of cents.
func FromCents(cents int64) Money {
	if -smallLimit < cents && cents < smallLimit {
		return Money{cents: cents}
	}
	return fromDecimal(decimal.New(cents, -2))
}

// fromDecimal returns the amount d, a whole number of cents, held as cents when it fits.
func fromDecimal(d decimal.Decimal) Money {
	cents := d.Shift(2).BigInt()
	if cents.IsInt64() {
		if c := cents.Int64(); -smallLimit < c && c < smallLimit {
			return Money{cents: c}
		}
	}
	large := decimal.NewFromBigInt(cents, -2)
	return Money{large: &large}
}

// decimal is m as a decimal, whichever way it is held.
func (m Money) decimal() decimal.Decimal {
	if m.large != nil {
		return *m.large
	}
	return decimal.New(m.cents, -2)
}

// sign is -1, 0 or +1 as m is below, at or above zero.
func (m Money) sign() int {
	if m.large != nil {
		return m.large.Sign()
	}
	return cmp.Compare(m.cents, 0)
}

// Parse reads an amount written as an optional minus sign, integer digits without leading zeros,
// and optionally a point followed by one or two digits: "12", "12.5", "-0.01". Anything else —
// exponents, a plus sign, spaces, thousands separators, hex, NaN — is refused rather than guessed
// at, because an amount that was misread is worse than one that was refused.
func Parse(s string) (Money, error) {
	neg, intPart, frac, err := scan(s)
	if err != nil {
		return Money{}, err
	}
	if len(intPart) <= maxInt64Digits {
		// Every event's amounts are parsed when it is decoded: the common case takes no big.Int.
		fraction := digitsValue(frac)
		if len(frac) == 1 {
			fraction *= 10 // "12.5" is 12 dollars 50 cents
		}
		cents := digitsValue(intPart)*100 + fraction
		if neg {
			cents = -cents
		}
		return Money{cents: cents}, nil
	}
	// Whole cents as one integer: the integer part followed by exactly two fraction digits.
	digits := intPart + frac + "00"[len(frac):]
	var cents big.Int
	if _, ok := cents.SetString(digits, 10); !ok {
		return Money{}, ErrInvalid
	}
	if neg {
		cents.Neg(&cents)
	}
	return fromDecimal(decimal.NewFromBigInt(&cents, -2)), nil
}

// MustParse is Parse for amounts written in code (plan limits, tests); it panics on bad input.
func MustParse(s string) Money {
	m, err := Parse(s)
	if err != nil {
		panic("money: MustParse(" + s + "): " + err.Error())
	}
	return m
}

// scan checks the grammar -?(0|[1-9][0-9]*)(\.[0-9]{1,2})? and splits s into its parts. Syntax is
// checked before precision and size so that "1.2.3" is reported as invalid, not as too precise.
func scan(s string) (neg bool, intPart, frac string, err error) {
	rest := s
	if len(rest) > 0 && rest[0] == '-' {
		neg = true
		rest = rest[1:]
	}
	i := 0
	for i < len(rest) && isDigit(rest[i]) {
		i++
	}
	intPart, rest = rest[:i], rest[i:]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return false, "", "", ErrInvalid
	}
	if rest != "" {
		if rest[0] != '.' {
			return false, "", "", ErrInvalid
		}
		frac = rest[1:]
		if frac == "" {
			return false, "", "", ErrInvalid
		}
		for j := 0; j < len(frac); j++ {
			if !isDigit(frac[j]) {
				return false, "", "", ErrInvalid
			}
		}
	}
	if len(frac) > 2 {
		return false, "", "", ErrTooManyDecimals
	}
	if len(intPart) > MaxIntegerDigits {
		return false, "", "", ErrTooLarge
	}
	return neg, intPart, frac, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// maxInt64Digits is the longest integer part whose whole cents are always below smallLimit: 16
// digits and two more for the cents.
const maxInt64Digits = 16

// digitsValue is the value of a run of decimal digits scan has checked; "" is 0.
func digitsValue(s string) int64 {
	var v int64
	for i := 0; i < len(s); i++ {
		v = v*10 + int64(s[i]-'0')
	}
	return v
}

// Positive returns m when it is greater than zero, for inputs such as a deposit amount.
func Positive(m Money) (Money, error) {
	if m.sign() <= 0 {
		return Money{}, ErrNotPositive
	}
	return m, nil
}

// NonNegative returns m when it is zero or more, for inputs such as a fee where zero is allowed.
func NonNegative(m Money) (Money, error) {
	if m.sign() < 0 {
		return Money{}, ErrNegative
	}
	return m, nil
}

// Add returns m + o.
func (m Money) Add(o Money) Money {
	if m.large == nil && o.large == nil {
		return FromCents(m.cents + o.cents)
	}
	return fromDecimal(m.decimal().Add(o.decimal()))
}

// Sub returns m - o.
func (m Money) Sub(o Money) Money {
	if m.large == nil && o.large == nil {
		return FromCents(m.cents - o.cents)
	}
	return fromDecimal(m.decimal().Sub(o.decimal()))
}

// Neg returns -m.
func (m Money) Neg() Money {
	if m.large == nil {
		return Money{cents: -m.cents}
	}
	return fromDecimal(m.large.Neg())
}

// MulRate returns m × rate rounded half-even to the cent. Half-even is the rule for returns: over
// many investments it neither favours the platform nor the user.
func (m Money) MulRate(rate decimal.Decimal) Money {
	return fromDecimal(m.decimal().Mul(rate).RoundBank(2))
}

// Cmp returns -1, 0 or +1 as m is less than, equal to or greater than o.
func (m Money) Cmp(o Money) int {
	if m.large == nil && o.large == nil {
		return cmp.Compare(m.cents, o.cents)
	}
	return m.decimal().Cmp(o.decimal())
}

// Equal reports whether m and o are the same amount.
func (m Money) Equal(o Money) bool { return m.Cmp(o) == 0 }

// LessThan reports whether m < o.
func (m Money) LessThan(o Money) bool { return m.Cmp(o) < 0 }

// IsZero reports whether m is $0.00.
func (m Money) IsZero() bool { return m.sign() == 0 }

// IsNegative reports whether m < 0.
func (m Money) IsNegative() bool { return m.sign() < 0 }

// IsPositive reports whether m > 0.
func (m Money) IsPositive() bool { return m.sign() > 0 }

// Cents returns m as a whole number of cents, and false when that does not fit an int64.
func (m Money) Cents() (int64, bool) {
	if m.large == nil {
		return m.cents, true
	}
	c := m.large.Shift(2).BigInt()
	if !c.IsInt64() {
		return 0, false
	}
	return c.Int64(), true
}

// Decimal returns the amount as a decimal, for calculations that are not money yet (rates,
// ratios) and for storage as NUMERIC.
func (m Money) Decimal() decimal.Decimal { return m.decimal() }

// String returns the amount with exactly two decimals and no currency sign: "-1234.50". It is the
// stored and transmitted form; formatting for people happens at the edge.
func (m Money) String() string {
	if m.large != nil {
		return m.large.StringFixed(2)
	}
	c := m.cents
	if c < 0 {
		c = -c // no overflow: |cents| < smallLimit
	}
	var b [24]byte
	i := len(b)
	for digit := 0; digit < 3 || c > 0; digit++ {
		if digit == 2 {
			i--
			b[i] = '.'
		}
		i--
		b[i] = byte('0' + c%10)
		c /= 10
	}
	if m.cents < 0 {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// Dollars writes the amount for people: "$1,234.50", "-$5.00". Messages that quote an amount
// use it, so every screen and e-mail shows money the same way.
func (m Money) Dollars() string {
	s := m.String()
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, cents, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + "$" + b.String() + "." + cents
}

// MarshalJSON writes the amount as a decimal string, "12.50": JSON numbers are floats to most
// readers, and a float is not an amount.
func (m Money) MarshalJSON() ([]byte, error) {
	return []byte(`"` + m.String() + `"`), nil
}

// UnmarshalJSON accepts a JSON string ("12.50") or a JSON number (12.5) under the same rules as
// Parse. A number is read from its literal bytes, never through float64. null leaves m unchanged,
// as encoding/json expects; required amounts are then caught by Positive.
func (m *Money) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	switch {
	case len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && plainJSONString(b[1:len(b)-1]):
		// What Money writes: no escapes, so the text between the quotes is the string.
		s = string(b[1 : len(b)-1])
	case len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"':
		if err := json.Unmarshal(b, &s); err != nil {
			return ErrInvalid
		}
	default:
		s = string(b)
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// plainJSONString reports whether b, the inside of a JSON string, needs no unescaping: no
// backslash, no quote and no control character. Anything else goes through encoding/json, which
// also refuses what JSON forbids.
func plainJSONString(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return true
}

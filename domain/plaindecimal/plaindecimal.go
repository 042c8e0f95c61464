// Package plaindecimal reads numbers written as plain decimals: digits, optionally a point and
// more digits ("0.0040", "1.5", "250"). Signs, exponents, spaces, separators and a bare point are
// refused rather than guessed at, because a rate or an amount that was misread moves money
// nobody agreed to move. Each caller adds its own limits (decimals, size, range) on the parts.
package plaindecimal

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Split returns the integer and fraction digits of s, or ok false when s is not a plain decimal.
// frac is "" when s has no point.
func Split(s string) (intPart, frac string, ok bool) {
	intPart, frac, hasPoint := strings.Cut(s, ".")
	if !digits(intPart) || (hasPoint && !digits(frac)) {
		return "", "", false
	}
	return intPart, frac, true
}

// Parse reads s exactly, or reports false when it is not a plain decimal.
func Parse(s string) (decimal.Decimal, bool) {
	if _, _, ok := Split(s); !ok {
		return decimal.Decimal{}, false
	}
	// Only digits and one point are left, which NewFromString reads exactly.
	d, err := decimal.NewFromString(s)
	return d, err == nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Package reference derives the short references investors know their money movements by:
// "DEP-7K3M9Q2X" for a deposit, "INV-…" for an investment and its payout, "WDR-…" for a
// withdrawal and its fee, "ADJ-…" for an adjustment, "BON-…" for a referral bonus.
//
// A reference is a pure function of the movement's kind and id, so every screen, statement and
// support conversation names a movement the same way without storing anything, and an
// investor never has to read out a UUID. The eight characters are Crockford base32 (digits and
// upper-case letters without I, L, O and U, which are easily misread) of the first 40 bits of
// the SHA-256 of the id: ids made with uuid.NewV7 start with a timestamp, so their own first
// bytes would be alike for movements made close together.
package reference

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

// Kind is what a reference names; its prefix says it.
type Kind string

// The kinds of reference. A fee belongs to its withdrawal and a payout (return) to its
// investment, so they carry those references (For maps them).
const (
	Deposit    Kind = "DEP"
	Investment Kind = "INV"
	Withdrawal Kind = "WDR"
	Adjustment Kind = "ADJ"
	Bonus      Kind = "BON"
)

// Kinds lists every kind.
var Kinds = []Kind{Deposit, Investment, Withdrawal, Adjustment, Bonus}

// alphabet is Crockford's base32.
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// codeLen is the number of characters after the prefix: 40 bits, about a trillion codes, so two
// movements of one investor sharing a reference is practically impossible.
const codeLen = 8

// ErrMalformed refuses text that is not a reference.
var ErrMalformed = errors.New("reference: not a reference")

// For returns the reference of the movement of kind k with the given id. A UUID is read in any
// of its spellings (upper case, braces, urn:uuid:), so the same id always gives the same code.
func For(k Kind, id string) string {
	sum := sha256.Sum256(canonical(id))
	// 40 bits, five at a time, most significant first.
	var bits uint64
	for _, b := range sum[:5] {
		bits = bits<<8 | uint64(b)
	}
	var b strings.Builder
	b.Grow(len(k) + 1 + codeLen)
	b.WriteString(string(k))
	b.WriteByte('-')
	for i := codeLen - 1; i >= 0; i-- {
		b.WriteByte(alphabet[(bits>>(5*uint(i)))&31])
	}
	return b.String()
}

// KindOf reads the kind of a reference, as an investor may type it (lower case is accepted).
func KindOf(ref string) (Kind, error) {
	ref = strings.ToUpper(strings.TrimSpace(ref))
	prefix, code, ok := strings.Cut(ref, "-")
	if !ok || len(code) != codeLen {
		return "", ErrMalformed
	}
	for _, c := range code {
		if !strings.ContainsRune(alphabet, c) {
			return "", ErrMalformed
		}
	}
	for _, k := range Kinds {
		if string(k) == prefix {
			return k, nil
		}
	}
	return "", ErrMalformed
}

// canonical is the 16 bytes of a UUID however it is spelled ("urn:uuid:", braces, upper case),
// or the id's own bytes when it is not a UUID.
func canonical(id string) []byte {
	s := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(id, "urn:uuid:"), "URN:UUID:"))
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		s = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
		if b, err := hex.DecodeString(s); err == nil {
			return b
		}
	}
	return []byte(id)
}

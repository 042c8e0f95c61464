package money_test

import (
	"encoding/json"
	"math/big"
	"regexp"
	"testing"

	"clearvest/domain/money"
)

// grammar is an independent statement of what Parse accepts, so the fuzzer can check the
// hand-written scanner against it in both directions.
var grammar = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,2})?$`)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "12", "12.5", "12.50", "-1234.56", "999999999999999999.99",
		"", "-", ".", ".5", "5.", "+5", "05", " 5", "1e3", "0x10", "NaN", "Inf", "1.234",
		"1000000000000000000", "1,000", "١٢", "\x00", `"12.50"`, `"1\u0030"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := money.Parse(s)
		if accepted := err == nil; accepted != grammar.MatchString(s) {
			t.Fatalf("Parse(%q) error = %v, but the grammar says accepted=%v", s, err, !accepted)
		}
		checkJSONInput(t, []byte(s))
		if err != nil {
			return
		}

		// The value is exactly the decimal that was written: no float, no rounding.
		want, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("big.Rat cannot read accepted input %q", s)
		}
		if got := m.Decimal().Rat(); got.Cmp(want) != 0 {
			t.Fatalf("Parse(%q) = %s, want %s", s, got.FloatString(2), want.FloatString(2))
		}

		text := m.String()
		back, err := money.Parse(text)
		if err != nil || !back.Equal(m) || back.String() != text {
			t.Fatalf("String/Parse round trip of %q: %q -> %v, %v", s, text, back, err)
		}

		encoded, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(%s): %v", text, err)
		}
		if string(encoded) != `"`+text+`"` {
			t.Fatalf("Marshal(%s) = %s", text, encoded)
		}
		var decoded money.Money
		if err := json.Unmarshal(encoded, &decoded); err != nil || !decoded.Equal(m) {
			t.Fatalf("JSON round trip of %s: %s -> %v, %v", text, encoded, decoded, err)
		}
		// The same digits as a JSON number decode to the same amount.
		var fromNumber money.Money
		if err := json.Unmarshal([]byte(s), &fromNumber); err != nil || !fromNumber.Equal(m) {
			t.Fatalf("JSON number %s -> %v, %v", s, fromNumber, err)
		}
	})
}

// checkJSONInput feeds arbitrary bytes to the JSON decoder: it must never panic, and whatever it
// accepts must survive a round trip.
func checkJSONInput(t *testing.T, b []byte) {
	t.Helper()
	var m money.Money
	if err := m.UnmarshalJSON(b); err != nil {
		return
	}
	encoded, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal after UnmarshalJSON(%q): %v", b, err)
	}
	var back money.Money
	if err := json.Unmarshal(encoded, &back); err != nil || !back.Equal(m) {
		t.Fatalf("UnmarshalJSON(%q) = %s, which does not round-trip: %v", b, m, err)
	}
}

func FuzzArithmetic(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1), int64(-1))
	f.Add(int64(1250), int64(99))
	f.Add(int64(9223372036854775807), int64(9223372036854775807))
	f.Add(int64(-9223372036854775808), int64(-1))
	f.Add(int64(999999999999999999), int64(1)) // across the largest amount held as int64 cents
	f.Add(int64(-999999999999999999), int64(-1))
	f.Add(int64(1000000000000000000), int64(-1))
	f.Fuzz(func(t *testing.T, ac, bc int64) {
		a, b := money.FromCents(ac), money.FromCents(bc)
		if got := a.String(); got != centsText(big.NewInt(ac)) {
			t.Fatalf("FromCents(%d).String() = %q", ac, got)
		}
		if got := a.Add(b).Sub(b); !got.Equal(a) || got.String() != a.String() {
			t.Fatalf("%s + %s - %s = %s", a, b, b, got)
		}
		if got := a.Sub(b).Add(b); !got.Equal(a) {
			t.Fatalf("%s - %s + %s = %s", a, b, b, got)
		}
		if !a.Add(b).Equal(b.Add(a)) {
			t.Fatalf("%s + %s is not commutative", a, b)
		}
		if !a.Neg().Neg().Equal(a) || !a.Add(a.Neg()).IsZero() {
			t.Fatalf("negation of %s is wrong", a)
		}
		if a.Cmp(b) != -b.Cmp(a) || (a.Cmp(b) == 0) != a.Equal(b) || (a.Cmp(b) < 0) != a.LessThan(b) {
			t.Fatalf("comparisons of %s and %s disagree", a, b)
		}

		// Sums are exact even where int64 cents would overflow.
		sum := new(big.Int).Add(big.NewInt(ac), big.NewInt(bc))
		c, ok := a.Add(b).Cents()
		if ok != sum.IsInt64() || (ok && c != sum.Int64()) {
			t.Fatalf("(%s + %s).Cents() = %d, %v; want %s", a, b, c, ok, sum)
		}
		if got, want := a.Add(b).String(), centsText(sum); got != want {
			t.Fatalf("%s + %s = %s, want %s", a, b, got, want)
		}
		if got, want := a.Cmp(b), big.NewInt(ac).Cmp(big.NewInt(bc)); got != want {
			t.Fatalf("%s.Cmp(%s) = %d, want %d", a, b, got, want)
		}
		if got, want := a.IsNegative(), ac < 0; got != want {
			t.Fatalf("%s.IsNegative() = %v", a, got)
		}
		// An amount below 10^16 dollars has one representation, however it was reached: == agrees
		// with Equal (larger ones are held by pointer).
		if back := a.Add(b).Sub(b); -1e18 < ac && ac < 1e18 && back != a {
			t.Fatalf("%s + %s - %s is %s but not == to it", a, b, b, back)
		}
	})
}

// centsText writes a number of cents the way String must: "-1234.50".
func centsText(cents *big.Int) string {
	digits := new(big.Int).Abs(cents).String()
	for len(digits) < 3 {
		digits = "0" + digits
	}
	text := digits[:len(digits)-2] + "." + digits[len(digits)-2:]
	if cents.Sign() < 0 {
		return "-" + text
	}
	return text
}

package money_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/shopspring/decimal"

	"clearvest/domain/domainerr"
	"clearvest/domain/money"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"whole dollars", "12", "12.00"},
		{"one decimal", "12.5", "12.50"},
		{"two decimals", "12.05", "12.05"},
		{"zero", "0", "0.00"},
		{"zero with decimals", "0.00", "0.00"},
		{"negative zero is zero", "-0.00", "0.00"},
		{"one cent", "0.01", "0.01"},
		{"negative", "-1234.56", "-1234.56"},
		{"largest", "999999999999999999.99", "999999999999999999.99"},
		{"smallest", "-999999999999999999.99", "-999999999999999999.99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := money.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := m.String(); got != tt.want {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     error
	}{
		{"empty", "", money.ErrInvalid},
		{"minus only", "-", money.ErrInvalid},
		{"point only", ".", money.ErrInvalid},
		{"no integer part", ".5", money.ErrInvalid},
		{"no fraction after point", "5.", money.ErrInvalid},
		{"leading plus", "+5", money.ErrInvalid},
		{"leading zero", "05", money.ErrInvalid},
		{"leading zeros before point", "00.5", money.ErrInvalid},
		{"double minus", "--5", money.ErrInvalid},
		{"leading space", " 5", money.ErrInvalid},
		{"trailing space", "5 ", money.ErrInvalid},
		{"trailing newline", "5\n", money.ErrInvalid},
		{"exponent", "1e3", money.ErrInvalid},
		{"upper exponent", "1E3", money.ErrInvalid},
		{"fraction with exponent", "1.5e2", money.ErrInvalid},
		{"hex", "0x10", money.ErrInvalid},
		{"NaN", "NaN", money.ErrInvalid},
		{"Inf", "Inf", money.ErrInvalid},
		{"infinity", "-Infinity", money.ErrInvalid},
		{"thousands separator", "1,000", money.ErrInvalid},
		{"underscore separator", "1_000", money.ErrInvalid},
		{"currency sign", "$5", money.ErrInvalid},
		{"two points", "1.2.3", money.ErrInvalid},
		{"comma decimal", "1,50", money.ErrInvalid},
		{"non-ASCII digit", "١٢", money.ErrInvalid},
		{"fullwidth digit", "１", money.ErrInvalid},
		{"three decimals", "1.234", money.ErrTooManyDecimals},
		{"trailing zero third decimal", "1.500", money.ErrTooManyDecimals},
		{"many decimals", "0.0000000001", money.ErrTooManyDecimals},
		{"nineteen integer digits", "1000000000000000000", money.ErrTooLarge},
		{"nineteen negative integer digits", "-1000000000000000000.00", money.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := money.Parse(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse(%q) error = %v, want %v", tt.in, err, tt.want)
			}
			if kind, _, ok := domainerr.KindOf(err); !ok || kind != domainerr.Invalid {
				t.Errorf("Parse(%q) error kind = %v, %v; want Invalid", tt.in, kind, ok)
			}
		})
	}
}

func TestErrorMessagesAreForUsers(t *testing.T) {
	t.Parallel()
	tests := map[error]string{
		money.ErrInvalid:         "Please enter a valid amount",
		money.ErrTooManyDecimals: "Amount can have at most 2 decimal places",
		money.ErrNotPositive:     "Amount must be greater than zero",
	}
	for err, want := range tests {
		if err.Error() != want {
			t.Errorf("message = %q, want %q", err.Error(), want)
		}
	}
}

func TestMustParsePanicsOnBadInput(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("MustParse(\"1.234\") did not panic")
		}
	}()
	money.MustParse("1.234")
}

func TestZeroValueIsZeroDollars(t *testing.T) {
	t.Parallel()
	var m money.Money
	if !m.IsZero() || m.String() != "0.00" || !m.Equal(money.Zero) {
		t.Fatalf("zero value = %s, IsZero %v", m, m.IsZero())
	}
	if got := m.Add(money.MustParse("1.5")).String(); got != "1.50" {
		t.Errorf("zero + 1.5 = %s", got)
	}
	if c, ok := m.Cents(); !ok || c != 0 {
		t.Errorf("zero.Cents() = %d, %v", c, ok)
	}
}

func TestFromCents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cents int64
		want  string
	}{
		{0, "0.00"},
		{1, "0.01"},
		{-1, "-0.01"},
		{1250, "12.50"},
		{math.MaxInt64, "92233720368547758.07"},
		{math.MinInt64, "-92233720368547758.08"},
	}
	for _, tt := range tests {
		m := money.FromCents(tt.cents)
		if got := m.String(); got != tt.want {
			t.Errorf("FromCents(%d) = %s, want %s", tt.cents, got, tt.want)
		}
		if c, ok := m.Cents(); !ok || c != tt.cents {
			t.Errorf("FromCents(%d).Cents() = %d, %v", tt.cents, c, ok)
		}
	}
}

func TestCentsReportsOverflow(t *testing.T) {
	t.Parallel()
	m := money.MustParse("999999999999999999.99")
	if _, ok := m.Cents(); ok {
		t.Fatalf("Cents() of %s fitted an int64", m)
	}
	if _, ok := m.Neg().Cents(); ok {
		t.Fatalf("Cents() of %s fitted an int64", m.Neg())
	}
}

func TestArithmetic(t *testing.T) {
	t.Parallel()
	a, b := money.MustParse("10.25"), money.MustParse("0.75")
	tests := []struct {
		name string
		got  money.Money
		want string
	}{
		{"add", a.Add(b), "11.00"},
		{"sub", a.Sub(b), "9.50"},
		{"sub below zero", b.Sub(a), "-9.50"},
		{"neg", a.Neg(), "-10.25"},
		{"neg neg", a.Neg().Neg(), "10.25"},
		{"neg zero", money.Zero.Neg(), "0.00"},
	}
	for _, tt := range tests {
		if tt.got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	if a.String() != "10.25" || b.String() != "0.75" {
		t.Errorf("operands changed: %s, %s", a, b)
	}
}

func TestComparisons(t *testing.T) {
	t.Parallel()
	small, big := money.MustParse("1.5"), money.MustParse("1.50").Add(money.FromCents(1))
	if small.Cmp(big) != -1 || big.Cmp(small) != 1 || small.Cmp(money.FromCents(150)) != 0 {
		t.Errorf("Cmp is wrong: %d %d %d", small.Cmp(big), big.Cmp(small), small.Cmp(money.FromCents(150)))
	}
	if !small.LessThan(big) || big.LessThan(small) || small.LessThan(small) {
		t.Error("LessThan is wrong")
	}
	if !small.Equal(money.FromCents(150)) || small.Equal(big) {
		t.Error("Equal is wrong")
	}
	neg := money.MustParse("-0.01")
	if !neg.IsNegative() || neg.IsZero() || neg.IsPositive() {
		t.Error("sign predicates are wrong for -0.01")
	}
	if small.IsNegative() || small.IsZero() || !small.IsPositive() {
		t.Error("sign predicates are wrong for 1.50")
	}
}

func TestMulRateRoundsHalfEvenToTheCent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, amount, rate, want string
	}{
		{"exact", "100.00", "0.05", "5.00"},
		{"below half rounds down", "1.00", "0.124", "0.12"},
		{"above half rounds up", "1.00", "0.126", "0.13"},
		{"half to even down", "1.00", "0.125", "0.12"},
		{"half to even up", "1.00", "0.135", "0.14"},
		{"negative half to even", "-1.00", "0.125", "-0.12"},
		{"negative half to even up", "-1.00", "0.135", "-0.14"},
		{"tiny rounds to zero", "0.01", "0.4", "0.00"},
		{"tiny half rounds to even zero", "0.01", "0.5", "0.00"},
		{"long rate", "1234.56", "0.0123456789", "15.24"},
		{"rate above one", "250.00", "1.5", "375.00"},
		{"integer rate", "2.50", "3", "7.50"},
		{"zero rate", "99.99", "0", "0.00"},
		{"just past half", "1.00", "0.1250000001", "0.13"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := money.MustParse(tt.amount).MulRate(decimal.RequireFromString(tt.rate))
			if got.String() != tt.want {
				t.Errorf("%s × %s = %s, want %s", tt.amount, tt.rate, got, tt.want)
			}
		})
	}
}

func TestPositive(t *testing.T) {
	t.Parallel()
	if m, err := money.Positive(money.MustParse("0.01")); err != nil || m.String() != "0.01" {
		t.Errorf("Positive(0.01) = %s, %v", m, err)
	}
	for _, in := range []string{"0", "-0.01"} {
		if _, err := money.Positive(money.MustParse(in)); !errors.Is(err, money.ErrNotPositive) {
			t.Errorf("Positive(%s) error = %v, want ErrNotPositive", in, err)
		}
	}
}

func TestNonNegative(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"0", "0.01"} {
		if m, err := money.NonNegative(money.MustParse(in)); err != nil || !m.Equal(money.MustParse(in)) {
			t.Errorf("NonNegative(%s) = %s, %v", in, m, err)
		}
	}
	if _, err := money.NonNegative(money.MustParse("-0.01")); !errors.Is(err, money.ErrNegative) {
		t.Errorf("NonNegative(-0.01) error = %v, want ErrNegative", err)
	}
}

func TestMarshalJSON(t *testing.T) {
	t.Parallel()
	got, err := json.Marshal(struct {
		Amount money.Money  `json:"amount"`
		Fee    *money.Money `json:"fee,omitempty"`
	}{Amount: money.MustParse("12.5")})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"amount":"12.50"}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
}

func TestUnmarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"string", `"12.50"`, "12.50"},
		{"string one decimal", `"12.5"`, "12.50"},
		{"number", `12.5`, "12.50"},
		{"integer number", `12`, "12.00"},
		{"negative number", `-0.01`, "-0.01"},
		{"escaped string", `"\u0031\u0032"`, "12.00"},
		{"largest number", `999999999999999999.99`, "999999999999999999.99"},
		{"whitespace around the value", " \n 7.25 \t", "7.25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got struct{ Amount money.Money }
			if err := json.Unmarshal([]byte(`{"Amount":`+tt.in+`}`), &got); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.in, err)
			}
			if got.Amount.String() != tt.want {
				t.Errorf("Unmarshal(%s) = %s, want %s", tt.in, got.Amount, tt.want)
			}
		})
	}
}

func TestUnmarshalJSONRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     error
	}{
		{"empty string", `""`, money.ErrInvalid},
		{"exponent number", `1e3`, money.ErrInvalid},
		{"exponent string", `"1e3"`, money.ErrInvalid},
		{"negative exponent number", `125E-2`, money.ErrInvalid},
		{"NaN string", `"NaN"`, money.ErrInvalid},
		{"Infinity string", `"Infinity"`, money.ErrInvalid},
		{"hex string", `"0x1F"`, money.ErrInvalid},
		{"plus string", `"+1.00"`, money.ErrInvalid},
		{"space inside string", `" 1.00"`, money.ErrInvalid},
		{"too precise number", `0.001`, money.ErrTooManyDecimals},
		{"too precise string", `"12.345"`, money.ErrTooManyDecimals},
		{"float-looking number", `0.30000000000000004`, money.ErrTooManyDecimals},
		{"too large number", `1000000000000000000`, money.ErrTooLarge},
		{"too large string", `"12345678901234567890.00"`, money.ErrTooLarge},
		{"boolean", `true`, money.ErrInvalid},
		{"object", `{}`, money.ErrInvalid},
		{"array", `["1"]`, money.ErrInvalid},
		{"null string", `"null"`, money.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got struct{ Amount money.Money }
			err := json.Unmarshal([]byte(`{"Amount":`+tt.in+`}`), &got)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Unmarshal(%s) error = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

func TestUnmarshalJSONCalledDirectlyRejectsWhitespace(t *testing.T) {
	t.Parallel()
	var m money.Money
	for _, in := range []string{" 1", "1 ", "", `"1" `} {
		if err := m.UnmarshalJSON([]byte(in)); !errors.Is(err, money.ErrInvalid) {
			t.Errorf("UnmarshalJSON(%q) error = %v, want ErrInvalid", in, err)
		}
	}
}

func TestUnmarshalJSONNullLeavesValue(t *testing.T) {
	t.Parallel()
	got := struct{ Amount money.Money }{Amount: money.MustParse("3")}
	if err := json.Unmarshal([]byte(`{"Amount":null}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Amount.String() != "3.00" {
		t.Errorf("null changed the amount to %s", got.Amount)
	}
}

func TestUnmarshalJSONErrorKeepsTheTargetUnchanged(t *testing.T) {
	t.Parallel()
	m := money.MustParse("3")
	if err := m.UnmarshalJSON([]byte(`"1.234"`)); err == nil {
		t.Fatal("accepted 1.234")
	}
	if m.String() != "3.00" {
		t.Errorf("failed decode changed the amount to %s", m)
	}
}

func TestDollars(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0": "$0.00", "1.5": "$1.50", "999.99": "$999.99", "1000": "$1,000.00", "1234567.8": "$1,234,567.80",
		"-1234.5": "-$1,234.50", "999999999999999999.99": "$999,999,999,999,999,999.99",
	} {
		if got := money.MustParse(in).Dollars(); got != want {
			t.Errorf("Dollars(%s) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkUnmarshalJSON is the cost of an amount read from a stored event, which every replay
// and projection rebuild pays once per amount.
func BenchmarkUnmarshalJSON(b *testing.B) {
	raw := []byte(`"1234.50"`)
	b.ReportAllocs()
	for b.Loop() {
		var m money.Money
		if err := m.UnmarshalJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

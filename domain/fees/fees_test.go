package fees_test

import (
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"clearvest/domain/domainerr"
	"clearvest/domain/fees"
	"clearvest/domain/money"
)

func schedule(t *testing.T, terms fees.Terms) fees.Schedule {
	t.Helper()
	s, err := fees.New(fees.Withdrawal, terms)
	if err != nil {
		t.Fatalf("New(%+v): %v", terms, err)
	}
	return s
}

func terms(percent, flat, minimum, cap string) fees.Terms {
	return fees.Terms{
		Percent: decimal.RequireFromString(percent),
		Flat:    money.MustParse(flat),
		Minimum: money.MustParse(minimum),
		Cap:     money.MustParse(cap),
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	standard := terms("1.5", "1.00", "10.00", "50.00")
	tests := []struct {
		name          string
		terms         fees.Terms
		amount        string
		wantFee, want string // fee and net
	}{
		{"at the minimum", standard, "10.00", "1.15", "8.85"},
		{"percent and flat", standard, "100.00", "2.50", "97.50"},
		{"half a cent rounds to even, down", standard, "100.10", "2.50", "97.60"}, // 1.5015 → 1.50
		{"half a cent rounds to even, up", standard, "101.00", "2.52", "98.48"},   // 1.515 → 1.52
		{"below half a cent rounds down", standard, "100.33", "2.50", "97.83"},    // 1.50495
		{"above half a cent rounds up", standard, "100.37", "2.51", "97.86"},      // 1.50555
		{"just below the cap", standard, "3266.00", "49.99", "3216.01"},           // 1 + 48.99
		{"capped", standard, "10000.00", "50.00", "9950.00"},
		{"capped far above", standard, "999999999999999999.99", "50.00", "999999999999999949.99"},
		{"flat only", terms("0", "2.00", "5.00", "0"), "5.00", "2.00", "3.00"},
		{"percent only, no minimum", terms("1", "0", "0", "0"), "0.01", "0.00", "0.01"},
		{"free", fees.Terms{}, "0.01", "0.00", "0.01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, err := schedule(t, tt.terms).Quote(money.MustParse(tt.amount))
			if err != nil {
				t.Fatalf("Quote(%s): %v", tt.amount, err)
			}
			if q.Amount.String() != tt.amount || q.Fee.String() != tt.wantFee || q.Net.String() != tt.want {
				t.Errorf("Quote(%s) = %+v, want fee %s, net %s", tt.amount, q, tt.wantFee, tt.want)
			}
		})
	}
}

func TestQuoteRefuses(t *testing.T) {
	t.Parallel()
	s := schedule(t, terms("1.5", "1.00", "10.00", "50.00"))
	_, err := s.Quote(money.MustParse("9.99"))
	if !errors.Is(err, fees.ErrBelowMinimum) || err.Error() != "The minimum withdrawal is $10.00" {
		t.Errorf("Quote(9.99) error = %v", err)
	}
	var de *domainerr.Error
	if !errors.As(err, &de) || de.Kind() != domainerr.RuleBroken || de.Field != "amount" {
		t.Errorf("below the minimum is %+v, want a rule broken about the amount", de)
	}
	big := schedule(t, terms("1", "0", "1500.00", "0"))
	if _, err := big.Quote(money.MustParse("1499.99")); err == nil || err.Error() != "The minimum withdrawal is $1,500.00" {
		t.Errorf("Quote(1499.99) error = %v", err)
	}
	for _, a := range []string{"0", "-5.00"} {
		if _, err := s.Quote(money.MustParse(a)); !errors.Is(err, money.ErrNotPositive) {
			t.Errorf("Quote(%s) error = %v, want ErrNotPositive", a, err)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		terms fees.Terms
		want  string // part of the message
	}{
		{"negative minimum", terms("1", "0", "-1", "0"), "the minimum cannot be negative"},
		{"negative flat", terms("1", "-1", "10", "0"), "the flat fee cannot be negative"},
		{"negative cap", terms("1", "0", "10", "-1"), "the cap cannot be negative"},
		{"negative percent", terms("-1", "0", "10", "0"), "the percentage must be at least 0 and below 100"},
		{"100 percent", terms("100", "0", "10", "0"), "the percentage must be at least 0 and below 100"},
		{"too precise a percent", terms("1.23456", "0", "10", "0"), "at most 4 decimal places"},
		{"cap without a percent", terms("0", "1", "10", "5"), "a cap only limits a percentage"},
		{"cap below the flat fee", terms("1", "5.00", "10", "4.99"), "the cap $4.99 is below the flat fee $5.00"},
		{"flat fee eats the minimum", terms("0", "10.00", "10.00", "0"), "the fee on the smallest amount accepted, $10.00, would be $10.00"},
		{"flat fee with no minimum", terms("0", "1.00", "0", "0"), "the fee on the smallest amount accepted, $0.01, would be $1.00"},
		{"percent and flat eat the minimum", terms("50", "5.00", "10.00", "0"), "would be $10.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := fees.New(fees.Withdrawal, tt.terms)
			if !errors.Is(err, fees.ErrInvalidSchedule) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New(%+v) error = %v, want one containing %q", tt.terms, err, tt.want)
			}
		})
	}
	if _, err := fees.New("", fees.Terms{}); !errors.Is(err, fees.ErrInvalidSchedule) {
		t.Errorf("New without an operation: %v", err)
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		terms     fees.Terms
		want, fee string
	}{
		{terms("1.5", "1.00", "10.00", "0"), "1.5% + $1.00, minimum $10.00", "1.5% + $1.00"},
		{terms("1.5", "1.00", "10.00", "50.00"), "1.5% + $1.00 (at most $50.00), minimum $10.00", "1.5% + $1.00 (at most $50.00)"},
		{terms("1.50", "0", "0", "0"), "1.5%", "1.5%"},
		{terms("0", "2.00", "2500.00", "0"), "$2.00, minimum $2,500.00", "$2.00"},
		{terms("0.25", "0", "1000000.00", "1234.56"), "0.25% (at most $1,234.56), minimum $1,000,000.00", "0.25% (at most $1,234.56)"},
		{terms("0", "0", "10.00", "0"), "Free, minimum $10.00", "Free"},
		{fees.Terms{}, "Free", "Free"},
	}
	for _, tt := range tests {
		s := schedule(t, tt.terms)
		if got := s.String(); got != tt.want {
			t.Errorf("String(%+v) = %q, want %q", tt.terms, got, tt.want)
		}
		if got := s.FeeString(); got != tt.fee {
			t.Errorf("FeeString(%+v) = %q, want %q", tt.terms, got, tt.fee)
		}
	}
}

func TestParsePercent(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0", "1.5", "1.2345", "99.9999", "100"} {
		if d, err := fees.ParsePercent(s); err != nil || !d.Equal(decimal.RequireFromString(s)) {
			t.Errorf("ParsePercent(%q) = %s, %v", s, d, err)
		}
	}
	for _, s := range []string{"", "1.23456", "-1", "+1", "1%", "1e1", ".5", "5.", "1,5", " 1", "1000"} {
		if _, err := fees.ParsePercent(s); !errors.Is(err, fees.ErrInvalidSchedule) {
			t.Errorf("ParsePercent(%q) error = %v", s, err)
		}
	}
}

func TestQuoteJSON(t *testing.T) {
	t.Parallel()
	q, _ := schedule(t, terms("1.5", "1.00", "10.00", "50.00")).Quote(money.MustParse("100"))
	b, err := json.Marshal(q)
	if err != nil || string(b) != `{"amount":"100.00","fee":"2.50","net":"97.50"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}

// TestQuoteProperties checks random schedules against random amounts; FuzzQuote explores further.
func TestQuoteProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		checkQuote(t, r.Uint32(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint32())
	}
}

func FuzzQuote(f *testing.F) {
	f.Add(uint32(15000), uint64(100), uint64(1000), uint64(5000), uint64(10000), uint32(1))
	f.Add(uint32(0), uint64(0), uint64(0), uint64(0), uint64(1), uint32(0))
	f.Add(uint32(999999), uint64(0), uint64(1), uint64(0), uint64(1<<62), uint32(7))
	f.Add(uint32(5000), uint64(1), uint64(0), uint64(1), uint64(12345), uint32(99))
	f.Fuzz(checkQuote)
}

// checkQuote builds a schedule from the numbers (percent in ten-thousandths, amounts in cents)
// and, when New accepts it, checks a quote of the amount and of the next cent against the rules
// and an independent exact computation.
func checkQuote(t *testing.T, pct uint32, flat, minimum, cap, amount uint64, step uint32) {
	terms := fees.Terms{
		Percent: decimal.New(int64(pct%1_000_000), -fees.MaxPercentDecimals),
		Flat:    money.FromCents(int64(flat % 1_000_000)),
		Minimum: money.FromCents(int64(minimum % 100_000_000)),
		Cap:     money.FromCents(int64(cap % 10_000_000)),
	}
	s, err := fees.New(fees.Withdrawal, terms)
	if err != nil {
		return
	}
	a := money.FromCents(int64(amount % (1 << 62)))
	q, err := s.Quote(a)
	if a.LessThan(terms.Minimum) || !a.IsPositive() {
		if err == nil {
			t.Fatalf("%s: Quote(%s) accepted an amount below the minimum", s, a)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: Quote(%s): %v", s, a, err)
	}
	if q.Fee.IsNegative() || a.LessThan(q.Fee) || !q.Net.Add(q.Fee).Equal(a) || !q.Amount.Equal(a) {
		t.Fatalf("%s: Quote(%s) = %+v breaks 0 <= fee <= amount = net + fee", s, a, q)
	}
	if !q.Net.IsPositive() {
		t.Fatalf("%s: Quote(%s) = %+v pays out nothing", s, a, q)
	}
	if want := reference(terms, a); !q.Fee.Equal(want) {
		t.Fatalf("%s: Quote(%s).Fee = %s, want %s", s, a, q.Fee, want)
	}
	more := a.Add(money.FromCents(int64(step%100_000) + 1))
	q2, err := s.Quote(more)
	if err != nil {
		t.Fatalf("%s: Quote(%s): %v", s, more, err)
	}
	if q2.Fee.LessThan(q.Fee) || q2.Net.LessThan(q.Net) {
		t.Fatalf("%s: not monotonic: Quote(%s) = %+v, Quote(%s) = %+v", s, a, q, more, q2)
	}
}

// reference computes the fee with big.Rat and its own half-even rounding to the cent.
func reference(t fees.Terms, amount money.Money) money.Money {
	exact := new(big.Rat).Mul(amount.Decimal().Rat(), t.Percent.Rat())
	exact.Quo(exact, big.NewRat(100, 1))
	cents := new(big.Rat).Mul(exact, big.NewRat(100, 1))
	q, rem := new(big.Int).QuoRem(cents.Num(), cents.Denom(), new(big.Int))
	twice := new(big.Int).Mul(rem, big.NewInt(2))
	if c := twice.Cmp(cents.Denom()); c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	fee := t.Flat.Add(money.FromCents(q.Int64()))
	if t.Cap.IsPositive() && t.Cap.LessThan(fee) {
		fee = t.Cap
	}
	if amount.LessThan(fee) {
		fee = amount
	}
	return fee
}

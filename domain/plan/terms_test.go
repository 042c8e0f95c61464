package plan_test

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/domain/money"
	"clearvest/domain/plan"
)

func TestAPRPercent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		days int
		rate string
		want string
	}{
		{30, "0.004", "4.87"},    // 4.8666…
		{60, "0.0105", "6.39"},   // 6.3875
		{90, "0.017", "6.89"},    // 6.8944…
		{180, "0.039", "7.91"},   // 7.9083…
		{365, "0.05", "5.00"},    // exactly
		{73, "0.0005", "0.25"},   // exactly 0.25
		{1, "0.0001", "3.65"},    // one day
		{146, "0.0001", "0.02"},  // exactly 0.025: the tie goes to the even digit
		{3650, "0.5", "5.00"},    // ten years
		{7, "0.001", "5.21"},     // 5.2142…
		{400, "0.00011", "0.01"}, // 0.0100375
	} {
		if got := terms("1", "2", c.days, c.rate).APRPercent().StringFixed(2); got != c.want {
			t.Errorf("APR of %s over %d days = %s%%, want %s%%", c.rate, c.days, got, c.want)
		}
	}
	// Exactly 0.035: the tie goes up to the even digit.
	if got := terms("1", "2", 146, "0.00014").APRPercent().StringFixed(2); got != "0.04" {
		t.Errorf("0.035%% rounded to %s, want 0.04", got)
	}
}

func TestAnnualRateIsExact(t *testing.T) {
	t.Parallel()
	got := terms("1", "2", 30, "0.004").AnnualRate()
	if want := big.NewRat(73, 1500); got.Cmp(want) != 0 { // 0.004 × 365 / 30
		t.Errorf("AnnualRate = %s, want %s", got, want)
	}
}

func TestRateText(t *testing.T) {
	t.Parallel()
	for rate, want := range map[string]string{
		"0.004": "0.0040", "0.0040": "0.0040", "0.00400000": "0.0040", "0.039": "0.0390",
		"0.00125": "0.00125", "0.12345678": "0.12345678", "0.5": "0.5000",
	} {
		if got := terms("1", "2", 30, rate).RateText(); got != want {
			t.Errorf("RateText(%s) = %s, want %s", rate, got, want)
		}
	}
}

func TestRatePercent(t *testing.T) {
	t.Parallel()
	for rate, want := range map[string]string{"0.004": "0.40", "0.015": "1.50", "0.00125": "0.125", "0.12345678": "12.345678", "0.5": "50.00"} {
		if got := terms("1", "2", 30, rate).RatePercent(); got != want {
			t.Errorf("RatePercent(%s) = %s, want %s", rate, got, want)
		}
	}
}

func TestWorkedExample(t *testing.T) {
	t.Parallel()
	ex := basic.ExampleFor(money.MustParse("100"))
	if ex.Amount.String() != "100.00" || ex.Return.String() != "0.40" || ex.Payout.String() != "100.40" || ex.MaturityDays != 30 {
		t.Errorf("example = %+v, want 100.00 → 0.40 return, 100.40 after 30 days", ex)
	}
	// Half-even to the cent: 0.125 → 0.12 and 0.375 → 0.38.
	half := terms("1", "1000", 30, "0.005")
	if got := half.Return(money.MustParse("25")).String(); got != "0.12" {
		t.Errorf("25 × 0.005 = %s, want 0.12 (half-even)", got)
	}
	if got := half.Return(money.MustParse("75")).String(); got != "0.38" {
		t.Errorf("75 × 0.005 = %s, want 0.38 (half-even)", got)
	}
	start := time.Date(2026, 3, 28, 23, 30, 0, 0, time.UTC)
	if got, want := basic.MaturesAt(start), time.Date(2026, 4, 27, 23, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("MaturesAt = %s, want %s", got, want)
	}
	if !basic.Accepts(money.MustParse("100")) || !basic.Accepts(money.MustParse("250")) ||
		basic.Accepts(money.MustParse("99.99")) || basic.Accepts(money.MustParse("250.01")) {
		t.Error("Accepts does not include exactly the range min..max")
	}
}

// checkTerms holds the properties every valid set of terms must have, for any amount in range.
func checkTerms(t *testing.T, tm plan.Terms, amount money.Money) {
	t.Helper()
	if err := tm.Validate(); err != nil {
		t.Fatalf("generated invalid terms %+v: %v", tm, err)
	}
	// The annualised rate is exact: turning it back into a rate for the term gives the term
	// rate again, with nothing lost.
	back := new(big.Rat).Mul(tm.AnnualRate(), big.NewRat(int64(tm.TermDays), plan.DaysPerYear))
	if back.Cmp(tm.TermRate.Rat()) != 0 {
		t.Fatalf("APR × days / 365 = %s, want the term rate %s", back.FloatString(12), tm.TermRate)
	}
	// The displayed APR is within half a hundredth of a percent of the exact one.
	exact := new(big.Rat).Mul(tm.AnnualRate(), big.NewRat(100, 1))
	diff := new(big.Rat).Sub(tm.APRPercent().Rat(), exact)
	if diff.Abs(diff).Cmp(big.NewRat(1, 200)) > 0 {
		t.Fatalf("APRPercent %s is more than 0.005 from %s", tm.APRPercent(), exact.FloatString(8))
	}
	ex := tm.ExampleFor(amount)
	// Payout is principal plus return, to the cent.
	if !ex.Payout.Equal(ex.Amount.Add(ex.Return)) || !ex.Amount.Equal(amount) || ex.MaturityDays != tm.TermDays {
		t.Fatalf("example %+v is not amount + return after the term", ex)
	}
	// The return is amount × rate rounded to the cent: never more than half a cent away, and
	// positive rates never pay a negative return.
	exactReturn := new(big.Rat).Mul(amount.Decimal().Rat(), tm.TermRate.Rat())
	off := new(big.Rat).Sub(ex.Return.Decimal().Rat(), exactReturn)
	if off.Abs(off).Cmp(big.NewRat(1, 200)) > 0 || ex.Return.IsNegative() {
		t.Fatalf("return %s for %s × %s (exact %s)", ex.Return, amount, tm.TermRate, exactReturn.FloatString(6))
	}
	// The return never exceeds the principal: the rate is under 100 % for the term (rounding to
	// the cent can bring it up to the principal, never past it).
	if amount.LessThan(ex.Return) {
		t.Fatalf("return %s > principal %s", ex.Return, amount)
	}
}

func randomTerms(r *rand.Rand) (plan.Terms, money.Money) {
	minCents := 1 + r.Int64N(10_000_000)
	maxCents := minCents + r.Int64N(100_000_000)
	rateUnits := 1 + r.Int64N(99_999_999) // 1e-8 … 0.99999999
	tm := plan.Terms{
		Min: money.FromCents(minCents), Max: money.FromCents(maxCents),
		TermDays: 1 + r.IntN(plan.MaxTermDays), TermRate: decimal.New(rateUnits, -8),
	}
	amount := money.FromCents(minCents + r.Int64N(maxCents-minCents+1))
	return tm, amount
}

func TestTermsProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	for range 20_000 {
		tm, amount := randomTerms(r)
		checkTerms(t, tm, amount)
	}
}

func FuzzTerms(f *testing.F) {
	f.Add(int64(10000), int64(25000), 30, int64(400000), int64(10000))
	f.Add(int64(1), int64(1), 1, int64(1), int64(1))
	f.Add(int64(150000), int64(500000), 3650, int64(99999999), int64(500000))
	f.Fuzz(func(t *testing.T, minCents, maxCents int64, days int, rateUnits, amountCents int64) {
		tm := plan.Terms{Min: money.FromCents(minCents), Max: money.FromCents(maxCents), TermDays: days, TermRate: decimal.New(rateUnits, -8)}
		if tm.Validate() != nil {
			return
		}
		amount := money.FromCents(amountCents)
		if !tm.Accepts(amount) {
			return
		}
		checkTerms(t, tm, amount)
	})
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0.004", "0.0040", "1", "0", "12.5"} {
		if d, err := plan.ParseRate(s); err != nil || !d.Equal(decimal.RequireFromString(s)) {
			t.Errorf("ParseRate(%q) = %s, %v", s, d, err)
		}
	}
	for _, s := range []string{"", ".", ".5", "5.", "-0.1", "+0.1", "4e-3", "0,004", " 0.004", "0.4%", "NaN", "0x1"} {
		if _, err := plan.ParseRate(s); err == nil {
			t.Errorf("ParseRate(%q) accepted", s)
		}
	}
}

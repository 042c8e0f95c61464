package asset_test

import (
	"encoding/json"
	"errors"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"clearvest/domain/asset"
	"clearvest/domain/money"
)

func TestAssets(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a        asset.Asset
		decimals int32
		name     string
	}{
		{asset.BTC, 8, "Bitcoin"},
		{asset.ETH, 18, "Ether"},
		{asset.USDT, 6, "Tether USD"},
	} {
		if got, err := asset.Parse(string(tt.a)); err != nil || got != tt.a {
			t.Errorf("Parse(%q) = %q, %v", tt.a, got, err)
		}
		if !tt.a.Valid() || tt.a.Decimals() != tt.decimals || tt.a.Name() != tt.name {
			t.Errorf("%s: valid %v, decimals %d, name %q", tt.a, tt.a.Valid(), tt.a.Decimals(), tt.a.Name())
		}
	}
	for _, code := range []string{"", "btc", "BTC ", "USDC", "XRP"} {
		if _, err := asset.Parse(code); !errors.Is(err, asset.ErrUnknownAsset) {
			t.Errorf("Parse(%q) error = %v, want ErrUnknownAsset", code, err)
		}
	}
	if len(asset.All()) != 3 {
		t.Errorf("All() = %v", asset.All())
	}
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		a     asset.Asset
		in    string
		want  string // String()
		units string // smallest units
	}{
		{"one satoshi", asset.BTC, "0.00000001", "0.00000001", "1"},
		{"whole bitcoin", asset.BTC, "1", "1", "100000000"},
		{"trailing zeros kept exact", asset.BTC, "0.50000000", "0.5", "50000000"},
		{"one wei", asset.ETH, "0.000000000000000001", "0.000000000000000001", "1"},
		{"ether with 18 decimals", asset.ETH, "1.234567890123456789", "1.234567890123456789", "1234567890123456789"},
		{"smallest USDT", asset.USDT, "0.000001", "0.000001", "1"},
		{"USDT dollars", asset.USDT, "1250.5", "1250.5", "1250500000"},
		{"zero", asset.USDT, "0", "0", "0"},
		{"largest", asset.BTC, "99999999999.99999999", "99999999999.99999999", "9999999999999999999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x, err := asset.ParseAmount(tt.a, tt.in)
			if err != nil {
				t.Fatalf("ParseAmount(%s, %q): %v", tt.a, tt.in, err)
			}
			if x.String() != tt.want || x.Units().String() != tt.units || x.Asset() != tt.a {
				t.Errorf("ParseAmount(%s, %q) = %s (%s units, %s), want %s (%s units)", tt.a, tt.in, x, x.Units(), x.Asset(), tt.want, tt.units)
			}
		})
	}
}

func TestParseAmountRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a    asset.Asset
		in   string
		want error
	}{
		{"below a satoshi", asset.BTC, "0.000000001", asset.ErrTooPrecise},
		{"below a USDT unit", asset.USDT, "1.0000001", asset.ErrTooPrecise},
		{"19 decimals of ether", asset.ETH, "0.0000000000000000001", asset.ErrTooPrecise},
		{"too many coins", asset.USDT, "100000000000", asset.ErrTooLarge},
		{"unknown asset", asset.Asset("DOGE"), "1", asset.ErrUnknownAsset},
		{"empty", asset.BTC, "", asset.ErrInvalidAmount},
		{"negative", asset.BTC, "-1", asset.ErrInvalidAmount},
		{"plus", asset.BTC, "+1", asset.ErrInvalidAmount},
		{"leading zero", asset.BTC, "01", asset.ErrInvalidAmount},
		{"no integer part", asset.BTC, ".5", asset.ErrInvalidAmount},
		{"no fraction", asset.BTC, "5.", asset.ErrInvalidAmount},
		{"exponent", asset.ETH, "1e-18", asset.ErrInvalidAmount},
		{"comma", asset.USDT, "1,000", asset.ErrInvalidAmount},
		{"decimal comma", asset.USDT, "1,5", asset.ErrInvalidAmount},
		{"space", asset.USDT, " 1", asset.ErrInvalidAmount},
		{"two points", asset.USDT, "1.2.3", asset.ErrInvalidAmount},
		{"NaN", asset.USDT, "NaN", asset.ErrInvalidAmount},
		{"Arabic-Indic digits", asset.USDT, "١٢", asset.ErrInvalidAmount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if x, err := asset.ParseAmount(tt.a, tt.in); !errors.Is(err, tt.want) {
				t.Errorf("ParseAmount(%s, %q) = %s, %v; want %v", tt.a, tt.in, x, err, tt.want)
			}
		})
	}
}

func TestAmountCompareAndJSON(t *testing.T) {
	t.Parallel()
	a, b := asset.MustParseAmount(asset.BTC, "0.5"), asset.MustParseAmount(asset.BTC, "0.50000000")
	if !a.Equal(b) || a.Cmp(b) != 0 || a.Cmp(asset.MustParseAmount(asset.BTC, "0.6")) != -1 {
		t.Error("equal amounts compare unequal")
	}
	if a.Equal(asset.MustParseAmount(asset.USDT, "0.5")) {
		t.Error("0.5 BTC equals 0.5 USDT")
	}
	if j, err := json.Marshal(a); err != nil || string(j) != `"0.5"` {
		t.Errorf("Marshal = %s, %v", j, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Cmp across assets did not panic")
		}
	}()
	a.Cmp(asset.MustParseAmount(asset.ETH, "1"))
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"64250.5", "1", "0.99985", "9999999.99999999", "0.00000001"} {
		if r, err := asset.ParseRate(s); err != nil || r.String() != s {
			t.Errorf("ParseRate(%q) = %s, %v", s, r, err)
		}
	}
	for _, s := range []string{"0", "0.00000000", "-1", "10000000", "0.000000001", "1e3", "", "NaN"} {
		if _, err := asset.ParseRate(s); !errors.Is(err, asset.ErrInvalidRate) {
			t.Errorf("ParseRate(%q) error = %v, want ErrInvalidRate", s, err)
		}
	}
}

func TestUSDValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		a          asset.Asset
		amount     string
		rate, want string
	}{
		{"exact", asset.BTC, "0.5", "60000", "30000.00"},
		{"rounds down below half a cent", asset.BTC, "0.00001234", "64250.5", "0.79"},               // 0.79285117
		{"half a cent rounds to even, down", asset.USDT, "0.125", "1", "0.12"},                      // 0.125
		{"half a cent rounds to even, up", asset.USDT, "0.135", "1", "0.14"},                        // 0.135
		{"a wei is worth nothing", asset.ETH, "0.000000000000000001", "3000", "0.00"},               // 3e-15
		{"largest", asset.BTC, "99999999999.99999999", "9999999.99999999", "999999999999998999.90"}, // fits money's 18 integer digits
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := asset.USDValue(asset.MustParseAmount(tt.a, tt.amount), asset.MustParseRate(tt.rate))
			if got.String() != tt.want {
				t.Errorf("USDValue(%s %s at %s) = %s, want %s", tt.amount, tt.a, tt.rate, got, tt.want)
			}
		})
	}
}

func TestPayoutAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		usd       string
		a         asset.Asset
		rate      string
		want      string
		wantValue string
	}{
		{"exact", "30000.00", asset.BTC, "60000", "0.5", "30000.00"},
		{"rounds down to a satoshi", "100.00", asset.BTC, "64250.5", "0.0015564", "100.00"}, // 0.001556408…; worth 99.9995
		{"USDT at par", "98.50", asset.USDT, "1", "98.5", "98.50"},
		{"USDT slightly above par rounds down", "100.00", asset.USDT, "1.0003", "99.970008", "100.00"}, // 99.970008…; worth 99.999999,
		{"nothing for nothing", "0.00", asset.ETH, "3000", "0", "0.00"},
		{"nothing for a negative sum", "-5.00", asset.ETH, "3000", "0", "0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := asset.MustParseRate(tt.rate)
			got := asset.PayoutAmount(money.MustParse(tt.usd), tt.a, r)
			if got.String() != tt.want || got.Asset() != tt.a {
				t.Errorf("PayoutAmount(%s at %s) = %s %s, want %s", tt.usd, tt.rate, got, got.Asset(), tt.want)
			}
			if v := asset.USDValue(got, r); v.String() != tt.wantValue {
				t.Errorf("USDValue of the payout = %s, want %s", v, tt.wantValue)
			}
		})
	}
}

// grammar is an independent statement of what ParseAmount accepts for BTC.
var grammar = regexp.MustCompile(`^(0|[1-9][0-9]{0,10})(\.[0-9]{1,8})?$`)

// FuzzParseAmount checks the scanner against the grammar in both directions, and that an
// accepted amount is exactly the decimal written, in its smallest units, without rounding.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{
		"0", "1", "0.00000001", "0.000000001", "21000000", "99999999999.99999999", "100000000000",
		"", ".", "-1", "+1", "01", "1.", ".1", "1e8", "1_0", " 1", "1\n", "١", "0x1", "1.2.3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, err := asset.ParseAmount(asset.BTC, s)
		if accepted := err == nil; accepted != grammar.MatchString(s) {
			t.Fatalf("ParseAmount(%q) error = %v, but the grammar says accepted=%v", s, err, !accepted)
		}
		if err != nil {
			return
		}
		want, _ := new(big.Rat).SetString(s)
		if x.Decimal().Rat().Cmp(want) != 0 {
			t.Fatalf("ParseAmount(%q) = %s", s, x)
		}
		if !x.Units().Equal(x.Units().Truncate(0)) {
			t.Fatalf("ParseAmount(%q) is %s satoshis, not a whole number", s, x.Units())
		}
		back, err := asset.ParseAmount(asset.BTC, x.String())
		if err != nil || !back.Equal(x) {
			t.Fatalf("String/ParseAmount round trip of %q: %q -> %v, %v", s, x.String(), back, err)
		}
	})
}

// FuzzConversion is the property of the two rounding points: USDValue is within half a cent of
// the exact product and monotonic in the amount; a payout is never worth more than the dollars
// it settles, and short of them by less than one smallest unit's worth plus half a cent.
func FuzzConversion(f *testing.F) {
	f.Add(uint64(1), uint64(64250_50000000), int64(10000), uint8(0))
	f.Add(uint64(123456789), uint64(1_00000000), int64(12345), uint8(1))
	f.Add(uint64(1), uint64(1), int64(1), uint8(2))
	f.Add(uint64(9999999999999999999), uint64(999999999999999), int64(99999999999999), uint8(0))
	f.Fuzz(func(t *testing.T, units, rateUnits uint64, cents int64, which uint8) {
		a := asset.All()[int(which)%3]
		amount, ok := amountOf(a, units)
		if !ok {
			return
		}
		rate, err := asset.ParseRate(decimalString(new(big.Int).SetUint64(rateUnits%1_000_000_000_000_000), asset.MaxRateDecimals))
		if err != nil {
			return // zero
		}

		v := asset.USDValue(amount, rate)
		exact := new(big.Rat).Mul(amount.Decimal().Rat(), rate.Decimal().Rat())
		diff := new(big.Rat).Sub(v.Decimal().Rat(), exact)
		if diff.Abs(diff).Cmp(big.NewRat(1, 200)) > 0 {
			t.Fatalf("USDValue(%s %s at %s) = %s, more than half a cent from %s", amount, a, rate, v, exact.FloatString(20))
		}
		if more, ok := amountOf(a, units+1); ok && asset.USDValue(more, rate).LessThan(v) {
			t.Fatalf("USDValue is not monotonic at %s %s, rate %s", amount, a, rate)
		}

		usd := money.FromCents(cents)
		p := asset.PayoutAmount(usd, a, rate)
		if p.Asset() != a || p.Decimal().Sign() < 0 || !p.Units().Equal(p.Units().Truncate(0)) {
			t.Fatalf("PayoutAmount(%s, %s, %s) = %s, not a whole number of units", usd, a, rate, p.Units())
		}
		if !usd.IsPositive() {
			if !p.IsZero() {
				t.Fatalf("PayoutAmount(%s) = %s, want nothing", usd, p)
			}
			return
		}
		worth := new(big.Rat).Mul(p.Decimal().Rat(), rate.Decimal().Rat())
		if worth.Cmp(usd.Decimal().Rat()) > 0 {
			t.Fatalf("PayoutAmount(%s at %s) = %s %s, worth %s: more than was paid", usd, rate, p, a, worth.FloatString(20))
		}
		// One more smallest unit would have been worth more than usd, or it was not rounded down.
		unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.Decimals())), nil))
		next := new(big.Rat).Mul(new(big.Rat).Add(p.Decimal().Rat(), unit), rate.Decimal().Rat())
		if next.Cmp(usd.Decimal().Rat()) <= 0 {
			t.Fatalf("PayoutAmount(%s at %s) = %s %s, but one more unit is still within it", usd, rate, p, a)
		}
		if back := asset.USDValue(p, rate); usd.LessThan(back) {
			t.Fatalf("the payout of %s is valued at %s", usd, back)
		}
	})
}

// amountOf returns units smallest units of a, when that is within ParseAmount's limits.
func amountOf(a asset.Asset, units uint64) (asset.Amount, bool) {
	x, err := asset.ParseAmount(a, decimalString(new(big.Int).SetUint64(units), a.Decimals()))
	return x, err == nil
}

// decimalString writes n × 10^-decimals in ParseAmount's grammar.
func decimalString(n *big.Int, decimals int32) string {
	s := strings.Repeat("0", int(decimals)+1-min(len(n.String()), int(decimals)+1)) + n.String()
	intPart, frac := s[:len(s)-int(decimals)], strings.TrimRight(s[len(s)-int(decimals):], "0")
	if frac == "" {
		return intPart
	}
	return intPart + "." + frac
}

func TestDecimalStringHelper(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 1: "0.00000001", 150000000: "1.5", 100000000: "1", 12345678901: "123.45678901"} {
		if got := decimalString(big.NewInt(n), 8); got != want {
			t.Errorf("decimalString(%d) = %q, want %q", n, got, want)
		}
	}
}

// Package asset is the crypto side of a deposit or payout: which coin moved, how much of it in
// the coin's own precision, and at what US-dollar rate it was converted.
//
// Rules (docs/payouts.md, "Crypto amounts"):
//   - The wallet is kept in USD to the cent (package money); each deposit and payout also records
//     the asset, the on-chain amount and the rate applied (product rules, Money).
//   - An on-chain amount is exact in the asset's own precision: BTC 8 decimals, ETH 18, USDT 6.
//     Parsing never rounds; more decimals than the asset has are refused, as money refuses a
//     third decimal of a dollar.
//   - Converting between the two sides rounds in exactly two places, both here: USDValue rounds
//     half-even to the cent, and PayoutAmount rounds down to the asset's precision, so a payout
//     is never worth more than the dollars it settles.
//   - Amounts and rates are bounded (see MaxAmountIntegerDigits, MaxRateIntegerDigits) so that
//     every product of the two fits an amount of money.
package asset

import (
	"encoding/json"

	"github.com/shopspring/decimal"

	"clearvest/domain/domainerr"
	"clearvest/domain/money"
	"clearvest/domain/plaindecimal"
)

// Asset is a coin Clearvest accepts and pays out, named by its ticker. The zero value is no asset.
type Asset string

// The assets Clearvest handles. The codes are the ASSET part of CLEARVEST_DEPOSIT_ADDRESSES
// entries (ASSET/NETWORK=ADDRESS).
const (
	BTC  Asset = "BTC"  // Bitcoin
	ETH  Asset = "ETH"  // Ether
	USDT Asset = "USDT" // Tether USD, as an ERC-20 or TRC-20 token
)

type info struct {
	name     string
	decimals int32
}

var assets = map[Asset]info{
	BTC:  {"Bitcoin", 8},
	ETH:  {"Ether", 18},
	USDT: {"Tether USD", 6},
}

// All returns every asset, in a fixed order.
func All() []Asset { return []Asset{BTC, ETH, USDT} }

// Errors returned for bad assets and amounts. Their messages are shown to the user as they are.
var (
	ErrUnknownAsset  = domainerr.New(domainerr.Invalid, "Please choose BTC, ETH or USDT")
	ErrInvalidAmount = domainerr.New(domainerr.Invalid, "Please enter a valid crypto amount")
	ErrTooPrecise    = domainerr.New(domainerr.Invalid, "The amount has more decimal places than the coin allows")
	ErrTooLarge      = domainerr.New(domainerr.Invalid, "The crypto amount is too large")
	ErrInvalidRate   = domainerr.New(domainerr.Invalid, "Please enter a valid exchange rate")
)

// Parse returns the asset with the given ticker, exactly as written ("BTC", not "btc").
func Parse(code string) (Asset, error) {
	if _, ok := assets[Asset(code)]; !ok {
		return "", ErrUnknownAsset
	}
	return Asset(code), nil
}

// Valid reports whether a is one of the assets Clearvest handles.
func (a Asset) Valid() bool {
	_, ok := assets[a]
	return ok
}

// Decimals is the asset's on-chain precision: the smallest unit is 10^-Decimals of a coin
// (a satoshi for BTC, a wei for ETH). It is 0 for an invalid asset.
func (a Asset) Decimals() int32 { return assets[a].decimals }

// Name is the asset's name for people: "Bitcoin".
func (a Asset) Name() string { return assets[a].name }

func (a Asset) String() string { return string(a) }

// MaxAmountIntegerDigits bounds the whole coins of an amount: fewer than 10^11 coins, far
// beyond the supply of any asset here, so that an amount times a rate always fits money.
const MaxAmountIntegerDigits = 11

// Amount is an exact, non-negative on-chain amount of one asset. The zero value has no asset;
// amounts come from ParseAmount or PayoutAmount.
type Amount struct {
	asset Asset
	d     decimal.Decimal
}

// ParseAmount reads an amount of asset a written as integer digits without leading zeros,
// optionally followed by a point and at most a.Decimals() digits: "0.015", "1200". Signs,
// exponents, separators and spaces are refused rather than guessed at; so is a digit beyond the
// asset's precision, which no transaction can carry.
func ParseAmount(a Asset, s string) (Amount, error) {
	if !a.Valid() {
		return Amount{}, ErrUnknownAsset
	}
	d, err := parseDecimal(s, MaxAmountIntegerDigits, a.Decimals())
	if err != nil {
		return Amount{}, err
	}
	return Amount{asset: a, d: d}, nil
}

// MustParseAmount is ParseAmount for amounts written in code and tests; it panics on bad input.
func MustParseAmount(a Asset, s string) Amount {
	x, err := ParseAmount(a, s)
	if err != nil {
		panic("asset: MustParseAmount(" + string(a) + ", " + s + "): " + err.Error())
	}
	return x
}

// parseDecimal checks the grammar (0|[1-9][0-9]*)(\.[0-9]+)? and the limits, then reads the exact
// value. Syntax is checked before precision and size, so "1.2.3" is invalid, not too precise.
func parseDecimal(s string, maxInt int, maxFrac int32) (decimal.Decimal, error) {
	intPart, frac, ok := plaindecimal.Split(s)
	if !ok || (len(intPart) > 1 && intPart[0] == '0') {
		return decimal.Decimal{}, ErrInvalidAmount
	}
	if len(frac) > int(maxFrac) {
		return decimal.Decimal{}, ErrTooPrecise
	}
	if len(intPart) > maxInt {
		return decimal.Decimal{}, ErrTooLarge
	}
	d, ok := plaindecimal.Parse(s)
	if !ok {
		return decimal.Decimal{}, ErrInvalidAmount
	}
	return d, nil
}

// Asset returns the asset the amount is of.
func (x Amount) Asset() Asset { return x.asset }

// Decimal returns the exact amount in whole coins, for storage as NUMERIC.
func (x Amount) Decimal() decimal.Decimal { return x.d }

// Units returns the amount in the asset's smallest unit (satoshi, wei, 10^-6 USDT), the form
// transactions are built from.
func (x Amount) Units() decimal.Decimal { return x.d.Shift(x.asset.Decimals()) }

// IsZero reports whether the amount is nothing.
func (x Amount) IsZero() bool { return x.d.Sign() == 0 }

// Cmp compares two amounts of the same asset: -1, 0 or +1. It panics when the assets differ,
// because comparing satoshis with wei is a bug, not an answer.
func (x Amount) Cmp(y Amount) int {
	if x.asset != y.asset {
		panic("asset: comparing " + string(x.asset) + " with " + string(y.asset))
	}
	return x.d.Cmp(y.d)
}

// Equal reports whether x and y are the same amount of the same asset.
func (x Amount) Equal(y Amount) bool { return x.asset == y.asset && x.d.Cmp(y.d) == 0 }

// String returns the exact amount in whole coins without trailing zeros or a ticker:
// "0.015". It is the stored and transmitted form.
func (x Amount) String() string { return x.d.String() }

// MarshalJSON writes the amount as a decimal string, never a JSON number (a float to most
// readers). The asset travels beside it, as its own field.
func (x Amount) MarshalJSON() ([]byte, error) { return json.Marshal(x.String()) }

// MaxRateIntegerDigits bounds a rate: less than $10,000,000 per coin.
const MaxRateIntegerDigits = 7

// MaxRateDecimals is the most decimals a rate may have.
const MaxRateDecimals = 8

// Rate is a positive price in US dollars of one whole coin, as applied to one deposit or payout.
type Rate struct {
	d decimal.Decimal
}

// ParseRate reads a rate written like an amount ("64250.5"): positive, at most
// MaxRateDecimals decimals and MaxRateIntegerDigits integer digits, never rounded.
func ParseRate(s string) (Rate, error) {
	d, err := parseDecimal(s, MaxRateIntegerDigits, MaxRateDecimals)
	if err != nil || d.Sign() <= 0 {
		return Rate{}, ErrInvalidRate
	}
	return Rate{d}, nil
}

// MustParseRate is ParseRate for rates written in code and tests; it panics on bad input.
func MustParseRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic("asset: MustParseRate(" + s + "): " + err.Error())
	}
	return r
}

// Decimal returns the rate in dollars per coin.
func (r Rate) Decimal() decimal.Decimal { return r.d }

// String returns the rate without trailing zeros: "64250.5".
func (r Rate) String() string { return r.d.String() }

// MarshalJSON writes the rate as a decimal string.
func (r Rate) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// USDValue is what amount is worth at rate, rounded half-even to the cent. It is where a crypto
// amount becomes money, and the one place that rounding happens: half-even, so that over many
// deposits it favours neither the platform nor the user.
func USDValue(amount Amount, rate Rate) money.Money {
	v := amount.d.Mul(rate.d).RoundBank(2)
	// Below 10^11 coins at below $10^7 each, v has at most 18 integer digits, which money holds;
	// so for parsed amounts and rates this cannot panic. (An amount from PayoutAmount is within
	// those bounds at its own rate; only pairing it with a far higher rate could overflow.)
	return money.MustParse(v.StringFixed(2))
}

// PayoutAmount is how much of asset a pays out usd at rate: usd ÷ rate, rounded down to the
// asset's precision. Rounding down is deliberate: what is sent is never worth more than the
// dollars taken from the wallet, so USDValue(PayoutAmount(usd, a, r), r) ≤ usd, short of it by
// less than one smallest unit's worth (plus the half cent USDValue rounds). A negative usd, or an
// invalid asset, pays out nothing.
func PayoutAmount(usd money.Money, a Asset, rate Rate) Amount {
	if !a.Valid() || usd.Decimal().Sign() <= 0 || rate.d.Sign() <= 0 {
		return Amount{asset: a}
	}
	q, _ := usd.Decimal().QuoRem(rate.d, a.Decimals())
	return Amount{asset: a, d: q}
}

package settings_test

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/money"
	"clearvest/domain/settings"
)

func fieldOf(t *testing.T, err error) string {
	t.Helper()
	var e *domainerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a domain error", err)
	}
	return e.Field
}

var defaultFee = settings.WithdrawalFee{Percent: decimal.NewFromInt(1), Flat: money.MustParse("1"), Minimum: money.MustParse("10"), Cap: money.MustParse("25")}

func TestWithdrawalFeeRulesNameTheirField(t *testing.T) {
	pct := decimal.RequireFromString
	cases := []struct {
		name  string
		fee   settings.WithdrawalFee
		field string
	}{
		{"negative percent", settings.WithdrawalFee{Percent: pct("-1"), Minimum: money.MustParse("10")}, "percent"},
		{"percent of 100", settings.WithdrawalFee{Percent: pct("100"), Minimum: money.MustParse("10")}, "percent"},
		{"five decimals", settings.WithdrawalFee{Percent: pct("1.00001"), Minimum: money.MustParse("10")}, "percent"},
		{"negative flat", settings.WithdrawalFee{Percent: pct("1"), Flat: money.MustParse("-1"), Minimum: money.MustParse("10")}, "flat"},
		{"negative minimum", settings.WithdrawalFee{Percent: pct("1"), Minimum: money.MustParse("-10")}, "minimum"},
		{"negative cap", settings.WithdrawalFee{Percent: pct("1"), Cap: money.MustParse("-1")}, "cap"},
		{"cap below flat", settings.WithdrawalFee{Percent: pct("1"), Flat: money.MustParse("5"), Cap: money.MustParse("2"), Minimum: money.MustParse("10")}, "cap"},
		{"cap without percent", settings.WithdrawalFee{Flat: money.MustParse("1"), Cap: money.MustParse("2"), Minimum: money.MustParse("10")}, "cap"},
		{"fee swallows the minimum", settings.WithdrawalFee{Flat: money.MustParse("5"), Minimum: money.MustParse("5")}, "minimum"},
	}
	for _, tc := range cases {
		_, err := tc.fee.Schedule()
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if got := fieldOf(t, err); got != tc.field {
			t.Errorf("%s: field %q, want %q (%v)", tc.name, got, tc.field, err)
		}
	}
	if _, err := defaultFee.Schedule(); err != nil {
		t.Fatalf("the default schedule: %v", err)
	}
}

func TestReferralAndThresholdRules(t *testing.T) {
	m := money.MustParse
	if err := (settings.Referral{Bonus: m("5"), MinDeposit: m("100")}).Check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r     settings.Referral
		field string
	}{
		{settings.Referral{Bonus: m("0"), MinDeposit: m("100")}, "bonus"},
		{settings.Referral{Bonus: m("5"), MinDeposit: m("0")}, "minDeposit"},
		{settings.Referral{Bonus: m("50"), MinDeposit: m("20")}, "bonus"},
	} {
		if got := fieldOf(t, tc.r.Check()); got != tc.field {
			t.Errorf("%+v: field %q, want %q", tc.r, got, tc.field)
		}
	}
	ceiling := m("10000000")
	ok := settings.Approvals{DepositTolerancePercent: decimal.NewFromInt(1), DepositThreshold: m("10000"), WithdrawalThreshold: m("10000")}
	if err := ok.Check(ceiling); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change func(*settings.Approvals)
		field  string
	}{
		{func(a *settings.Approvals) { a.DepositTolerancePercent = decimal.NewFromInt(-1) }, "depositTolerancePercent"},
		{func(a *settings.Approvals) { a.DepositTolerancePercent = decimal.NewFromInt(101) }, "depositTolerancePercent"},
		{func(a *settings.Approvals) { a.DepositThreshold = m("0") }, "depositThreshold"},
		{func(a *settings.Approvals) { a.WithdrawalThreshold = m("20000000") }, "withdrawalThreshold"},
	} {
		a := ok
		tc.change(&a)
		if got := fieldOf(t, a.Check(ceiling)); got != tc.field {
			t.Errorf("%+v: field %q, want %q", a, got, tc.field)
		}
	}
}

func TestDepositAddressesUseTheNetworksValidators(t *testing.T) {
	good := []settings.Address{{Asset: "BTC", Network: "BTC", Address: " bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 "}}
	out, err := settings.CheckAddresses(good)
	if err != nil || out[0].Address != "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" {
		t.Fatalf("good address: %v %+v", err, out)
	}
	for _, tc := range []struct {
		list  []settings.Address
		field string
	}{
		{[]settings.Address{{Asset: "BTC", Network: "BTC", Address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5"}}, "addresses.0"},
		{[]settings.Address{good[0], {Asset: "USDT", Network: "BTC", Address: "x"}}, "addresses.1"},
		{[]settings.Address{good[0], good[0]}, "addresses.1"},
	} {
		_, err := settings.CheckAddresses(tc.list)
		if err == nil {
			t.Errorf("%+v: accepted", tc.list)
			continue
		}
		if got := fieldOf(t, err); got != tc.field {
			t.Errorf("%+v: field %q, want %q", tc.list, got, tc.field)
		}
	}
}

func TestAChangeNeedsAReasonAndANewValue(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := settings.New()
	if err := s.ChangeWithdrawalFee(defaultFee, defaultFee, "Same as before", at); !errors.Is(err, settings.ErrUnchanged) {
		t.Fatalf("unchanged: %v", err)
	}
	next := defaultFee
	next.Flat = money.MustParse("2")
	if err := s.ChangeWithdrawalFee(defaultFee, next, " ", at); fieldOf(t, err) != "reason" {
		t.Fatalf("no reason: %v", err)
	}
	if err := s.ChangeWithdrawalFee(defaultFee, next, "  Network fees went up ", at); err != nil {
		t.Fatal(err)
	}
	changes := s.Changes()
	if len(changes) != 1 {
		t.Fatalf("raised %d events", len(changes))
	}
	e := changes[0].(settings.WithdrawalFeeChanged)
	if e.Reason != "Network fees went up" || !e.Flat.Equal(money.MustParse("2")) || !e.At.Equal(at) {
		t.Fatalf("event: %+v", e)
	}
	var v settings.Values
	if section, ok := settings.Fold(&v, aggregate.Event(e)); !ok || section != settings.SectionWithdrawalFee || !v.WithdrawalFee.Equal(next) {
		t.Fatalf("fold: %v %v %+v", section, ok, v.WithdrawalFee)
	}
	if err := s.ChangeSupport(settings.Support{Email: "a@example.com"}, settings.Support{Email: "help@example.com"}, "New inbox", at); err != nil {
		t.Fatal(err)
	}
	if err := s.ChangeSupport(settings.Support{}, settings.Support{Email: "nope"}, "New inbox", at); fieldOf(t, err) != "email" {
		t.Fatalf("bad e-mail: %v", err)
	}
}

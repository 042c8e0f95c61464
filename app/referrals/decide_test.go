package referrals

import (
	"testing"

	"clearvest/domain/account"
	"clearvest/domain/money"
)

func TestDecide(t *testing.T) {
	first := Facts{ReferredUserID: "b", ReferrerID: "a", ReferrerOpen: true, StaffID: "s",
		Received: money.MustParse("100.00"), Minimum: money.MustParse("100.00")}
	tests := []struct {
		name string
		f    func(Facts) Facts
		want Outcome
	}{
		{"the first confirmed deposit of a referred user credits the referrer", func(f Facts) Facts { return f }, Credit},
		{"nobody referred the depositor", func(f Facts) Facts { f.ReferrerID = ""; return f }, NotReferred},
		{"a later deposit credits nothing", func(f Facts) Facts { f.EarlierQualifying = 1; return f }, NotFirst},
		{"a much later deposit credits nothing", func(f Facts) Facts { f.EarlierQualifying = 7; return f }, NotFirst},
		{"a deposit above the minimum qualifies", func(f Facts) Facts { f.Received = money.MustParse("5000.00"); return f }, Credit},
		{"a deposit a cent below the minimum credits nothing", func(f Facts) Facts { f.Received = money.MustParse("99.99"); return f }, BelowMinimum},
		{"a small deposit after the qualifying one credits nothing", func(f Facts) Facts {
			f.Received, f.EarlierQualifying = money.MustParse("10.00"), 1
			return f
		}, BelowMinimum},
		{"the referrer confirming the deposit themselves gets nothing", func(f Facts) Facts { f.StaffID = f.ReferrerID; return f }, ConfirmedByReferrer},
		{"a deposit after one the referrer confirmed is still not first", func(f Facts) Facts {
			f.EarlierQualifying = 1
			return f
		}, NotFirst},
		{"a closed referrer gets nothing", func(f Facts) Facts { f.ReferrerOpen = false; return f }, ReferrerClosed},
		{"a later deposit of a closed referrer's referral is still not first", func(f Facts) Facts {
			f.ReferrerOpen, f.EarlierQualifying = false, 2
			return f
		}, NotFirst},
		{"nobody earns a bonus for themselves", func(f Facts) Facts { f.ReferrerID = f.ReferredUserID; return f }, SelfReferral},
	}
	for _, tc := range tests {
		if got := Decide(tc.f(first)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCountQualifying(t *testing.T) {
	min := money.MustParse("100.00")
	confirmed := []account.DepositConfirmed{{Received: money.MustParse("99.99")}, {Received: money.MustParse("100.00")}, {Received: money.MustParse("30.00")}}
	if n := countQualifying(confirmed, min); n != 1 {
		t.Fatalf("countQualifying = %d, want 1 (only the deposit of at least the minimum)", n)
	}
	if n := countQualifying(confirmed[:1], min); n != 0 {
		t.Fatalf("countQualifying below the minimum = %d, want 0", n)
	}
}

package referrals

import (
	"testing"

	"clearvest/domain/account"
)

func TestDecide(t *testing.T) {
	first := Facts{ReferredUserID: "b", ReferrerID: "a", ReferrerOpen: true}
	tests := []struct {
		name string
		f    func(Facts) Facts
		want Outcome
	}{
		{"the first confirmed deposit of a referred user credits the referrer", func(f Facts) Facts { return f }, Credit},
		{"nobody referred the depositor", func(f Facts) Facts { f.ReferrerID = ""; return f }, NotReferred},
		{"a later deposit credits nothing", func(f Facts) Facts { f.EarlierConfirmed = 1; return f }, NotFirst},
		{"a much later deposit credits nothing", func(f Facts) Facts { f.EarlierConfirmed = 7; return f }, NotFirst},
		{"a closed referrer gets nothing", func(f Facts) Facts { f.ReferrerOpen = false; return f }, ReferrerClosed},
		{"a later deposit of a closed referrer's referral is still not first", func(f Facts) Facts {
			f.ReferrerOpen, f.EarlierConfirmed = false, 2
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

func TestCountConfirmed(t *testing.T) {
	types := []string{account.TypeDepositRequested, account.TypeDepositRejected, account.TypeDepositRequested,
		account.TypeDepositConfirmed, account.TypeDepositRequested}
	if n := countConfirmed(types); n != 1 {
		t.Fatalf("countConfirmed = %d, want 1 (a rejection is not a confirmation)", n)
	}
	if n := countConfirmed(types[:3]); n != 0 {
		t.Fatalf("countConfirmed before any confirmation = %d, want 0", n)
	}
}

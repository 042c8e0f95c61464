package community_test

import (
	"testing"

	"clearvest/app/community"
	"clearvest/projections/activity"
)

func TestDisplayName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"Ada Lovelace":             "Ada L.",
		"  grace brewster hopper ": "grace H.",
		"Plato":                    "Plato",
		"Émile ørsted":             "Émile Ø.",
		"":                         "",
	} {
		if got := community.DisplayName(name); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestActivityMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ kind, plan, country, want string }{
		{activity.KindInvestmentStarted, "Standard", "DE", "An investor from Germany started a Standard plan"},
		{activity.KindInvestmentStarted, "", "DE", "An investor from Germany started a plan"},
		{activity.KindInvestmentRenewed, "Basic", "", "An investor renewed a Basic plan"},
		{activity.KindInvestmentMatured, "Elite", "XX", "An investor completed an Elite plan"},
		{activity.KindDepositConfirmed, "", "JP", "An investor from Japan funded their wallet"},
		{"something_else", "", "JP", ""},
	} {
		if got := community.ActivityMessage(tc.kind, tc.plan, tc.country); got != tc.want {
			t.Errorf("ActivityMessage(%s, %q, %q) = %q, want %q", tc.kind, tc.plan, tc.country, got, tc.want)
		}
	}
}

package account_test

import (
	"testing"

	"clearvest/domain/account"
)

func TestReinvestFactsApplyTheRulesOfANewInvestment(t *testing.T) {
	t.Parallel()
	ok := account.ReinvestFacts{PlanActive: true, Min: m("100"), Max: m("1000"), IdentityApproved: true, AccountActive: true}
	inv := account.Investment{Terms: basic()}
	for _, tc := range []struct {
		name   string
		change func(*account.ReinvestFacts)
		amount string
		want   string
	}{
		{"every rule met", func(*account.ReinvestFacts) {}, "253.13", ""},
		{"at the maximum", func(*account.ReinvestFacts) {}, "1000", ""},
		{"account suspended or closed", func(f *account.ReinvestFacts) { f.AccountActive = false }, "253.13",
			"It was not reinvested as you asked: your account is not active."},
		{"identity check not approved", func(f *account.ReinvestFacts) { f.IdentityApproved = false }, "253.13",
			"It was not reinvested as you asked: investing needs a verified e-mail address and an approved identity check."},
		{"plan withdrawn", func(f *account.ReinvestFacts) { f.PlanActive = false }, "253.13",
			"It was not reinvested as you asked: the Basic plan is no longer offered."},
		{"above the plan's current maximum", func(f *account.ReinvestFacts) { f.Max = m("250") }, "253.13",
			"It was not reinvested as you asked: $253.13 is above the maximum of the Basic plan ($250.00)."},
		{"below the plan's current minimum", func(f *account.ReinvestFacts) { f.Min = m("500") }, "253.13",
			"It was not reinvested as you asked: $253.13 is below the minimum of the Basic plan ($500.00)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := ok
			tc.change(&f)
			if got := f.Refusal(inv, m(tc.amount)); got != tc.want {
				t.Errorf("refusal %q\nwant      %q", got, tc.want)
			}
		})
	}
}

// TestARefusedReinvestmentPaysOut matures an investment with the reinvest instruction that a
// rule refuses: the payout stays in the available balance, the event says why, and no new
// investment starts.
func TestARefusedReinvestmentPaysOut(t *testing.T) {
	t.Parallel()
	end := t1.AddDate(0, 0, 30)
	given := history(funded(), invRequested("i1", "250"), invActivated("i1", "250", "3.13"),
		account.InvestmentInstructionSet{InvestmentID: "i1", Instruction: account.InstructionReinvest, At: t1})
	refuse := account.ReinvestFacts{PlanActive: false, AccountActive: true, IdentityApproved: true}.Refusal
	a := accounts.Given(given...).
		When(func(a *account.Account) error { return a.MatureDueChecked(end, refuse) }).
		Then(t, account.InvestmentMatured{InvestmentID: "i1", Principal: m("250"), Return: m("3.13"), At: end,
			ReinvestRefused: "It was not reinvested as you asked: the Basic plan is no longer offered."})
	wantBalances(t, a, "503.13", "0", "0", "3.13", "0", "0")
	if inv, _ := a.Investment("i1"); inv.ReinvestedAs != "" || inv.ReinvestRefused == "" {
		t.Errorf("investment after a refused reinvestment: %+v", inv)
	}

	allow := account.ReinvestFacts{PlanActive: true, Min: m("100"), Max: m("1000"), AccountActive: true, IdentityApproved: true}.Refusal
	a = accounts.Given(given...).When(func(a *account.Account) error { return a.MatureDueChecked(end, allow) }).Then(t,
		account.InvestmentMatured{InvestmentID: "i1", Principal: m("250"), Return: m("3.13"), At: end},
		account.InvestmentReinvested{InvestmentID: "i1", NewInvestmentID: account.ReinvestmentID("i1"), Terms: basic(),
			Amount: m("253.13"), Return: m("3.16"), Start: end, End: end.AddDate(0, 0, 30)})
	if inv, _ := a.Investment("i1"); inv.ReinvestedAs == "" {
		t.Errorf("an allowed reinvestment did not happen: %+v", inv)
	}
}

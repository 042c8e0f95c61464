package ledger_test

import (
	"testing"
	"time"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/ledger"
	"clearvest/domain/money"
)

const user = "u-7"

func m(s string) money.Money { return money.MustParse(s) }

func acct(book string) ledger.Account { return ledger.UserAccount(user, book) }

func TestPostingsPerEvent(t *testing.T) {
	t.Parallel()
	type line struct {
		account ledger.Account
		amount  string
	}
	avail, held, invested := acct(ledger.BookAvailable), acct(ledger.BookHeld), acct(ledger.BookInvested)
	tests := []struct {
		event aggregate.Event
		want  []line
	}{
		{account.DepositRequested{DepositID: "d", Amount: m("10")}, nil},
		{account.DepositConfirmed{DepositID: "d", Received: m("9.99")}, []line{{ledger.Custody, "-9.99"}, {avail, "9.99"}}},
		{account.DepositRejected{DepositID: "d"}, nil},
		{account.InvestmentRequested{InvestmentID: "i", Amount: m("100")}, []line{{avail, "-100"}, {held, "100"}}},
		{account.InvestmentActivated{InvestmentID: "i", Amount: m("100"), Return: m("1.25")}, []line{{held, "-100"}, {invested, "100"}}},
		{account.InvestmentRejected{InvestmentID: "i", Amount: m("100")}, []line{{held, "-100"}, {avail, "100"}}},
		{account.InvestmentMatured{InvestmentID: "i", Principal: m("100"), Return: m("1.25")}, []line{{invested, "-100"}, {ledger.ReturnsExpense, "-1.25"}, {avail, "101.25"}}},
		{account.WithdrawalRequested{WithdrawalID: "w", Amount: m("50"), Fee: m("2")}, []line{{avail, "-50"}, {held, "50"}}},
		{account.WithdrawalApproved{WithdrawalID: "w", Amount: m("50"), Fee: m("2")}, []line{{held, "-50"}, {ledger.Payouts, "48"}, {ledger.FeeIncome, "2"}}},
		{account.WithdrawalRejected{WithdrawalID: "w", Amount: m("50")}, []line{{held, "-50"}, {avail, "50"}}},
		{account.InvestmentInstructionSet{InvestmentID: "i", Instruction: account.InstructionReinvest}, nil},
		{account.InvestmentReinvested{InvestmentID: "i", NewInvestmentID: "j", Amount: m("101.5"), Return: m("1.52")}, []line{{avail, "-101.5"}, {invested, "101.5"}}},
		{account.InvestmentRedeemed{InvestmentID: "i", Principal: m("100"), Forfeited: m("1.5")}, []line{{invested, "-100"}, {avail, "100"}}},
		{account.FeeWaived{WithdrawalID: "w", Amount: m("1.5")}, []line{{ledger.FeeIncome, "-1.5"}, {avail, "1.5"}}},
		{account.ReferralBonusCredited{ReferredUserID: "x", Amount: m("5")}, []line{{ledger.ReferralExpense, "-5"}, {avail, "5"}}},
		{account.AdjustmentPosted{AdjustmentID: "a", Amount: m("-3")}, []line{{ledger.Adjustments, "3"}, {avail, "-3"}}},
		{account.FeeExemptionSet{Exempt: true, Reason: "r"}, nil},
		{account.DepositLinkedToChain{DepositID: "d1", ChainDepositID: "c1"}, nil},
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.event.EventName()] = true
		got := ledger.Postings(user, tc.event)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d postings %+v, want %d", tc.event.EventName(), len(got), got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if got[i].Account != w.account || !got[i].Amount.Equal(m(w.amount)) || got[i].User != user {
				t.Errorf("%s posting %d = %+v, want %s %s", tc.event.EventName(), i, got[i], w.account, w.amount)
			}
		}
		if !ledger.Sum(got).IsZero() {
			t.Errorf("%s: postings sum to %s", tc.event.EventName(), ledger.Sum(got))
		}
	}
	for _, e := range account.Events() {
		if !covered[e.EventName()] {
			t.Errorf("no posting case for %s: every money event needs its row here and in docs/money.md", e.EventName())
		}
	}
}

func TestPostingsOfOtherEvents(t *testing.T) {
	t.Parallel()
	type other struct{ aggregate.Event }
	if ps := ledger.Postings(user, other{}); ps != nil {
		t.Errorf("a non-money event has postings %+v", ps)
	}
}

func TestAccountNames(t *testing.T) {
	t.Parallel()
	a := ledger.UserAccount("0191-ab", ledger.BookHeld)
	if a != "user:0191-ab:held" {
		t.Errorf("name %q", a)
	}
	if id, book, ok := a.User(); !ok || id != "0191-ab" || book != ledger.BookHeld {
		t.Errorf("User() = %q, %q, %v", id, book, ok)
	}
	for _, p := range ledger.PlatformAccounts {
		if _, _, ok := p.User(); ok {
			t.Errorf("%s is taken for a user account", p)
		}
	}
}

func TestTrialBalance(t *testing.T) {
	t.Parallel()
	tb := ledger.NewTrialBalance()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range []aggregate.Event{
		account.DepositConfirmed{DepositID: "d", Received: m("100"), At: at},
		account.WithdrawalRequested{WithdrawalID: "w", Amount: m("100"), Fee: m("1"), At: at},
		account.WithdrawalApproved{WithdrawalID: "w", Amount: m("100"), Fee: m("1"), At: at},
	} {
		tb.Post(ledger.Postings(user, e))
	}
	if !tb.Balanced() || len(tb.WentNegative()) != 0 {
		t.Fatalf("balanced %v, negative %v", tb.Balanced(), tb.WentNegative())
	}
	for a, want := range map[ledger.Account]string{
		ledger.Custody: "-100", ledger.Payouts: "99", ledger.FeeIncome: "1",
		acct(ledger.BookAvailable): "0", acct(ledger.BookHeld): "0",
	} {
		if got := tb.Balance(a); !got.Equal(m(want)) {
			t.Errorf("%s = %s, want %s", a, got, want)
		}
	}
	if got := len(tb.Accounts()); got != 5 {
		t.Errorf("%d accounts: %v", got, tb.Accounts())
	}

	// A set that does not sum to zero is reported, and so is a user account below zero even
	// when a later set brings it back.
	tb.Post([]ledger.Posting{{Account: acct(ledger.BookAvailable), Amount: m("-0.01"), User: user}})
	tb.Post([]ledger.Posting{{Account: acct(ledger.BookAvailable), Amount: m("0.01"), User: user}, {Account: ledger.Custody, Amount: m("-0.01"), User: user}})
	if tb.Balanced() || len(tb.Unbalanced()) != 1 || tb.Unbalanced()[0] != 3 {
		t.Errorf("balanced %v, unbalanced %v", tb.Balanced(), tb.Unbalanced())
	}
	if neg := tb.WentNegative(); len(neg) != 1 || neg[0] != acct(ledger.BookAvailable) {
		t.Errorf("went negative %v", neg)
	}
}

func TestFigures(t *testing.T) {
	t.Parallel()
	a := account.New(user)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	staff := "s"
	terms := account.Terms{PlanID: "p", PlanVersion: 1, PlanName: "P", TermDays: 10, TermRate: "0.0125", Min: m("1"), Max: m("1000")}
	steps := []func() error{
		func() error {
			return a.RequestDeposit(account.DepositRequest{DepositID: "d", TransactionID: "T", Amount: m("500"), Asset: "USDT", Network: "TRC20", OnChainAmount: "500", USDRate: "1"}, at)
		},
		func() error { return a.ConfirmDeposit("d", m("500"), "", staff, at) },
		func() error { return a.RequestInvestment("i", terms, m("250"), at) },
		func() error { return a.ActivateInvestment("i", staff, at) },
		func() error { return a.MatureDue(at.AddDate(0, 0, 10)) },
		func() error {
			return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: "w", Amount: m("100"), Fee: m("3"), Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT"}, at)
		},
		func() error {
			return a.ApproveWithdrawal("w", account.Payout{TxHash: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"}, staff, at)
		},
		func() error { return a.WaiveFee("w", m("1"), "goodwill", staff, at) },
		func() error { return a.CreditReferralBonus("friend", m("5"), at) },
		func() error {
			return a.PostAdjustment(account.Adjustment{AdjustmentID: "a", Amount: m("-2"), Category: account.CategoryCorrection, Reason: "r"}, staff, at)
		},
		func() error {
			return a.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: "w2", Amount: m("10"), Fee: m("0"), Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT"}, at)
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	var ps []ledger.Posting
	for _, e := range a.Changes() {
		ps = append(ps, ledger.Postings(user, e)...)
	}
	// Another user's postings are left out.
	ps = append(ps, ledger.Postings("someone-else", account.AdjustmentPosted{Amount: m("1000")})...)
	got := ledger.Figures(user, ps)
	want := account.Balances{
		Available: m("397.12"), Held: m("10"), Invested: m("0"), Returns: m("3.12"), Fees: m("2"),
		Adjustments: m("-2"), Referrals: m("5"),
	}
	if !got.Equal(want) || !got.Equal(a.Balances()) {
		t.Errorf("figures %+v\nwant     %+v\naggregate %+v", got, want, a.Balances())
	}
}

package account_test

import (
	"errors"
	"strings"
	"testing"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
)

// replay runs events through account.Replay as versions 1, 2, ... and returns every refusal,
// the end of the stream included.
func replay(t *testing.T, events ...aggregate.Event) []*account.RuleBroken {
	t.Helper()
	r := account.NewReplay(userID)
	var out []*account.RuleBroken
	add := func(err error) {
		if err == nil {
			return
		}
		var b *account.RuleBroken
		if !errors.As(err, &b) {
			t.Fatalf("refusal %v is not a *account.RuleBroken", err)
		}
		out = append(out, b)
	}
	for i, e := range events {
		add(r.Next(int64(i+1), e))
	}
	add(r.Finish(int64(len(events))))
	return out
}

// wantRefused requires exactly one refusal, of the event at version, naming rule (and, when
// given, detail within its message).
func wantRefused(t *testing.T, got []*account.RuleBroken, version int64, rule, detail string) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("refusals = %v, want one of version %d breaking %q", got, version, rule)
	}
	b := got[0]
	if b.Version != version || b.Rule != rule || !strings.Contains(b.Error(), detail) {
		t.Errorf("refusal = %q (version %d, rule %q), want version %d, rule %q, mentioning %q", b, b.Version, b.Rule, version, rule, detail)
	}
}

const (
	ruleFields = "an event carries what the rules derive from the state before it"
	ruleFollow = "a maturity with the reinvest instruction is followed by its reinvestment"
)

// A history the commands themselves produced, with every kind of event, replays without a
// refusal: the audit accepts what the rules make.
func TestReplayAcceptsWhatTheCommandsRaise(t *testing.T) {
	t.Parallel()
	a := account.New(userID)
	end := t1.AddDate(0, 0, 30)
	steps := []func() error{
		func() error { return a.RequestDeposit(depositReq(), t0) },
		func() error { return a.ConfirmDeposit("d1", m("499.37"), "exchange fee", staffID, t0) },
		func() error { return a.RequestInvestment("i1", basic(), m("250"), t0) },
		func() error { return a.SetMaturityInstruction("i1", account.InstructionReinvest, t0) },
		func() error { return a.ActivateInvestment("i1", staffID, t1) },
		func() error { return a.RequestInvestment("i2", basic(), m("100"), t0) },
		func() error { return a.RejectInvestment("i2", "not now", staffID, t1) },
		func() error { return a.MatureDue(end.AddDate(0, 0, 45)) }, // i1 matures, its reinvestment too
		func() error { return a.RequestWithdrawal(wdReq("w1", "100", "1.50"), t1) },
		func() error { return a.ApproveWithdrawal("w1", account.Payout{TxHash: payHash}, staffID, t1) },
		func() error { return a.WaiveFee("w1", m("1"), "sorry", staffID, t1) },
		func() error { return a.RequestWithdrawal(wdReq("w2", "10", "0"), t1) },
		func() error { return a.RejectWithdrawal("w2", "address unsure", staffID, t1) },
		func() error { return a.CreditReferralBonus(friend, m("5"), t1) },
		func() error {
			return a.PostAdjustment(account.Adjustment{AdjustmentID: "adj1", Amount: m("-2"), Category: account.CategoryCorrection, Reason: "double credit"}, staffID, t1)
		},
		func() error {
			return a.RequestDeposit(account.DepositRequest{DepositID: "d2", TransactionID: "TX-2", Amount: m("5"), Asset: "USDT", Network: "TRC20", OnChainAmount: "5", USDRate: "1"}, t1)
		},
		func() error { return a.RejectDeposit("d2", "nothing arrived", staffID, t1) },
		func() error { return a.RequestInvestment("i3", basic(), m("100"), t1) },
		func() error { return a.ActivateInvestment("i3", staffID, t1) },
		func() error { return a.RedeemEarly("i3", t1.AddDate(0, 0, 1)) },
		// A deposit the chain watcher saw and credited, at a rate of a moment with nanoseconds.
		func() error {
			r := depositReq()
			r.DepositID, r.TransactionID = "c1", "DEP-CHAIN"
			return a.RecordChainDeposit(r, t1)
		},
		func() error { return a.ConfirmChainDeposit("c1", m("499.90"), "1", t1.Add(123456789), 3, t1) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	events := a.Changes()
	if got := replay(t, events...); len(got) > 0 {
		t.Fatalf("a history the commands raised is refused: %v", got)
	}
	r := account.NewReplay(userID)
	for i, e := range events {
		_ = r.Next(int64(i+1), e)
	}
	if !r.Account().Balances().Equal(a.Balances()) {
		t.Errorf("replayed balances %+v, live %+v", r.Account().Balances(), a.Balances())
	}
}

func TestReplayRefusesDeposits(t *testing.T) {
	t.Parallel()
	t.Run("confirmed twice", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, depositRequested(), confirmed("500"), confirmed("500")),
			3, "a deposit is confirmed or rejected once", "")
	})
	t.Run("rejected after it was confirmed", func(t *testing.T) {
		t.Parallel()
		rejected := account.DepositRejected{DepositID: "d1", StaffID: staffID, At: t0}
		wantRefused(t, replay(t, depositRequested(), confirmed("500"), rejected),
			3, "a deposit is confirmed or rejected once", "")
	})
	t.Run("confirmed but never requested", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, confirmed("500")), 1, "a deposit is decided only after it was requested", "")
	})
	t.Run("confirmed by the account's own user", func(t *testing.T) {
		t.Parallel()
		own := confirmed("500")
		own.StaffID = userID
		wantRefused(t, replay(t, depositRequested(), own), 2, "staff never decide or correct money on their own account", "")
	})
	t.Run("confirmed for nothing", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, depositRequested(), confirmed("0")), 2, "every input is valid: Amount must be greater than zero", "")
	})
	t.Run("the same transaction id twice", func(t *testing.T) {
		t.Parallel()
		again := depositRequested()
		again.DepositID = "d2"
		wantRefused(t, replay(t, depositRequested(), again), 2, "a deposit's transaction id is used once", "")
	})
}

func TestReplayRefusesHolds(t *testing.T) {
	t.Parallel()
	requested := history(funded(), invRequested("i1", "250"))
	t.Run("an investment's hold settled twice", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, history(requested, invActivated("i1", "250", "3.12"), invActivated("i1", "250", "3.12"))...),
			5, "an investment's hold is settled or released once", "")
	})
	t.Run("an investment's hold settled after it was released", func(t *testing.T) {
		t.Parallel()
		rejected := account.InvestmentRejected{InvestmentID: "i1", Amount: m("250"), Reason: "no", StaffID: staffID, At: t1}
		wantRefused(t, replay(t, history(requested, rejected, invActivated("i1", "250", "3.12"))...),
			5, "an investment's hold is settled or released once", "")
	})
	t.Run("a withdrawal's hold settled twice", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, history(funded(), wdRequested("w1", "100", "1"), wdApproved("w1", "100", "1"), wdApproved("w1", "100", "1"))...),
			5, "a withdrawal's hold is settled or released once", "")
	})
	t.Run("a hold settled for more than it holds", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, history(funded(), wdRequested("w1", "100", "1"), wdApproved("w1", "150", "1"))...),
			4, ruleFields, "amount is 150.00, the rules give 100.00")
	})
	t.Run("a hold larger than the available balance", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, history(funded(), wdRequested("w1", "500.01", "1"))...),
			3, "a hold never exceeds the available balance", "Insufficient balance: $500.00 is available")
	})
	t.Run("a withdrawal approved by its own user", func(t *testing.T) {
		t.Parallel()
		own := wdApproved("w1", "100", "1")
		own.StaffID = userID
		wantRefused(t, replay(t, history(funded(), wdRequested("w1", "100", "1"), own)...),
			4, "staff never decide or correct money on their own account", "")
	})
	t.Run("a fee waived beyond what was charged", func(t *testing.T) {
		t.Parallel()
		waived := account.FeeWaived{WithdrawalID: "w1", Amount: m("2"), Reason: "sorry", StaffID: staffID, At: t1}
		wantRefused(t, replay(t, history(funded(), wdRequested("w1", "100", "1"), wdApproved("w1", "100", "1"), waived)...),
			5, "a fee is waived at most up to what was charged", "1.00 can still be waived")
	})
}

func TestReplayRefusesMaturities(t *testing.T) {
	t.Parallel()
	end := t1.AddDate(0, 0, 30)
	active := history(funded(), invRequested("i1", "250"), invActivated("i1", "250", "3.12"))
	matured := account.InvestmentMatured{InvestmentID: "i1", Principal: m("250"), Return: m("3.12"), At: end}
	t.Run("a return other than the terms give, fixed at activation", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, history(funded(), invRequested("i1", "250"), invActivated("i1", "250", "6.24"))...),
			4, ruleFields, "return is 6.24, the rules give 3.12")
	})
	t.Run("a maturity paying a return other than the one fixed", func(t *testing.T) {
		t.Parallel()
		doubled := matured
		doubled.Return = m("6.24")
		wantRefused(t, replay(t, history(active, doubled)...), 5, ruleFields, "return is 6.24, the rules give 3.12")
	})
	t.Run("a maturity paid twice", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, history(active, matured, matured)...), 6, "only an active investment matures or is redeemed, once", "")
	})
	t.Run("a maturity before the end", func(t *testing.T) {
		t.Parallel()
		early := matured
		early.At = end.Add(-1)
		wantRefused(t, replay(t, history(active, early)...), 5, "an investment matures on or after its end", "")
	})
	t.Run("a term that does not match the plan's", func(t *testing.T) {
		t.Parallel()
		long := invActivated("i1", "250", "3.12")
		long.End = long.End.AddDate(0, 0, 1)
		wantRefused(t, replay(t, history(funded(), invRequested("i1", "250"), long)...), 4, ruleFields, "end is")
	})
	t.Run("a reinvestment nobody asked for", func(t *testing.T) {
		t.Parallel()
		re := account.InvestmentReinvested{
			InvestmentID: "i1", NewInvestmentID: account.ReinvestmentID("i1"), Terms: basic(), Amount: m("253.12"),
			Return: m("3.16"), Start: end, End: end.AddDate(0, 0, 30),
		}
		wantRefused(t, replay(t, history(active, matured, re)...), 6,
			"every input is valid: "+account.ErrReinvestmentAlone.Error(), "")
	})
	t.Run("a reinvestment missing after its maturity", func(t *testing.T) {
		t.Parallel()
		ins := account.InvestmentInstructionSet{InvestmentID: "i1", Instruction: account.InstructionReinvest, At: t1}
		wantRefused(t, replay(t, history(active, ins, matured)...), 6, ruleFollow, "account.investment_reinvested")
	})
	t.Run("a reinvestment of more than the payout", func(t *testing.T) {
		t.Parallel()
		ins := account.InvestmentInstructionSet{InvestmentID: "i1", Instruction: account.InstructionReinvest, At: t1}
		re := account.InvestmentReinvested{
			InvestmentID: "i1", NewInvestmentID: account.ReinvestmentID("i1"), Terms: basic(), Amount: m("263.12"),
			Return: m("3.29"), Start: end, End: end.AddDate(0, 0, 30),
		}
		wantRefused(t, replay(t, history(active, ins, matured, re)...), 7, ruleFields, "amount is 263.12, the rules give 253.12")
	})
}

func TestReplayRefusesBonusesAndCorrections(t *testing.T) {
	t.Parallel()
	bonus := account.ReferralBonusCredited{ReferredUserID: friend, Amount: m("5"), At: t0}
	t.Run("a referral bonus credited twice", func(t *testing.T) {
		t.Parallel()
		wantRefused(t, replay(t, bonus, bonus), 2, "a referral bonus is credited once per referred user", "")
	})
	t.Run("a correction posted by the account's own user", func(t *testing.T) {
		t.Parallel()
		adj := account.AdjustmentPosted{AdjustmentID: "a1", Amount: m("10"), Category: account.CategoryOther, Reason: "gift", StaffID: userID, At: t0}
		wantRefused(t, replay(t, adj), 1, "staff never decide or correct money on their own account", "")
	})
	t.Run("a correction below zero", func(t *testing.T) {
		t.Parallel()
		adj := account.AdjustmentPosted{AdjustmentID: "a1", Amount: m("-10"), Category: account.CategoryChargeback, Reason: "take back", StaffID: staffID, At: t0}
		wantRefused(t, replay(t, adj), 1, "a correction never makes the available balance negative", "")
	})
	t.Run("the refusal names the version, the type and the rule", func(t *testing.T) {
		t.Parallel()
		got := replay(t, bonus, bonus)
		want := "version 2, account.referral_bonus_credited breaks the rule: a referral bonus is credited once per referred user"
		if len(got) != 1 || got[0].Error() != want {
			t.Errorf("refusals = %v, want %q", got, want)
		}
	})
}

// Check asks without changing: the account after a Check is the account before it.
func TestCheckChangesNothing(t *testing.T) {
	t.Parallel()
	a := account.New(userID)
	aggregate.Load(a, 2, funded()...)
	before := a.Balances()
	raised, err := a.Check(wdRequested("w1", "100", "1"))
	if err != nil || len(raised) != 1 {
		t.Fatalf("Check = %v, %v; want the request", raised, err)
	}
	if !a.Balances().Equal(before) || len(a.Changes()) != 0 || len(a.Withdrawals()) != 0 {
		t.Errorf("Check changed the account: %+v, %d changes, %v", a.Balances(), len(a.Changes()), a.Withdrawals())
	}
}

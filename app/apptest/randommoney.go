package apptest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/eventstore"
)

// RandomMoney runs steps random money commands on the accounts of users new investors, through
// the command runner, and returns the users. Each step picks, for a user chosen at random, one of
// the things the account allows at that moment (a deposit requested, confirmed, rejected or
// linked to the chain; an investment requested, activated, rejected, told to reinvest, matured
// or closed early; a withdrawal requested, approved, rejected or its fee waived; a bonus, an
// adjustment, a fee exemption), so that every kind of money event occurs in an order the product
// could write, decisions often several batches after their requests. The same seed gives the
// same choices.
func RandomMoney(t *testing.T, a *MoneyApp, users, steps int, seed uint64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	ids := make([]string, users)
	for i := range ids {
		ids[i] = eventstore.NewEventID().String()
	}
	staff := eventstore.NewEventID().String()
	terms := account.Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Basic", TermDays: 10, TermRate: "0.0125",
		Min: money.MustParse("100"), Max: money.MustParse("1000")}
	start := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	cents := func(lo, hi int64) money.Money {
		c := lo*100 + rng.Int64N((hi-lo)*100+1)
		return money.MustParse(fmt.Sprintf("%d.%02d", c/100, c%100))
	}
	for step := range steps {
		at := start.Add(time.Duration(step) * 6 * time.Hour)
		user := ids[rng.IntN(users)]
		n := step
		a.Do(t, user, func(acc *account.Account) error {
			id := func(kind string) string { return fmt.Sprintf("%s%d", kind, n) }
			var pendingDeposits, pendingInvestments, active, pendingWithdrawals, approved []string
			for _, d := range acc.Deposits() {
				if d.Status == account.StatusPending {
					pendingDeposits = append(pendingDeposits, d.ID)
				}
			}
			for _, inv := range acc.Investments() {
				switch inv.Status {
				case account.StatusPending:
					pendingInvestments = append(pendingInvestments, inv.ID)
				case account.StatusActive:
					if inv.End.After(at) { // a due one only matures
						active = append(active, inv.ID)
					}
				}
			}
			for _, w := range acc.Withdrawals() {
				switch {
				case w.Status == account.StatusPending:
					pendingWithdrawals = append(pendingWithdrawals, w.ID)
				case w.Status == account.StatusApproved && w.FeeWaived.LessThan(w.Fee):
					approved = append(approved, w.ID)
				}
			}
			pick := func(ids []string) string { return ids[rng.IntN(len(ids))] }
			avail := acc.Available()
			hundred := money.MustParse("100")
			// Candidates in a random order; the first the account allows is taken, and a deposit
			// request, always allowed, is also the last resort.
			deposit := func() error {
				return acc.RequestDeposit(account.DepositRequest{DepositID: id("d"), TransactionID: fmt.Sprintf("DEP-%08d", n),
					Amount: cents(100, 1000), Asset: "USDT", Network: "TRC20", OnChainAmount: "100", USDRate: "1"}, at)
			}
			actions := []func() (bool, error){
				func() (bool, error) { return true, deposit() },
				func() (bool, error) {
					if len(pendingDeposits) == 0 {
						return false, nil
					}
					dep, _ := acc.Deposit(pick(pendingDeposits))
					switch _, chain := acc.ChainLinked("c" + dep.ID); {
					case chain && rng.IntN(8) == 0:
						return true, acc.RejectChainDeposit(dep.ID, "the transfer left the chain", at)
					case chain:
						return true, acc.ConfirmChainDeposit(dep.ID, dep.Amount, "1", at, 20, at)
					case rng.IntN(8) == 0:
						return true, acc.RejectDeposit(dep.ID, "nothing arrived", staff, at)
					}
					return true, acc.ConfirmDeposit(dep.ID, dep.Amount.Sub(cents(0, 1)), "", staff, at)
				},
				func() (bool, error) {
					if len(pendingDeposits) == 0 || rng.IntN(3) != 0 {
						return false, nil
					}
					d := pick(pendingDeposits)
					if _, linked := acc.ChainLinked("c" + d); linked {
						return false, nil
					}
					return true, acc.LinkDepositToChain(d, account.ChainLink{ChainDepositID: "c" + d,
						TxHash: fmt.Sprintf("%064x", n), Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Asset: "USDT", OnChainAmount: "1"}, at)
				},
				func() (bool, error) {
					if avail.LessThan(hundred) {
						return false, nil
					}
					amount := cents(100, 1000)
					if avail.LessThan(amount) {
						amount = avail
					}
					return true, acc.RequestInvestment(id("i"), terms, amount, at)
				},
				func() (bool, error) {
					if len(pendingInvestments) == 0 {
						return false, nil
					}
					if rng.IntN(6) == 0 {
						return true, acc.RejectInvestment(pick(pendingInvestments), "plan closed", staff, at)
					}
					return true, acc.ActivateInvestment(pick(pendingInvestments), staff, at)
				},
				func() (bool, error) {
					if len(acc.Due(at)) == 0 {
						return false, nil
					}
					return true, acc.MatureDue(at)
				},
				func() (bool, error) {
					if len(active) == 0 {
						return false, nil
					}
					inv, _ := acc.Investment(pick(active))
					if rng.IntN(2) == 0 && inv.Instruction != account.InstructionReinvest {
						return true, acc.SetMaturityInstruction(inv.ID, account.InstructionReinvest, at)
					}
					return true, acc.RedeemEarly(inv.ID, at)
				},
				func() (bool, error) {
					if avail.LessThan(hundred) {
						return false, nil
					}
					amount := cents(50, 100)
					fee := money.MustParse("3")
					if rng.IntN(4) == 0 {
						fee = money.Zero
					}
					return true, acc.RequestWithdrawal(account.WithdrawalRequest{WithdrawalID: id("w"), Amount: amount, Fee: fee,
						Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT"}, at)
				},
				func() (bool, error) {
					if len(pendingWithdrawals) == 0 {
						return false, nil
					}
					if rng.IntN(5) == 0 {
						return true, acc.RejectWithdrawal(pick(pendingWithdrawals), "address on hold", staff, at)
					}
					return true, acc.ApproveWithdrawal(pick(pendingWithdrawals), account.Payout{TxHash: fmt.Sprintf("%064x", n+1)}, staff, at)
				},
				func() (bool, error) {
					if len(approved) == 0 {
						return false, nil
					}
					w, _ := acc.Withdrawal(pick(approved))
					return true, acc.WaiveFee(w.ID, w.Fee.Sub(w.FeeWaived), "goodwill", staff, at)
				},
				func() (bool, error) {
					switch rng.IntN(3) {
					case 0:
						return true, acc.CreditReferralBonus(eventstore.NewEventID().String(), cents(5, 20), at)
					case 1:
						amount := cents(1, 20)
						if rng.IntN(2) == 0 && !avail.LessThan(amount) {
							amount = amount.Neg()
						}
						return true, acc.PostAdjustment(account.Adjustment{AdjustmentID: id("a"), Amount: amount,
							Category: account.CategoryCorrection, Reason: "correction"}, staff, at)
					default:
						return true, acc.SetFeeExemption(!acc.FeeExempt(), "partner", staff, at)
					}
				},
			}
			rng.Shuffle(len(actions), func(i, j int) { actions[i], actions[j] = actions[j], actions[i] })
			for _, act := range actions {
				if ok, err := act(); ok {
					return err
				}
			}
			return deposit()
		})
	}
	return ids
}

package account

import (
	"fmt"
	"strings"

	"clearvest/domain/domainerr"
	"clearvest/domain/money"
)

// ErrHoldsMoney refuses to close an account that still holds money: a closed account can no
// longer sign in, so whatever it held would be stranded. Holdings.Refusal words the message
// with the figures.
var ErrHoldsMoney = domainerr.Coded(domainerr.Conflict, "holds_money",
	"This account still holds money. Pay it out before closing the account.")

// Holdings is the money an account still holds for its owner: its available balance, the
// requests waiting for staff (withdrawals and investments hold money, a deposit may have been
// sent already) and its active investments.
type Holdings struct {
	Available          money.Money
	PendingWithdrawals int
	Withdrawing        money.Money
	PendingInvestments int
	InvestmentsPending money.Money
	PendingDeposits    int
	Depositing         money.Money
	ActiveInvestments  int
	Invested           money.Money
}

// Holdings reads what the account still holds.
func (a *Account) Holdings() Holdings {
	h := Holdings{Available: a.bal.Available}
	for _, w := range a.withdrawals {
		if w.Status == StatusPending {
			h.PendingWithdrawals++
			h.Withdrawing = h.Withdrawing.Add(w.Amount)
		}
	}
	for _, inv := range a.investments {
		switch inv.Status {
		case StatusPending:
			h.PendingInvestments++
			h.InvestmentsPending = h.InvestmentsPending.Add(inv.Amount)
		case StatusActive:
			h.ActiveInvestments++
			h.Invested = h.Invested.Add(inv.Amount)
		}
	}
	for _, d := range a.deposits {
		if d.Status == StatusPending {
			h.PendingDeposits++
			h.Depositing = h.Depositing.Add(d.Amount)
		}
	}
	return h
}

// Empty reports whether nothing is left: no balance (positive or owed), no request waiting and
// no active investment.
func (h Holdings) Empty() bool {
	return h.Available.IsZero() && h.PendingWithdrawals == 0 && h.PendingInvestments == 0 &&
		h.PendingDeposits == 0 && h.ActiveInvestments == 0
}

// Refusal is nil for an empty account, else ErrHoldsMoney listing what is left in plain words:
// "This account still holds money: $120.00 available, 1 withdrawal pending ($50.00), 2 active
// investments ($600.00). Pay it out before closing the account."
func (h Holdings) Refusal() error {
	if h.Empty() {
		return nil
	}
	var parts []string
	if !h.Available.IsZero() {
		parts = append(parts, h.Available.Dollars()+" available")
	}
	count := func(n int, one, many string, sum money.Money) {
		if n == 0 {
			return
		}
		noun := one
		if n > 1 {
			noun = many
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s)", n, noun, sum.Dollars()))
	}
	count(h.PendingWithdrawals, "withdrawal pending", "withdrawals pending", h.Withdrawing)
	count(h.PendingInvestments, "investment pending", "investments pending", h.InvestmentsPending)
	count(h.PendingDeposits, "deposit pending", "deposits pending", h.Depositing)
	count(h.ActiveInvestments, "active investment", "active investments", h.Invested)
	return ErrHoldsMoney.WithMessage("This account still holds money: " + strings.Join(parts, ", ") +
		". Pay it out before closing the account.")
}

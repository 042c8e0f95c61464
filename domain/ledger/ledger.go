// Package ledger is the double-entry view of the money events: every event of a user's money
// stream maps to a set of postings between that user's accounts and the platform's, and every
// set sums to zero. Summed over all events, the books must balance, no user account may ever go
// below zero, and a user's figures read from the postings must equal the aggregate's.
//
// Sign: an amount is credit-positive. A user account's balance is what the platform owes the
// user, so it is zero or more. Platform accounts carry the other side: custody is minus the
// value received from users, payouts plus the value sent back, the expense accounts minus what
// the platform has paid out of its own pocket, fee income plus what it has earned.
//
// Map (docs/money.md has the table):
//
//	deposit confirmed      custody −R                      user available +R
//	investment requested   user available −A               user held +A
//	investment activated   user held −A                    user invested +A
//	investment rejected    user held −A                    user available +A
//	investment matured     user invested −P, returns −Ret  user available +P+Ret
//	investment reinvested  user available −A               user invested +A
//	investment redeemed    user invested −P                user available +P
//	withdrawal requested   user available −A              user held +A
//	withdrawal approved    user held −A                    payouts +(A−F), fee income +F
//	withdrawal rejected    user held −A                    user available +A
//	fee waived             fee income −W                   user available +W
//	referral bonus         referral expense −B             user available +B
//	adjustment (signed S)  adjustments −S                  user available +S
//
// Deposit requests and rejections, and maturity instructions, move nothing and have no postings.
package ledger

import (
	"slices"
	"strings"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/money"
)

// Account names one account of the books: "user:<id>:available" or "platform:fee_income".
type Account string

// The user's own accounts (the last part of a user account's name).
const (
	BookAvailable = "available"
	BookHeld      = "held"
	BookInvested  = "invested"
)

// The platform's accounts.
const (
	Custody         Account = "platform:custody"          // value received from users' deposits
	Payouts         Account = "platform:payouts"          // value paid to users' wallets
	ReturnsExpense  Account = "platform:returns_expense"  // returns paid on investments
	FeeIncome       Account = "platform:fee_income"       // fees charged less fees waived
	ReferralExpense Account = "platform:referral_expense" // referral bonuses paid
	Adjustments     Account = "platform:adjustments"      // staff corrections, the other side
)

// PlatformAccounts lists the platform's accounts.
var PlatformAccounts = []Account{Custody, Payouts, ReturnsExpense, FeeIncome, ReferralExpense, Adjustments}

// UserAccount names one of a user's accounts.
func UserAccount(userID, book string) Account {
	return Account("user:" + userID + ":" + book)
}

// User splits a user account's name into the user's id and the book; ok is false for a platform
// account.
func (a Account) User() (userID, book string, ok bool) {
	rest, found := strings.CutPrefix(string(a), "user:")
	if !found {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// Posting is one line of a posting set. User is the user whose event it comes from: the owner
// of a user account, and for a platform account the user it was posted for, so that per-user
// figures (returns, fees, adjustments) can be read from the platform side.
type Posting struct {
	Account Account     `json:"account"`
	Amount  money.Money `json:"amount"`
	User    string      `json:"user"`
}

// Postings maps one event of userID's money stream to its postings. Events that move nothing
// (a deposit requested or rejected) and events that are not money events have none.
func Postings(userID string, e aggregate.Event) []Posting {
	user := func(book string, m money.Money) Posting {
		return Posting{Account: UserAccount(userID, book), Amount: m, User: userID}
	}
	platform := func(a Account, m money.Money) Posting {
		return Posting{Account: a, Amount: m, User: userID}
	}
	switch e := e.(type) {
	case account.DepositConfirmed:
		return []Posting{platform(Custody, e.Received.Neg()), user(BookAvailable, e.Received)}

	case account.InvestmentRequested:
		return []Posting{user(BookAvailable, e.Amount.Neg()), user(BookHeld, e.Amount)}
	case account.InvestmentActivated:
		return []Posting{user(BookHeld, e.Amount.Neg()), user(BookInvested, e.Amount)}
	case account.InvestmentRejected:
		return []Posting{user(BookHeld, e.Amount.Neg()), user(BookAvailable, e.Amount)}
	case account.InvestmentMatured:
		return []Posting{
			user(BookInvested, e.Principal.Neg()), platform(ReturnsExpense, e.Return.Neg()),
			user(BookAvailable, e.Principal.Add(e.Return)),
		}
	case account.InvestmentReinvested:
		return []Posting{user(BookAvailable, e.Amount.Neg()), user(BookInvested, e.Amount)}
	case account.InvestmentRedeemed:
		return []Posting{user(BookInvested, e.Principal.Neg()), user(BookAvailable, e.Principal)}

	case account.WithdrawalRequested:
		return []Posting{user(BookAvailable, e.Amount.Neg()), user(BookHeld, e.Amount)}
	case account.WithdrawalApproved:
		return []Posting{
			user(BookHeld, e.Amount.Neg()), platform(Payouts, e.Amount.Sub(e.Fee)), platform(FeeIncome, e.Fee),
		}
	case account.WithdrawalRejected:
		return []Posting{user(BookHeld, e.Amount.Neg()), user(BookAvailable, e.Amount)}
	case account.FeeWaived:
		return []Posting{platform(FeeIncome, e.Amount.Neg()), user(BookAvailable, e.Amount)}

	case account.ReferralBonusCredited:
		return []Posting{platform(ReferralExpense, e.Amount.Neg()), user(BookAvailable, e.Amount)}
	case account.AdjustmentPosted:
		return []Posting{platform(Adjustments, e.Amount.Neg()), user(BookAvailable, e.Amount)}
	}
	return nil
}

// Sum is the total of ps; a posting set must sum to zero.
func Sum(ps []Posting) money.Money {
	total := money.Zero
	for _, p := range ps {
		total = total.Add(p.Amount)
	}
	return total
}

// TrialBalance accumulates posting sets and keeps what an auditor asks of them: does every set,
// and so the whole, sum to zero, and did any user account ever go below zero.
type TrialBalance struct {
	balances   map[Account]money.Money
	total      money.Money
	sets       int
	unbalanced []int     // indexes of sets that did not sum to zero
	negative   []Account // user accounts that went below zero, in the order it happened
}

// NewTrialBalance returns empty books.
func NewTrialBalance() *TrialBalance {
	return &TrialBalance{balances: map[Account]money.Money{}}
}

// Post adds one posting set, the postings of one event.
func (tb *TrialBalance) Post(ps []Posting) {
	if sum := Sum(ps); !sum.IsZero() {
		tb.unbalanced = append(tb.unbalanced, tb.sets)
	}
	tb.sets++
	for _, p := range ps {
		bal := tb.balances[p.Account].Add(p.Amount)
		tb.balances[p.Account] = bal
		tb.total = tb.total.Add(p.Amount)
		if _, _, isUser := p.Account.User(); isUser && bal.IsNegative() && !slices.Contains(tb.negative, p.Account) {
			tb.negative = append(tb.negative, p.Account)
		}
	}
}

// Balanced reports whether every set posted so far summed to zero, and so the whole does.
func (tb *TrialBalance) Balanced() bool { return len(tb.unbalanced) == 0 && tb.total.IsZero() }

// Total is the sum of every balance: zero when the books balance.
func (tb *TrialBalance) Total() money.Money { return tb.total }

// Unbalanced lists the sets (counting from 0 in the order posted) that did not sum to zero.
func (tb *TrialBalance) Unbalanced() []int { return slices.Clone(tb.unbalanced) }

// WentNegative lists the user accounts whose balance was below zero after some set.
func (tb *TrialBalance) WentNegative() []Account { return slices.Clone(tb.negative) }

// Balance is one account's balance.
func (tb *TrialBalance) Balance(a Account) money.Money { return tb.balances[a] }

// Accounts lists every account posted to, sorted by name.
func (tb *TrialBalance) Accounts() []Account {
	out := make([]Account, 0, len(tb.balances))
	for a := range tb.balances {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Figures derives userID's dashboard figures from postings: balances from the user's own
// accounts, totals (returns, fees, adjustments, referral bonuses) from the platform side of the
// postings made for that user. Postings for other users are ignored.
func Figures(userID string, ps []Posting) account.Balances {
	var b account.Balances
	for _, p := range ps {
		if p.User != userID {
			continue
		}
		if owner, book, ok := p.Account.User(); ok {
			if owner != userID {
				continue
			}
			switch book {
			case BookAvailable:
				b.Available = b.Available.Add(p.Amount)
			case BookHeld:
				b.Held = b.Held.Add(p.Amount)
			case BookInvested:
				b.Invested = b.Invested.Add(p.Amount)
			}
			continue
		}
		switch p.Account {
		case ReturnsExpense:
			b.Returns = b.Returns.Sub(p.Amount)
		case FeeIncome:
			b.Fees = b.Fees.Add(p.Amount)
		case Adjustments:
			b.Adjustments = b.Adjustments.Sub(p.Amount)
		case ReferralExpense:
			b.Referrals = b.Referrals.Sub(p.Amount)
		}
	}
	return b
}

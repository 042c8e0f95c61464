package ledger_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/domain/account"
	"clearvest/domain/money"
)

// refModel is the money rules of docs/money.md written a second time, as plainly as possible,
// to check the aggregate against: maps, decimals and the rules' own arithmetic, sharing no code
// with domain/account (no decision method, no Apply, no rounding helper). The property test feeds
// it every command it gives the aggregate, with the same inputs, and requires after every step
// that both accepted or both refused, and that every balance is the same. A rule broken in the
// aggregate (a doubled return, half-up rounding, the declared amount credited instead of the
// received one, a second referral bonus, staff deciding their own deposit) then shows up as a
// difference, even though the aggregate's books still add up.
//
// It knows only the inputs the generator makes: ids, assets, networks, addresses, terms and
// texts are always well formed there, so those checks are left out.
type refModel struct {
	user string

	available, held, invested, returns, fees, adjustments, referrals decimal.Decimal

	ids      map[string]bool // deposit, investment and withdrawal ids: one namespace
	deposits map[string]*refDeposit
	invs     map[string]*refInvestment
	wds      map[string]*refWithdrawal
	bonuses  map[string]bool // referred users credited
	adjIDs   map[string]bool
}

type refDeposit struct {
	decided, confirmed, rejected bool
	chain                        string // the transfer it was linked to: the watcher decides it now
}

type refInvestment struct {
	key      string
	amount   decimal.Decimal
	rate     decimal.Decimal
	days     int
	min, max decimal.Decimal
	status   string // pending, active, rejected, ended
	ret      decimal.Decimal
	end      time.Time
	reinvest bool
}

type refWithdrawal struct {
	amount, fee, waived decimal.Decimal
	status              string // pending, approved, rejected
}

func newRefModel(user string) *refModel {
	return &refModel{
		user: user, ids: map[string]bool{}, deposits: map[string]*refDeposit{}, invs: map[string]*refInvestment{},
		wds: map[string]*refWithdrawal{}, bonuses: map[string]bool{}, adjIDs: map[string]bool{},
	}
}

// dec reads an amount the test handed to the aggregate as the model's decimal.
func dec(m money.Money) decimal.Decimal { return decimal.RequireFromString(m.String()) }

var (
	cent = decimal.New(1, -2)
	half = decimal.New(5, -1)
	two  = decimal.NewFromInt(2)
)

// roundHalfEven rounds a non-negative amount to the cent, a tie to the even cent.
func roundHalfEven(x decimal.Decimal) decimal.Decimal {
	cents := x.Shift(2)
	whole := cents.Floor()
	switch cents.Sub(whole).Cmp(half) {
	case 1:
		whole = whole.Add(decimal.NewFromInt(1))
	case 0:
		if !whole.Mod(two).IsZero() {
			whole = whole.Add(decimal.NewFromInt(1))
		}
	}
	return whole.Mul(cent)
}

func positive(x decimal.Decimal) bool { return x.Sign() > 0 }

// Each method answers whether the command is accepted, and changes the model only when it is.

func (m *refModel) requestDeposit(id string, amount decimal.Decimal) bool {
	if m.ids[id] || !positive(amount) {
		return false
	}
	m.ids[id], m.deposits[id] = true, &refDeposit{}
	return true
}

func (m *refModel) decideDeposit(id string, confirm bool, received decimal.Decimal, staff string) bool {
	d := m.deposits[id]
	if staff == m.user || d == nil || d.decided || d.chain != "" || (confirm && !positive(received)) {
		return false
	}
	d.decided, d.confirmed, d.rejected = true, confirm, !confirm
	if confirm {
		m.available = m.available.Add(received) // what arrived, not what was declared
	}
	return true
}

// linkDeposit links a declared deposit to the transfer chainID the watcher saw: a pending or
// confirmed one not yet linked; the same link again changes nothing. Nothing moves.
func (m *refModel) linkDeposit(id, chainID string) bool {
	d := m.deposits[id]
	if d == nil {
		return false
	}
	if d.chain == chainID {
		return true
	}
	if d.chain != "" || d.rejected {
		return false
	}
	d.chain = chainID
	return true
}

func (m *refModel) requestInvestment(id string, t account.Terms, amount decimal.Decimal) bool {
	lo, hi := dec(t.Min), dec(t.Max)
	if m.ids[id] || !positive(amount) || amount.LessThan(lo) || amount.GreaterThan(hi) || amount.GreaterThan(m.available) {
		return false
	}
	m.ids[id] = true
	m.invs[id] = &refInvestment{
		key: id, amount: amount, rate: decimal.RequireFromString(t.TermRate), days: t.TermDays, min: lo, max: hi, status: "pending",
	}
	m.available, m.held = m.available.Sub(amount), m.held.Add(amount)
	return true
}

func (m *refModel) decideInvestment(id string, activate bool, staff string, at time.Time) bool {
	inv := m.invs[id]
	if staff == m.user || inv == nil || inv.status != "pending" {
		return false
	}
	m.held = m.held.Sub(inv.amount)
	if !activate {
		inv.status, m.available = "rejected", m.available.Add(inv.amount)
		return true
	}
	inv.status, m.invested = "active", m.invested.Add(inv.amount)
	inv.ret = roundHalfEven(inv.amount.Mul(inv.rate))
	inv.end = at.AddDate(0, 0, inv.days)
	return true
}

// mature pays principal and return; with the reinvest instruction both go at once into a new
// active investment under the same terms, starting at the old end, paying out by default.
func (m *refModel) mature(inv *refInvestment) {
	inv.status = "ended"
	m.invested = m.invested.Sub(inv.amount)
	m.available = m.available.Add(inv.amount).Add(inv.ret)
	m.returns = m.returns.Add(inv.ret)
	if !inv.reinvest {
		return
	}
	amount := inv.amount.Add(inv.ret)
	next := &refInvestment{
		key: inv.key + "/reinvested", amount: amount, rate: inv.rate, days: inv.days, min: inv.min, max: inv.max,
		status: "active", ret: roundHalfEven(amount.Mul(inv.rate)), end: inv.end.AddDate(0, 0, inv.days),
	}
	m.invs[next.key] = next
	m.available, m.invested = m.available.Sub(amount), m.invested.Add(amount)
}

func (m *refModel) matureOne(id string, at time.Time) bool {
	inv := m.invs[id]
	if inv == nil || inv.status != "active" || at.Before(inv.end) {
		return false
	}
	m.mature(inv)
	return true
}

// matureDue matures what is due, earliest end first, reinvestments that are due themselves
// included, at most 1,000 maturities a run (the next run carries on). It never refuses; with
// nothing due it does nothing.
func (m *refModel) matureDue(at time.Time) bool {
	for range 1000 {
		var first *refInvestment
		for _, inv := range m.invs {
			if inv.status != "active" || at.Before(inv.end) {
				continue
			}
			if first == nil || inv.end.Before(first.end) || (inv.end.Equal(first.end) && inv.key < first.key) {
				first = inv
			}
		}
		if first == nil {
			break
		}
		m.mature(first)
	}
	return true
}

func (m *refModel) setInstruction(id string, ins account.Instruction) bool {
	inv := m.invs[id]
	if inv == nil || (ins != "payout" && ins != "reinvest") || (inv.status != "pending" && inv.status != "active") {
		return false
	}
	inv.reinvest = ins == "reinvest"
	return true
}

// redeemEarly returns the principal before the end; the return is forfeited.
func (m *refModel) redeemEarly(id string, at time.Time) bool {
	inv := m.invs[id]
	if inv == nil || inv.status != "active" || !at.Before(inv.end) {
		return false
	}
	inv.status = "ended"
	m.invested, m.available = m.invested.Sub(inv.amount), m.available.Add(inv.amount)
	return true
}

func (m *refModel) requestWithdrawal(id string, amount, fee decimal.Decimal) bool {
	if m.ids[id] || !positive(amount) || fee.Sign() < 0 || !fee.LessThan(amount) || amount.GreaterThan(m.available) {
		return false
	}
	m.ids[id], m.wds[id] = true, &refWithdrawal{amount: amount, fee: fee, status: "pending"}
	m.available, m.held = m.available.Sub(amount), m.held.Add(amount)
	return true
}

func (m *refModel) decideWithdrawal(id string, approve bool, staff string) bool {
	w := m.wds[id]
	if staff == m.user || w == nil || w.status != "pending" {
		return false
	}
	m.held = m.held.Sub(w.amount)
	if approve {
		w.status, m.fees = "approved", m.fees.Add(w.fee) // amount − fee leaves; the fee is ours
	} else {
		w.status, m.available = "rejected", m.available.Add(w.amount)
	}
	return true
}

func (m *refModel) waiveFee(id string, amount decimal.Decimal, staff string) bool {
	w := m.wds[id]
	if staff == m.user || w == nil || w.status != "approved" {
		return false
	}
	left := w.fee.Sub(w.waived)
	if !positive(left) || !positive(amount) || amount.GreaterThan(left) {
		return false
	}
	w.waived = w.waived.Add(amount)
	m.fees, m.available = m.fees.Sub(amount), m.available.Add(amount)
	return true
}

func (m *refModel) creditReferral(referred string, amount decimal.Decimal) bool {
	if referred == m.user || m.bonuses[referred] || !positive(amount) {
		return false
	}
	m.bonuses[referred] = true
	m.available, m.referrals = m.available.Add(amount), m.referrals.Add(amount)
	return true
}

func (m *refModel) postAdjustment(id string, amount decimal.Decimal, staff string) bool {
	if staff == m.user || m.adjIDs[id] || amount.IsZero() || m.available.Add(amount).Sign() < 0 {
		return false
	}
	m.adjIDs[id] = true
	m.available, m.adjustments = m.available.Add(amount), m.adjustments.Add(amount)
	return true
}

// setFeeExemption moves no money: only staff other than the owner may set it.
func (m *refModel) setFeeExemption(staff string) bool { return staff != m.user }

// differences names every figure of b that is not the model's: "available model 12.00,
// aggregate 10.00".
func (m *refModel) differences(b account.Balances) string {
	var out []string
	for _, f := range []struct {
		name  string
		model decimal.Decimal
		agg   money.Money
	}{
		{"available", m.available, b.Available}, {"held", m.held, b.Held}, {"invested", m.invested, b.Invested},
		{"returns", m.returns, b.Returns}, {"fees", m.fees, b.Fees}, {"adjustments", m.adjustments, b.Adjustments},
		{"referrals", m.referrals, b.Referrals},
	} {
		if !f.model.Equal(dec(f.agg)) {
			out = append(out, fmt.Sprintf("%s model %s, aggregate %s", f.name, f.model.StringFixed(2), f.agg))
		}
	}
	return strings.Join(out, "; ")
}

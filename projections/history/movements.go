package history

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/money"
	"clearvest/domain/reference"
)

// MovementKind is what a money movement is, as the history shows it.
type MovementKind string

// The movement kinds. A withdrawal's fee is a movement of its own, with the withdrawal's
// reference; so is what an investment pays back when it ends (a return), with the investment's.
const (
	KindDeposit    MovementKind = "deposit"
	KindInvestment MovementKind = "investment"
	KindWithdrawal MovementKind = "withdrawal"
	KindFee        MovementKind = "fee"
	KindReturn     MovementKind = "return"
	KindAdjustment MovementKind = "adjustment"
	KindBonus      MovementKind = "bonus"
)

// MovementStatus is where a movement stands.
type MovementStatus string

// The movement statuses. Pending movements wait for staff; every other status is settled.
const (
	MovementPending   MovementStatus = "pending"
	MovementConfirmed MovementStatus = "confirmed" // a deposit credited
	MovementRejected  MovementStatus = "rejected"  // staff refused it: nothing moved in the end
	MovementActive    MovementStatus = "active"    // an investment running
	MovementMatured   MovementStatus = "matured"   // an investment that ran its term and paid out
	MovementClosed    MovementStatus = "closed"    // an investment closed before its term
	MovementCompleted MovementStatus = "completed" // paid out, credited, or charged
)

// movementOp is one write to the movements table: a new movement, or a change of an existing
// one in place (its status, and what the change tells about it).
type movementOp struct {
	insert    bool
	id        string // the movement's key: kind and the id of what it is about
	kind      MovementKind
	subject   string
	reference string
	amount    *money.Money // nil keeps the amount
	status    MovementStatus
	at        time.Time
	settled   bool
	details   map[string]any
	// copyFrom names the movement whose details are the base of a new one's (a return starts
	// from its investment's plan and terms).
	copyFrom string
}

func signed(m money.Money, in bool) *money.Money {
	if !in {
		m = m.Neg()
	}
	return &m
}

func key(k MovementKind, id string) string { return string(k) + ":" + id }

// movements turns one money event into its writes to the movements table. eventID is the
// event's own id (a referral bonus has no other; a fee waiver, one of several, is keyed by it).
func movements(e aggregate.Event, eventID uuid.UUID) []movementOp {
	switch e := e.(type) {
	case account.DepositRequested:
		// A deposit already has a reference the investor and staff know it by, its transaction
		// ID ("DEP-7K3M-9Q2X"), which its pages are keyed by: the history names it the same way.
		ref := e.TransactionID
		if ref == "" {
			ref = reference.For(reference.Deposit, e.DepositID) // never shown without a name
		}
		return []movementOp{{insert: true, id: key(KindDeposit, e.DepositID), kind: KindDeposit, subject: e.TransactionID,
			reference: ref, amount: signed(e.Amount, true),
			status: MovementPending, at: e.At, details: map[string]any{"asset": e.Asset, "network": e.Network}}}
	case account.DepositConfirmed:
		// The amount that arrived is the real one; it may differ from what was announced.
		return []movementOp{{id: key(KindDeposit, e.DepositID), amount: signed(e.Received, true),
			status: MovementConfirmed, at: e.At, settled: true, details: map[string]any{}}}
	case account.DepositRejected:
		return []movementOp{{id: key(KindDeposit, e.DepositID), status: MovementRejected, at: e.At, settled: true,
			details: reason(e.Notes)}}

	case account.InvestmentRequested:
		return []movementOp{{insert: true, id: key(KindInvestment, e.InvestmentID), kind: KindInvestment,
			subject: e.InvestmentID, reference: reference.For(reference.Investment, e.InvestmentID),
			amount: signed(e.Amount, false), status: MovementPending, at: e.At, details: terms(e.Terms)}}
	case account.InvestmentActivated:
		return []movementOp{{id: key(KindInvestment, e.InvestmentID), status: MovementActive, at: e.Start, settled: true,
			details: map[string]any{"expectedReturn": e.Return.String(), "startDate": e.Start, "endDate": e.End}}}
	case account.InvestmentRejected:
		return []movementOp{{id: key(KindInvestment, e.InvestmentID), status: MovementRejected, at: e.At, settled: true,
			details: reason(e.Reason)}}
	case account.InvestmentMatured:
		return []movementOp{
			{id: key(KindInvestment, e.InvestmentID), status: MovementMatured, at: e.At, settled: true, details: map[string]any{}},
			{insert: true, id: key(KindReturn, e.InvestmentID), kind: KindReturn, subject: e.InvestmentID,
				reference: reference.For(reference.Investment, e.InvestmentID), amount: signed(e.Principal.Add(e.Return), true),
				status: MovementCompleted, at: e.At, settled: true, copyFrom: key(KindInvestment, e.InvestmentID),
				details: map[string]any{"principal": e.Principal.String(), "return": e.Return.String()}},
		}
	case account.InvestmentRedeemed:
		return []movementOp{
			{id: key(KindInvestment, e.InvestmentID), status: MovementClosed, at: e.At, settled: true, details: map[string]any{}},
			{insert: true, id: key(KindReturn, e.InvestmentID), kind: KindReturn, subject: e.InvestmentID,
				reference: reference.For(reference.Investment, e.InvestmentID), amount: signed(e.Principal, true),
				status: MovementCompleted, at: e.At, settled: true, copyFrom: key(KindInvestment, e.InvestmentID),
				details: map[string]any{"principal": e.Principal.String(), "return": "0.00",
					"forfeited": e.Forfeited.String(), "closedEarly": true}},
		}
	case account.InvestmentReinvested:
		d := terms(e.Terms)
		d["expectedReturn"], d["startDate"], d["endDate"] = e.Return.String(), e.Start, e.End
		d["reinvestedFrom"] = reference.For(reference.Investment, e.InvestmentID)
		return []movementOp{{insert: true, id: key(KindInvestment, e.NewInvestmentID), kind: KindInvestment,
			subject: e.NewInvestmentID, reference: reference.For(reference.Investment, e.NewInvestmentID),
			amount: signed(e.Amount, false), status: MovementActive, at: e.Start, settled: true, details: d}}

	case account.WithdrawalRequested:
		// The request takes the whole amount off the available balance: what is sent, and the fee.
		d := map[string]any{"asset": e.Asset, "network": e.Network}
		put(d, "address", e.Address)
		ops := []movementOp{{insert: true, id: key(KindWithdrawal, e.WithdrawalID), kind: KindWithdrawal,
			subject: e.WithdrawalID, reference: reference.For(reference.Withdrawal, e.WithdrawalID),
			amount: signed(e.Amount.Sub(e.Fee), false), status: MovementPending, at: e.At, details: d}}
		if e.Fee.IsPositive() {
			ops = append(ops, movementOp{insert: true, id: key(KindFee, e.WithdrawalID), kind: KindFee,
				subject: e.WithdrawalID, reference: reference.For(reference.Withdrawal, e.WithdrawalID),
				amount: signed(e.Fee, false), status: MovementPending, at: e.At, details: map[string]any{}})
		}
		return ops
	case account.WithdrawalApproved:
		return []movementOp{
			{id: key(KindWithdrawal, e.WithdrawalID), status: MovementCompleted, at: e.At, settled: true, details: map[string]any{}},
			{id: key(KindFee, e.WithdrawalID), status: MovementCompleted, at: e.At, settled: true, details: map[string]any{}},
		}
	case account.WithdrawalRejected:
		return []movementOp{
			{id: key(KindWithdrawal, e.WithdrawalID), status: MovementRejected, at: e.At, settled: true, details: reason(e.Reason)},
			{id: key(KindFee, e.WithdrawalID), status: MovementRejected, at: e.At, settled: true, details: reason(e.Reason)},
		}
	case account.FeeWaived:
		// The fee comes back: a movement of its own, under the withdrawal's reference. Staff may
		// waive a fee in parts, so each waiver is keyed by its event.
		return []movementOp{{insert: true, id: "fee-waiver:" + eventID.String(), kind: KindFee, subject: e.WithdrawalID,
			reference: reference.For(reference.Withdrawal, e.WithdrawalID), amount: signed(e.Amount, true),
			status: MovementCompleted, at: e.At, settled: true, details: map[string]any{"reason": e.Reason, "waived": true}}}
	case account.ReferralBonusCredited:
		return []movementOp{{insert: true, id: key(KindBonus, eventID.String()), kind: KindBonus,
			reference: reference.For(reference.Bonus, eventID.String()), amount: signed(e.Amount, true),
			status: MovementCompleted, at: e.At, settled: true, details: map[string]any{}}}
	case account.AdjustmentPosted:
		a := e.Amount
		return []movementOp{{insert: true, id: key(KindAdjustment, e.AdjustmentID), kind: KindAdjustment,
			reference: reference.For(reference.Adjustment, e.AdjustmentID), amount: &a, status: MovementCompleted,
			at: e.At, settled: true, details: map[string]any{"category": string(e.Category), "reason": e.Reason}}}
	}
	return nil
}

func reason(s string) map[string]any {
	d := map[string]any{}
	put(d, "reason", s)
	return d
}

func terms(t account.Terms) map[string]any {
	return map[string]any{"plan": t.PlanName, "termDays": t.TermDays, "termRate": t.TermRate}
}

// sql is the statement and arguments of the write.
func (op movementOp) sql(userID string, recorded time.Time) (string, []any, error) {
	at := op.at
	if at.IsZero() {
		at = recorded
	}
	at = at.UTC()
	js, err := json.Marshal(op.details)
	if err != nil {
		return "", nil, err
	}
	var amount *string
	if op.amount != nil {
		s := op.amount.String()
		amount = &s
	}
	if op.insert {
		var settled *time.Time
		if op.settled {
			settled = &at
		}
		return `INSERT INTO movements (id, user_id, kind, subject, reference, amount, status, created_at, updated_at,
			settled_at, details)
			VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $8, $9,
			  COALESCE((SELECT details FROM movements WHERE user_id = $2 AND id = $11), '{}'::jsonb) || $10::jsonb)`,
			[]any{op.id, userID, string(op.kind), op.subject, op.reference, amount, string(op.status), at, settled, js, op.copyFrom}, nil
	}
	// A change of status updates the movement in place; it settles once, when it leaves pending.
	return `UPDATE movements SET status = $3, amount = COALESCE($4::numeric, amount), updated_at = $5,
			settled_at = CASE WHEN $6 THEN COALESCE(settled_at, $5) ELSE settled_at END, details = details || $7::jsonb
		WHERE user_id = $1 AND id = $2`,
		[]any{userID, op.id, string(op.status), amount, at, op.settled, js}, nil
}

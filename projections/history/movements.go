package history

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/money"
	"clearvest/domain/reference"
	"clearvest/projections"
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
		ref := reference.OfDeposit(e.TransactionID, e.DepositID)
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

// movementRow is a movement new in this batch, as the batch's changes leave it.
type movementRow struct {
	user, id, kind, subject, reference, status string
	amount                                     money.Money
	created, updated                           time.Time
	settled                                    *time.Time
	details                                    map[string]any
	// encoded holds the details instead, as JSON, while a rebuild holds the movement: a map
	// per movement of the whole log was most of the rebuild's heap, and of its collector's work.
	encoded []byte
	// copyFrom is a movement of an earlier batch whose details come before these.
	copyFrom string
}

// movementRows collects a batch's new movements for one multi-row INSERT, and applies the
// batch's changes of them in memory, so that a movement is written once per batch. In a rebuild
// it holds every movement of the log (whole), written with COPY at the end.
type movementRows struct {
	rows  []*movementRow
	index map[movementKey]*movementRow
	whole bool
}

type movementKey struct{ user, id string }

// detailMap returns the movement's details as a map the caller may change.
func (row *movementRow) detailMap() (map[string]any, error) {
	if row.details != nil {
		return row.details, nil
	}
	m := map[string]any{}
	if len(row.encoded) > 0 {
		if err := json.Unmarshal(row.encoded, &m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// setDetails keeps d as the movement's details: encoded when the rows are the whole log's.
func (r *movementRows) setDetails(row *movementRow, d map[string]any) error {
	if !r.whole {
		row.details = d
		return nil
	}
	js, err := json.Marshal(d)
	if err != nil {
		return err
	}
	row.details, row.encoded = nil, js
	return nil
}

func merge(dst, src map[string]any) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// apply takes one write: a new movement or a change of one from this batch is made here; a
// change of a movement of an earlier batch is queued on changes, as an UPDATE in place. A
// change settles a movement once, when it leaves pending; details add to the movement's (a
// top-level merge, as jsonb || does). When the rows are the whole log's (a rebuild), a movement
// they do not hold does not exist, and the UPDATE would have changed no row.
func (r *movementRows) apply(changes *pgx.Batch, op movementOp, userID string, recorded time.Time) error {
	at := op.at
	if at.IsZero() {
		at = recorded
	}
	at = at.UTC()
	if op.insert {
		if op.amount == nil {
			return fmt.Errorf("new movement %s has no amount", op.id)
		}
		if r.whole && r.index[movementKey{userID, op.id}] != nil {
			// The primary key refuses it in Apply.
			return fmt.Errorf("movement %s of %s exists", op.id, userID)
		}
		row := &movementRow{user: userID, id: op.id, kind: string(op.kind), subject: op.subject, reference: op.reference,
			amount: *op.amount, status: string(op.status), created: at, updated: at}
		if op.settled {
			row.settled = &at
		}
		details := map[string]any{}
		if op.copyFrom != "" {
			if src := r.index[movementKey{userID, op.copyFrom}]; src != nil {
				d, err := src.detailMap()
				if err != nil {
					return err
				}
				details = merge(details, d)
			} else if !r.whole { // a rebuild holds every movement: there is none to copy
				row.copyFrom = op.copyFrom
			}
		}
		if err := r.setDetails(row, merge(details, op.details)); err != nil {
			return err
		}
		if r.index == nil {
			r.index = map[movementKey]*movementRow{}
		}
		r.index[movementKey{userID, op.id}] = row
		r.rows = append(r.rows, row)
		return nil
	}
	if row := r.index[movementKey{userID, op.id}]; row != nil {
		row.status = string(op.status)
		if op.amount != nil {
			row.amount = *op.amount
		}
		row.updated = at
		if op.settled && row.settled == nil {
			row.settled = &at
		}
		d, err := row.detailMap()
		if err != nil {
			return err
		}
		return r.setDetails(row, merge(d, op.details))
	}
	if r.whole {
		return nil
	}
	var amount *string
	if op.amount != nil {
		s := op.amount.String()
		amount = &s
	}
	js, err := json.Marshal(op.details)
	if err != nil {
		return err
	}
	changes.Queue(`UPDATE movements SET status = $3, amount = COALESCE($4::numeric, amount), updated_at = $5,
			settled_at = CASE WHEN $6 THEN COALESCE(settled_at, $5) ELSE settled_at END, details = details || $7::jsonb
		WHERE user_id = $1 AND id = $2`,
		userID, op.id, string(op.status), amount, at, op.settled, js)
	return nil
}

// queue adds the INSERT of the new movements to batch.
func (r *movementRows) queue(batch *pgx.Batch) error {
	if len(r.rows) == 0 {
		return nil
	}
	n := len(r.rows)
	users, ids, kinds, subjects, refs, amounts, statuses := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	created, updated, settled := make([]time.Time, n), make([]time.Time, n), make([]*time.Time, n)
	details, copyFrom := make([][]byte, n), make([]string, n)
	for i, row := range r.rows {
		js, err := json.Marshal(row.details)
		if err != nil {
			return err
		}
		users[i], ids[i], kinds[i], subjects[i], refs[i], amounts[i], statuses[i] = row.user, row.id, row.kind, row.subject,
			row.reference, row.amount.String(), row.status
		created[i], updated[i], settled[i], details[i], copyFrom[i] = row.created, row.updated, row.settled, js, row.copyFrom
	}
	batch.Queue(`INSERT INTO movements (id, user_id, kind, subject, reference, amount, status, created_at, updated_at,
			settled_at, details)
		SELECT n.id, n.user_id, n.kind, n.subject, n.reference, n.amount, n.status, n.created_at, n.updated_at, n.settled_at,
			CASE WHEN n.copy_from = '' THEN n.details
			ELSE COALESCE((SELECT m.details FROM movements m WHERE m.user_id = n.user_id AND m.id = n.copy_from), '{}'::jsonb) || n.details END
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::text[], $8::timestamptz[],
			$9::timestamptz[], $10::timestamptz[], $11::jsonb[], $12::text[])
			AS n(id, user_id, kind, subject, reference, amount, status, created_at, updated_at, settled_at, details, copy_from)`,
		ids, users, kinds, subjects, refs, amounts, statuses, created, updated, settled, details, copyFrom)
	*r = movementRows{}
	return nil
}

// copy writes every movement held with COPY, and lets go of them. A rebuild holds every movement,
// so a movement copies its details from one it holds, or starts from none.
func (r *movementRows) copy(ctx context.Context, tx pgx.Tx) error {
	var js []byte
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"movements"}, []string{"id", "user_id", "kind", "subject", "reference", "amount",
		"status", "created_at", "updated_at", "settled_at", "details"},
		pgx.CopyFromSlice(len(r.rows), func(i int) ([]any, error) {
			row := r.rows[i]
			js = row.encoded
			if row.details != nil {
				var err error
				if js, err = json.Marshal(row.details); err != nil {
					return nil, err
				}
			}
			return []any{row.id, row.user, row.kind, row.subject, row.reference, projections.Numeric(row.amount), row.status,
				row.created, row.updated, row.settled, js}, nil
		}))
	if err != nil {
		return fmt.Errorf("history: copy movements: %w", err)
	}
	*r = movementRows{}
	return nil
}

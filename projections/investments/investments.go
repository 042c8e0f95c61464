// Package investments is the read model of users' investments: every investment with the terms
// it captured, its status and decisions, for the investor's list and detail pages, the staff
// queue and the maturity job, which finds the accounts with something due here.
package investments

import (
	"clearvest/platform/pgread"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/keyset"
)

// Name of the projection; its tables live in schema rm_investments.
const Name = "investments"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the account events registered.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("investments: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection. Terms are the ones captured when the investment was
// requested; return is fixed at activation; forfeited is the return given up by an early
// redemption.
func (*Projection) Schema() string {
	return `
CREATE TABLE investments (
    investment_id   text        NOT NULL,
    user_id         text        NOT NULL,
    plan_id         text        NOT NULL,
    plan_version    integer     NOT NULL,
    plan_name       text        NOT NULL,
    term_days       integer     NOT NULL,
    term_rate       text        NOT NULL,
    min_amount      numeric(20,2) NOT NULL,
    max_amount      numeric(20,2) NOT NULL,
    amount          numeric(20,2) NOT NULL,
    status          text        NOT NULL,
    return_amount   numeric(20,2) NOT NULL DEFAULT 0,
    forfeited       numeric(20,2) NOT NULL DEFAULT 0,
    instruction     text        NOT NULL DEFAULT 'payout',
    closed_early    boolean     NOT NULL DEFAULT false,
    reinvested_as   text        NOT NULL DEFAULT '',
    reinvested_from text        NOT NULL DEFAULT '',
    reason          text        NOT NULL DEFAULT '',
    staff_id        text        NOT NULL DEFAULT '',
    requested_at    timestamptz NOT NULL,
    decided_at      timestamptz,
    start_at        timestamptz,
    end_at          timestamptz,
    closed_at       timestamptz,
    PRIMARY KEY (user_id, investment_id)
);
CREATE INDEX investments_id ON investments (investment_id);
CREATE INDEX investments_user ON investments (user_id, requested_at DESC);
CREATE INDEX investments_pending ON investments (requested_at, investment_id) WHERE status = 'Pending';
CREATE INDEX investments_due ON investments (end_at) WHERE status = 'Active';`
}

// Apply records each investment event.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, env := range events {
		if env.StreamID.Category() != account.StreamCategory {
			continue
		}
		e, err := projections.Decode(ctx, p.codec, env)
		if err != nil {
			return err
		}
		if err := apply(ctx, tx, env.StreamID.ID(), e); err != nil {
			return fmt.Errorf("investments: %s at position %d: %w", env.Type, env.Position, err)
		}
	}
	return nil
}

func apply(ctx context.Context, tx pgx.Tx, userID string, e any) error {
	var err error
	switch e := e.(type) {
	case account.InvestmentRequested:
		err = insert(ctx, tx, userID, e.InvestmentID, e.Terms, e.Amount, "Pending", e.At, "")
	case account.InvestmentActivated:
		_, err = tx.Exec(ctx, `UPDATE investments SET status = 'Active', return_amount = $3, start_at = $4, end_at = $5,
			staff_id = $6, decided_at = $4 WHERE user_id = $1 AND investment_id = $2`,
			userID, e.InvestmentID, e.Return.String(), e.Start, e.End, e.StaffID)
	case account.InvestmentRejected:
		_, err = tx.Exec(ctx, `UPDATE investments SET status = 'Rejected', reason = $3, staff_id = $4, decided_at = $5
			WHERE user_id = $1 AND investment_id = $2`, userID, e.InvestmentID, e.Reason, e.StaffID, e.At)
	case account.InvestmentMatured:
		_, err = tx.Exec(ctx, `UPDATE investments SET status = 'Ended', closed_at = $3 WHERE user_id = $1 AND investment_id = $2`,
			userID, e.InvestmentID, e.At)
	case account.InvestmentInstructionSet:
		_, err = tx.Exec(ctx, `UPDATE investments SET instruction = $3 WHERE user_id = $1 AND investment_id = $2`,
			userID, e.InvestmentID, string(e.Instruction))
	case account.InvestmentRedeemed:
		_, err = tx.Exec(ctx, `UPDATE investments SET status = 'Ended', closed_early = true, forfeited = $3, closed_at = $4
			WHERE user_id = $1 AND investment_id = $2`, userID, e.InvestmentID, e.Forfeited.String(), e.At)
	case account.InvestmentReinvested:
		if _, err = tx.Exec(ctx, `UPDATE investments SET reinvested_as = $3 WHERE user_id = $1 AND investment_id = $2`,
			userID, e.InvestmentID, e.NewInvestmentID); err != nil {
			return err
		}
		if err = insert(ctx, tx, userID, e.NewInvestmentID, e.Terms, e.Amount, "Active", e.Start, e.InvestmentID); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE investments SET return_amount = $3, start_at = $4, end_at = $5, decided_at = $4
			WHERE user_id = $1 AND investment_id = $2`, userID, e.NewInvestmentID, e.Return.String(), e.Start, e.End)
	}
	return err
}

func insert(ctx context.Context, tx pgx.Tx, userID, id string, t account.Terms, amount money.Money, status string, at time.Time, from string) error {
	_, err := tx.Exec(ctx, `INSERT INTO investments (investment_id, user_id, plan_id, plan_version, plan_name, term_days,
		term_rate, min_amount, max_amount, amount, status, requested_at, reinvested_from)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING`,
		id, userID, t.PlanID, t.PlanVersion, t.PlanName, t.TermDays, t.TermRate, t.Min.String(), t.Max.String(),
		amount.String(), status, at, from)
	return err
}

// Investment is one investment row, with its owner's name and e-mail from the users read model.
type Investment struct {
	ID             string
	UserID         string
	Terms          account.Terms
	Amount         money.Money
	Status         account.Status
	Return         money.Money // fixed at activation; zero before
	Forfeited      money.Money // the return given up by an early redemption
	Instruction    string      // what happens at maturity: "payout" or "reinvest"
	ClosedEarly    bool
	ReinvestedAs   string
	ReinvestedFrom string
	Reason         string
	StaffID        string
	RequestedAt    time.Time
	DecidedAt      *time.Time
	Start, End     *time.Time
	ClosedAt       *time.Time
	Name, Email    string
}

// Payout is what the investment pays at maturity: the principal and the return.
func (i Investment) Payout() money.Money { return i.Amount.Add(i.Return) }

// Progress is how far through its term the investment is at now, from 0 to 1: 0 before it
// starts, 1 once ended. It is for display (a progress bar, an estimate), never for money moved.
func (i Investment) Progress(now time.Time) decimal.Decimal {
	switch {
	case i.Status == account.StatusEnded:
		return decimal.NewFromInt(1)
	case i.Status != account.StatusActive || i.Start == nil || i.End == nil || !i.End.After(*i.Start):
		return decimal.Zero
	}
	elapsed := min(max(now.Sub(*i.Start), 0), i.End.Sub(*i.Start))
	return decimal.NewFromInt(int64(elapsed / time.Second)).Div(decimal.NewFromInt(int64(i.End.Sub(*i.Start) / time.Second)))
}

// AccruedEstimate is the return earned so far if it accrued evenly over the term, rounded
// half-even to the cent: an estimate to show, not a figure anything is paid on (the return is
// paid whole at maturity, or forfeited by an early redemption).
func (i Investment) AccruedEstimate(now time.Time) money.Money {
	if i.ClosedEarly {
		return money.Zero
	}
	return i.Return.MulRate(i.Progress(now))
}

// PlanTerms are the captured terms as the plan package works with them (rates, APR).
func (i Investment) PlanTerms() plan.Terms { return PlanTerms(i.Terms) }

// PlanTerms turns captured terms into the plan package's, whose functions give the annualised
// rate and the return. A rate that does not parse (it was checked when requested) reads as zero.
func PlanTerms(t account.Terms) plan.Terms {
	rate, err := decimal.NewFromString(t.TermRate)
	if err != nil {
		rate = decimal.Zero
	}
	return plan.Terms{Min: t.Min, Max: t.Max, TermDays: t.TermDays, TermRate: rate}
}

// ErrNotFound is an investment the read model does not hold.
var ErrNotFound = account.ErrInvestmentNotFound

// cents writes a numeric column as money reads it: "-12.50", "0.00".
func cents(col string) string { return "to_char(" + col + ", 'FM999999999999999990.00')" }

var columns = `i.investment_id, i.user_id, i.plan_id, i.plan_version, i.plan_name, i.term_days, i.term_rate,
	` + cents("i.min_amount") + `, ` + cents("i.max_amount") + `, ` + cents("i.amount") + `, i.status,
	` + cents("i.return_amount") + `, ` + cents("i.forfeited") + `, i.instruction, i.closed_early, i.reinvested_as,
	i.reinvested_from, i.reason, i.staff_id, i.requested_at, i.decided_at, i.start_at, i.end_at, i.closed_at,
	coalesce(u.name, ''), coalesce(u.email, '')`

const from = ` FROM rm_investments.investments i LEFT JOIN rm_users.users u ON u.id = i.user_id `

func scan(rs pgx.CollectableRow) (Investment, error) { return scanWith(rs) }

// scanWith scans columns and then extra, the columns a query adds after them.
func scanWith(rs pgx.CollectableRow, extra ...any) (Investment, error) {
	var i Investment
	var minA, maxA, amount, ret, forfeited string
	err := rs.Scan(append([]any{&i.ID, &i.UserID, &i.Terms.PlanID, &i.Terms.PlanVersion, &i.Terms.PlanName, &i.Terms.TermDays,
		&i.Terms.TermRate, &minA, &maxA, &amount, &i.Status, &ret, &forfeited, &i.Instruction, &i.ClosedEarly,
		&i.ReinvestedAs, &i.ReinvestedFrom, &i.Reason, &i.StaffID, &i.RequestedAt, &i.DecidedAt, &i.Start, &i.End,
		&i.ClosedAt, &i.Name, &i.Email}, extra...)...)
	if err != nil {
		return i, err
	}
	i.RequestedAt = i.RequestedAt.UTC()
	for _, t := range []**time.Time{&i.DecidedAt, &i.Start, &i.End, &i.ClosedAt} {
		if *t != nil {
			u := (*t).UTC()
			*t = &u
		}
	}
	for _, f := range []struct {
		s string
		m *money.Money
	}{{minA, &i.Terms.Min}, {maxA, &i.Terms.Max}, {amount, &i.Amount}, {ret, &i.Return}, {forfeited, &i.Forfeited}} {
		if *f.m, err = money.Parse(f.s); err != nil {
			return i, err
		}
	}
	return i, nil
}

// ByID returns one investment.
func ByID(ctx context.Context, pool pgread.Querier, id string) (Investment, error) {
	rows, err := pool.Query(ctx, `SELECT `+columns+from+`WHERE i.investment_id = $1 LIMIT 1`, id)
	if err != nil {
		return Investment{}, fmt.Errorf("investments: investment: %w", err)
	}
	i, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return Investment{}, ErrNotFound
	}
	if err != nil {
		return Investment{}, fmt.Errorf("investments: investment: %w", err)
	}
	return i, nil
}

// ByUser lists a user's investments, newest first.
func ByUser(ctx context.Context, pool pgread.Querier, userID string) ([]Investment, error) {
	return list(ctx, pool, `WHERE i.user_id = $1 ORDER BY i.requested_at DESC, i.investment_id DESC LIMIT 1000`, userID)
}

// pendingQuery is the investment queue: investments waiting for staff.
var pendingQuery = keyset.Query{
	Select: columns, From: from, Where: `i.status = 'Pending'`,
	At: `i.requested_at`, ID: `i.investment_id`,
	Count: `SELECT count(*) FROM rm_investments.investments WHERE status = 'Pending'`,
}

// PendingPage lists up to limit investments waiting for staff, oldest first, starting after the
// cursor (from the start when after is nil), with how many wait in all (keyset.Fetch).
func PendingPage(ctx context.Context, pool pgread.Querier, after *keyset.Cursor, limit int) (list []Investment, total int, more bool, err error) {
	list, total, more, err = keyset.Fetch(ctx, pool, pendingQuery, after, limit, func(row pgx.CollectableRow, total *int) (Investment, error) {
		return scanWith(row, total)
	})
	if err != nil {
		return nil, 0, false, fmt.Errorf("investments: pending %w", err)
	}
	return list, total, more, nil
}

func list(ctx context.Context, pool pgread.Querier, where string, args ...any) ([]Investment, error) {
	rows, err := pool.Query(ctx, `SELECT `+columns+from+where, args...)
	if err != nil {
		return nil, fmt.Errorf("investments: list: %w", err)
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("investments: list: %w", err)
	}
	return out, nil
}

// DueAccountsAfter lists, in user id order, the users after the id after ("" for the first
// page) with an active investment whose end is at or before now, at most limit of them. The
// maturity job pages through every due account with it, so that accounts it cannot settle never
// stand in front of the others.
func DueAccountsAfter(ctx context.Context, pool pgread.Querier, now time.Time, after string, limit int) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT DISTINCT user_id FROM rm_investments.investments
		WHERE status = 'Active' AND end_at <= $1 AND user_id > $2 ORDER BY user_id LIMIT $3`, now, after, limit)
	if err != nil {
		return nil, fmt.Errorf("investments: due accounts: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("investments: due accounts: %w", err)
	}
	return out, nil
}

// DueAccounts lists the users with an active investment whose end is at or before now, the
// earliest end first, at most limit of them.
func DueAccounts(ctx context.Context, pool pgread.Querier, now time.Time, limit int) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT user_id FROM rm_investments.investments WHERE status = 'Active' AND end_at <= $1
		GROUP BY user_id ORDER BY min(end_at), user_id LIMIT $2`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("investments: due accounts: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("investments: due accounts: %w", err)
	}
	return out, nil
}

// Builder implements projections.Bulk: a rebuild holds every investment in memory, applies each
// later event to it there and copies the rows once at the end, where Apply runs a statement or
// three per event. It does to the rows what Apply's statements do, in the same order
// (TestBulkRebuildEqualsLive compares the two).
func (p *Projection) Builder() projections.Builder {
	return &builder{p: p, byKey: map[investmentKey]*investmentRow{}}
}

var _ projections.Bulk = (*Projection)(nil)

type investmentKey struct{ user, id string }

type investmentRow struct {
	key                                 investmentKey
	terms                               account.Terms
	amount, returnAmount, forfeited     money.Money
	status, instruction                 string
	closedEarly                         bool
	reinvestedAs, reinvestedFrom        string
	reason, staffID                     string
	requestedAt                         time.Time
	decidedAt, startAt, endAt, closedAt *time.Time
}

type builder struct {
	p     *Projection
	rows  []*investmentRow
	byKey map[investmentKey]*investmentRow
}

// insert is Apply's INSERT ... ON CONFLICT DO NOTHING.
func (b *builder) insert(userID, id string, t account.Terms, amount money.Money, status string, at time.Time, from string) {
	k := investmentKey{userID, id}
	if b.byKey[k] != nil {
		return
	}
	r := &investmentRow{key: k, terms: t, amount: amount, returnAmount: money.Zero, forfeited: money.Zero, status: status,
		instruction: "payout", reinvestedFrom: from, requestedAt: at}
	b.byKey[k] = r
	b.rows = append(b.rows, r)
}

func (b *builder) Add(ctx context.Context, env eventstore.Envelope) error {
	if env.StreamID.Category() != account.StreamCategory {
		return nil
	}
	e, err := projections.Decode(ctx, b.p.codec, env)
	if err != nil {
		return err
	}
	userID := env.StreamID.ID()
	row := func(id string) *investmentRow { return b.byKey[investmentKey{userID, id}] }
	at := func(t time.Time) *time.Time { return &t }
	switch e := e.(type) {
	case account.InvestmentRequested:
		b.insert(userID, e.InvestmentID, e.Terms, e.Amount, "Pending", e.At, "")
	case account.InvestmentActivated:
		if r := row(e.InvestmentID); r != nil {
			r.status, r.returnAmount, r.startAt, r.endAt, r.staffID, r.decidedAt = "Active", e.Return, at(e.Start), at(e.End), e.StaffID, at(e.Start)
		}
	case account.InvestmentRejected:
		if r := row(e.InvestmentID); r != nil {
			r.status, r.reason, r.staffID, r.decidedAt = "Rejected", e.Reason, e.StaffID, at(e.At)
		}
	case account.InvestmentMatured:
		if r := row(e.InvestmentID); r != nil {
			r.status, r.closedAt = "Ended", at(e.At)
		}
	case account.InvestmentInstructionSet:
		if r := row(e.InvestmentID); r != nil {
			r.instruction = string(e.Instruction)
		}
	case account.InvestmentRedeemed:
		if r := row(e.InvestmentID); r != nil {
			r.status, r.closedEarly, r.forfeited, r.closedAt = "Ended", true, e.Forfeited, at(e.At)
		}
	case account.InvestmentReinvested:
		if r := row(e.InvestmentID); r != nil {
			r.reinvestedAs = e.NewInvestmentID
		}
		b.insert(userID, e.NewInvestmentID, e.Terms, e.Amount, "Active", e.Start, e.InvestmentID)
		r := row(e.NewInvestmentID)
		r.returnAmount, r.startAt, r.endAt, r.decidedAt = e.Return, at(e.Start), at(e.End), at(e.Start)
	}
	return nil
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	if !final {
		return nil // a later event may still change any investment
	}
	num := projections.Numeric
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"investments"}, []string{"investment_id", "user_id", "plan_id", "plan_version",
		"plan_name", "term_days", "term_rate", "min_amount", "max_amount", "amount", "status", "return_amount", "forfeited",
		"instruction", "closed_early", "reinvested_as", "reinvested_from", "reason", "staff_id", "requested_at", "decided_at",
		"start_at", "end_at", "closed_at"},
		pgx.CopyFromSlice(len(b.rows), func(i int) ([]any, error) {
			r := b.rows[i]
			t := r.terms
			return []any{r.key.id, r.key.user, t.PlanID, t.PlanVersion, t.PlanName, t.TermDays, t.TermRate, num(t.Min), num(t.Max),
				num(r.amount), r.status, num(r.returnAmount), num(r.forfeited), r.instruction, r.closedEarly, r.reinvestedAs,
				r.reinvestedFrom, r.reason, r.staffID, r.requestedAt, r.decidedAt, r.startAt, r.endAt, r.closedAt}, nil
		}))
	if err != nil {
		return fmt.Errorf("investments: copy: %w", err)
	}
	b.rows, b.byKey = nil, nil
	return nil
}

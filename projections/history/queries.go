package history

import (
	"clearvest/platform/pgread"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	"clearvest/domain/money"
)

// Querier is what the queries read through: a pool, a transaction, or a read replica's choice.
type Querier = pgread.Querier

// Item is one history item.
type Item struct {
	ID        uuid.UUID
	Position  int64
	Kind      string // the event's stored type name
	Type      Type
	Status    account.Status
	Title     string
	Effect    money.Money // signed: what the event did to the available balance
	Amount    money.Money
	Fee       money.Money
	Balance   money.Money // the available balance after the event
	At        time.Time
	Reference string
	Details   map[string]any
}

const itemColumns = `id, position, kind, type, status, title, effect::text, amount::text, fee::text, balance_after::text, at,
	reference, details`

func scanItem(row pgx.CollectableRow) (Item, error) {
	var it Item
	var eff, amount, fee, bal string
	var js []byte
	if err := row.Scan(&it.ID, &it.Position, &it.Kind, &it.Type, &it.Status, &it.Title, &eff, &amount, &fee, &bal, &it.At,
		&it.Reference, &js); err != nil {
		return it, err
	}
	it.At = it.At.UTC()
	var err error
	for _, f := range []struct {
		s string
		m *money.Money
	}{{eff, &it.Effect}, {amount, &it.Amount}, {fee, &it.Fee}, {bal, &it.Balance}} {
		if *f.m, err = money.Parse(f.s); err != nil {
			return it, err
		}
	}
	if err := json.Unmarshal(js, &it.Details); err != nil {
		return it, err
	}
	return it, nil
}

// Filter selects a user's items. Zero values select everything.
type Filter struct {
	Type Type
	// From and Until bound the items' time: From ≤ at < Until.
	From, Until time.Time
	// Before is a keyset cursor: only items older than the item at this position.
	Before int64
	Limit  int
}

// List returns a user's items newest first.
func List(ctx context.Context, q Querier, userID string, f Filter) ([]Item, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	sql := `SELECT ` + itemColumns + ` FROM rm_history.items WHERE user_id = $1`
	args := []any{userID}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.Type != "" {
		sql += ` AND type = ` + arg(string(f.Type))
	}
	if !f.From.IsZero() {
		sql += ` AND at >= ` + arg(f.From)
	}
	if !f.Until.IsZero() {
		sql += ` AND at < ` + arg(f.Until)
	}
	if f.Before > 0 {
		sql += ` AND position < ` + arg(f.Before)
	}
	sql += ` ORDER BY position DESC LIMIT ` + arg(f.Limit)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("history: list: %w", err)
	}
	items, err := pgx.CollectRows(rows, scanItem)
	if err != nil {
		return nil, fmt.Errorf("history: list: %w", err)
	}
	return items, nil
}

// Statement is a period of a user's history: the available balance before it, every item in
// it oldest first, and the balance after it.
type Statement struct {
	Opening, Closing money.Money
	Items            []Item
}

// StatementOf reads the items with From ≤ at < Until (a zero bound is open).
func StatementOf(ctx context.Context, q Querier, userID string, from, until time.Time) (Statement, error) {
	var st Statement
	if !from.IsZero() {
		var s string
		err := q.QueryRow(ctx, `SELECT balance_after::text FROM rm_history.items WHERE user_id = $1 AND at < $2
			ORDER BY position DESC LIMIT 1`, userID, from).Scan(&s)
		if err != nil && err != pgx.ErrNoRows {
			return st, fmt.Errorf("history: opening balance: %w", err)
		}
		if err == nil {
			if st.Opening, err = money.Parse(s); err != nil {
				return st, err
			}
		}
	}
	// A whole period in memory: a statement is for one person, and a lifetime of money events
	// is thousands of rows at most.
	sql := `SELECT ` + itemColumns + ` FROM rm_history.items WHERE user_id = $1 AND at >= $2`
	args := []any{userID, from}
	if !until.IsZero() {
		sql += ` AND at < $3`
		args = append(args, until)
	}
	rows, err := q.Query(ctx, sql+` ORDER BY position`, args...)
	if err != nil {
		return st, fmt.Errorf("history: statement: %w", err)
	}
	if st.Items, err = pgx.CollectRows(rows, scanItem); err != nil {
		return st, fmt.Errorf("history: statement: %w", err)
	}
	st.Closing = st.Opening
	for _, it := range st.Items {
		st.Closing = st.Closing.Add(it.Effect)
	}
	return st, nil
}

// Point is one day's closing available balance.
type Point struct {
	Day     time.Time // midnight UTC
	Balance money.Money
}

// DailyBalances is the available balance at the end of every UTC day on which it changed or
// anything happened, oldest first.
func DailyBalances(ctx context.Context, q Querier, userID string) ([]Point, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT ON (day) day, balance_after::text FROM (
			SELECT (at AT TIME ZONE 'UTC')::date AS day, balance_after, position FROM rm_history.items WHERE user_id = $1) d
		ORDER BY day, position DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("history: daily balances: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Point, error) {
		var p Point
		var s string
		if err := row.Scan(&p.Day, &s); err != nil {
			return p, err
		}
		p.Day = time.Date(p.Day.Year(), p.Day.Month(), p.Day.Day(), 0, 0, 0, 0, time.UTC)
		var err error
		p.Balance, err = money.Parse(s)
		return p, err
	})
}

// MonthReturn is the returns paid in one calendar month (UTC).
type MonthReturn struct {
	Month   string // "2026-03"
	Returns money.Money
}

// MonthlyReturns sums the returns of matured investments by the month they were paid, oldest
// first.
func MonthlyReturns(ctx context.Context, q Querier, userID string) ([]MonthReturn, error) {
	rows, err := q.Query(ctx, `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
			to_char(sum((details->>'return')::numeric), 'FM999999999999999990.00')
		FROM rm_history.items WHERE user_id = $1 AND kind = $2 GROUP BY month ORDER BY month`,
		userID, account.TypeInvestmentMatured)
	if err != nil {
		return nil, fmt.Errorf("history: monthly returns: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (MonthReturn, error) {
		var m MonthReturn
		var s string
		if err := row.Scan(&m.Month, &s); err != nil {
			return m, err
		}
		var err error
		m.Returns, err = money.Parse(s)
		return m, err
	})
}

// Pending lists a user's requests still waiting for staff, oldest first.
func Pending(ctx context.Context, q Querier, userID string) ([]Item, error) {
	rows, err := q.Query(ctx, `SELECT `+itemColumns+` FROM rm_history.items WHERE user_id = $1 AND status = $2
		ORDER BY position`, userID, string(account.StatusPending))
	if err != nil {
		return nil, fmt.Errorf("history: pending: %w", err)
	}
	items, err := pgx.CollectRows(rows, scanItem)
	if err != nil {
		return nil, fmt.Errorf("history: pending: %w", err)
	}
	return items, nil
}

package history

import (
	"clearvest/platform/pgread"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/money"
	"clearvest/projections/keyset"
)

// Movement is one money movement of a user, as it stands now.
type Movement struct {
	ID        string // the movement's key: its kind and the id it is about; never shown
	Kind      MovementKind
	Subject   string // the deposit, investment or withdrawal id, for links to its page; "" otherwise
	Reference string
	Amount    money.Money // signed: into (+) or out of (−) the available balance
	Status    MovementStatus
	Created   time.Time
	Updated   time.Time // the last change of status
	Settled   time.Time // when it left pending; zero while pending
	Details   map[string]any
}

const movementColumns = `id, kind, subject, reference, amount::text, status, created_at, updated_at, settled_at, details`

func scanMovement(row pgx.CollectableRow, extra ...any) (Movement, error) {
	var m Movement
	var amount string
	var settled *time.Time
	var js []byte
	dest := append([]any{&m.ID, &m.Kind, &m.Subject, &m.Reference, &amount, &m.Status, &m.Created, &m.Updated, &settled, &js}, extra...)
	if err := row.Scan(dest...); err != nil {
		return m, err
	}
	m.Created, m.Updated = m.Created.UTC(), m.Updated.UTC()
	if settled != nil {
		m.Settled = settled.UTC()
	}
	var err error
	if m.Amount, err = money.Parse(amount); err != nil {
		return m, err
	}
	if err := json.Unmarshal(js, &m.Details); err != nil {
		return m, err
	}
	return m, nil
}

// PendingMovements lists every movement of a user still waiting for staff, newest first.
func PendingMovements(ctx context.Context, q Querier, userID string) ([]Movement, error) {
	rows, err := q.Query(ctx, `SELECT `+movementColumns+` FROM rm_history.movements
		WHERE user_id = $1 AND settled_at IS NULL ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("history: pending movements: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Movement, error) { return scanMovement(row) })
	if err != nil {
		return nil, fmt.Errorf("history: pending movements: %w", err)
	}
	return list, nil
}

// settledQuery pages a user's settled movements, newest settled first; ties on the time are
// broken by the movement's key.
var settledQuery = keyset.Query{
	Select: movementColumns, From: `FROM rm_history.movements`,
	Where: `user_id = $4 AND settled_at IS NOT NULL`, At: `settled_at`, ID: `id`,
	Count:       `SELECT count(*) FROM rm_history.movements WHERE user_id = $4 AND settled_at IS NOT NULL`,
	NewestFirst: true,
}

// SettledMovements reads up to limit of a user's settled movements after the cursor (from the
// newest when after is nil), as keyset.Fetch does.
func SettledMovements(ctx context.Context, pool pgread.Querier, userID string, after *keyset.Cursor, limit int) (list []Movement, total int, more bool, err error) {
	return keyset.Fetch(ctx, pool, settledQuery, after, limit, func(row pgx.CollectableRow, total *int) (Movement, error) {
		return scanMovement(row, total)
	}, userID)
}

// SettledKey is a settled movement's place in the pages.
func SettledKey(m Movement) keyset.Cursor { return keyset.Cursor{At: m.Settled, ID: m.ID} }

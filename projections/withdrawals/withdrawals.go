// Package withdrawals is the read model of users' withdrawals: every withdrawal with what it
// costs, where it is paid and its decision, for the withdrawal page, the investor's history and
// the staff queue, and what the chain watcher last saw of its payout transaction. Figures (the
// available balance a withdrawal is held from) are the books' (projections/ledger).
package withdrawals

import (
	"clearvest/platform/pgread"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	"clearvest/domain/chain"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/keyset"
)

// Name of the projection; its tables live in schema rm_withdrawals.
const Name = "withdrawals"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the account and chain events
// registered.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("withdrawals: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Version implements projections.Versioned: 2 adds the payout as seen on chain.
func (*Projection) Version() int { return 2 }

// Schema implements projections.Projection.
func (*Projection) Schema() string {
	return `
CREATE TABLE withdrawals (
    withdrawal_id   text          NOT NULL PRIMARY KEY,
    user_id         text          NOT NULL,
    amount          numeric(20,2) NOT NULL,
    fee             numeric(20,2) NOT NULL,
    fee_waived      numeric(20,2) NOT NULL,
    address         text          NOT NULL,
    network         text          NOT NULL,
    asset           text          NOT NULL,
    status          text          NOT NULL,
    tx_hash         text          NOT NULL,
    on_chain_amount text          NOT NULL,
    usd_rate        text          NOT NULL,
    reason          text          NOT NULL,
    staff_id        text          NOT NULL,
    requested_at    timestamptz   NOT NULL,
    decided_at      timestamptz,
    -- the payout transaction as the chain watcher last saw it (chain.payout_seen): '' until seen
    chain_status        text        NOT NULL DEFAULT '',
    chain_height        bigint      NOT NULL DEFAULT 0,
    chain_confirmations bigint      NOT NULL DEFAULT 0,
    chain_seen_at       timestamptz
);
CREATE INDEX withdrawals_user ON withdrawals (user_id, requested_at DESC, withdrawal_id);
CREATE INDEX withdrawals_pending ON withdrawals (requested_at, withdrawal_id) WHERE status = 'Pending';`
}

// Apply records each withdrawal event.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, env := range events {
		switch env.StreamID.Category() {
		case account.StreamCategory:
			e, err := projections.Decode(ctx, p.codec, env)
			if err != nil {
				return err
			}
			if err := apply(ctx, tx, env.StreamID.ID(), e); err != nil {
				return err
			}
		case chain.PayoutStreamCategory:
			e, err := projections.Decode(ctx, p.codec, env)
			if err != nil {
				return err
			}
			if seen, ok := e.(chain.PayoutSeen); ok {
				if _, err := tx.Exec(ctx, `UPDATE withdrawals SET chain_status = $2, chain_height = $3, chain_confirmations = $4, chain_seen_at = $5
					WHERE withdrawal_id = $1`, seen.WithdrawalID, string(seen.Status), int64(seen.Height), int64(seen.Confirmations), seen.At); err != nil {
					return fmt.Errorf("withdrawals: payout seen: %w", err)
				}
			}
		}
	}
	return nil
}

func apply(ctx context.Context, tx pgx.Tx, userID string, e any) error {
	var err error
	switch e := e.(type) {
	case account.WithdrawalRequested:
		_, err = tx.Exec(ctx, `INSERT INTO withdrawals (withdrawal_id, user_id, amount, fee, fee_waived, address, network, asset,
			status, tx_hash, on_chain_amount, usd_rate, reason, staff_id, requested_at)
			VALUES ($1, $2, $3, $4, 0, $5, $6, $7, 'Pending', '', '', '', '', '', $8) ON CONFLICT DO NOTHING`,
			e.WithdrawalID, userID, e.Amount.String(), e.Fee.String(), e.Address, e.Network, e.Asset, e.At)
	case account.WithdrawalApproved:
		_, err = tx.Exec(ctx, `UPDATE withdrawals SET status = 'Approved', tx_hash = $3, on_chain_amount = $4, usd_rate = $5,
			staff_id = $6, decided_at = $7 WHERE user_id = $1 AND withdrawal_id = $2`,
			userID, e.WithdrawalID, e.TxHash, e.OnChainAmount, e.USDRate, e.StaffID, e.At)
	case account.WithdrawalRejected:
		_, err = tx.Exec(ctx, `UPDATE withdrawals SET status = 'Rejected', reason = $3, staff_id = $4, decided_at = $5
			WHERE user_id = $1 AND withdrawal_id = $2`, userID, e.WithdrawalID, e.Reason, e.StaffID, e.At)
	case account.FeeWaived:
		_, err = tx.Exec(ctx, `UPDATE withdrawals SET fee_waived = fee_waived + $3 WHERE user_id = $1 AND withdrawal_id = $2`,
			userID, e.WithdrawalID, e.Amount.String())
	}
	if err != nil {
		return fmt.Errorf("withdrawals: %w", err)
	}
	return nil
}

// Withdrawal is one withdrawal row, with its owner's name and e-mail from the users read model.
// Receives is Amount − Fee, what the owner is paid.
type Withdrawal struct {
	ID            string
	UserID        string
	Amount        money.Money
	Fee           money.Money
	FeeWaived     money.Money
	Receives      money.Money
	Address       string
	Network       string
	Asset         string
	Status        account.Status
	TxHash        string
	OnChainAmount string
	USDRate       string
	Reason        string
	RequestedAt   time.Time
	DecidedAt     *time.Time
	Name, Email   string
	// OnChain is what the chain watcher last saw of the payout transaction; zero until seen.
	OnChain OnChain
}

// OnChain is a payout transaction as the chain watcher last saw it.
type OnChain struct {
	Status        chain.PayoutStatus // PayoutNotSeen ("") until seen
	Height        uint64
	Confirmations uint64
	SeenAt        *time.Time
}

// ErrNotFound is a withdrawal the read model does not hold.
var ErrNotFound = account.ErrWithdrawalNotFound

// cents writes a numeric column as money reads it: "-12.50", "0.00".
func cents(col string) string { return "to_char(" + col + ", 'FM999999999999999990.00')" }

var columns = `w.withdrawal_id, w.user_id, ` + cents("w.amount") + `, ` + cents("w.fee") + `, ` + cents("w.fee_waived") + `,
	w.address, w.network, w.asset, w.status, w.tx_hash, w.on_chain_amount, w.usd_rate, w.reason, w.requested_at, w.decided_at,
	coalesce(u.name, ''), coalesce(u.email, ''), w.chain_status, w.chain_height, w.chain_confirmations, w.chain_seen_at`

const from = ` FROM rm_withdrawals.withdrawals w LEFT JOIN rm_users.users u ON u.id = w.user_id `

func scan(rs pgx.CollectableRow) (Withdrawal, error) { return scanWith(rs) }

// scanWith scans columns and then extra, the columns a query adds after them.
func scanWith(rs pgx.CollectableRow, extra ...any) (Withdrawal, error) {
	var w Withdrawal
	var amount, fee, waived string
	var height, confirmations int64
	err := rs.Scan(append([]any{&w.ID, &w.UserID, &amount, &fee, &waived, &w.Address, &w.Network, &w.Asset, &w.Status, &w.TxHash,
		&w.OnChainAmount, &w.USDRate, &w.Reason, &w.RequestedAt, &w.DecidedAt, &w.Name, &w.Email,
		&w.OnChain.Status, &height, &confirmations, &w.OnChain.SeenAt}, extra...)...)
	if err != nil {
		return w, err
	}
	w.OnChain.Height, w.OnChain.Confirmations = uint64(height), uint64(confirmations)
	if w.OnChain.SeenAt != nil {
		t := w.OnChain.SeenAt.UTC()
		w.OnChain.SeenAt = &t
	}
	w.RequestedAt = w.RequestedAt.UTC()
	if w.DecidedAt != nil {
		t := w.DecidedAt.UTC()
		w.DecidedAt = &t
	}
	for _, f := range []struct {
		s string
		m *money.Money
	}{{amount, &w.Amount}, {fee, &w.Fee}, {waived, &w.FeeWaived}} {
		if *f.m, err = money.Parse(f.s); err != nil {
			return w, err
		}
	}
	w.Receives = w.Amount.Sub(w.Fee)
	return w, nil
}

// ByID returns one withdrawal.
func ByID(ctx context.Context, pool pgread.Querier, id string) (Withdrawal, error) {
	rows, err := pool.Query(ctx, `SELECT `+columns+from+`WHERE w.withdrawal_id = $1`, id)
	if err != nil {
		return Withdrawal{}, fmt.Errorf("withdrawals: withdrawal: %w", err)
	}
	w, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return Withdrawal{}, ErrNotFound
	}
	if err != nil {
		return Withdrawal{}, fmt.Errorf("withdrawals: withdrawal: %w", err)
	}
	return w, nil
}

// pendingQuery is the withdrawal queue: withdrawals waiting for staff.
var pendingQuery = keyset.Query{
	Select: columns, From: from, Where: `w.status = 'Pending'`,
	At: `w.requested_at`, ID: `w.withdrawal_id`,
	Count: `SELECT count(*) FROM rm_withdrawals.withdrawals WHERE status = 'Pending'`,
}

// PendingPage lists up to limit withdrawals waiting for staff, oldest first, starting after the
// cursor (from the start when after is nil), with how many wait in all (keyset.Fetch).
func PendingPage(ctx context.Context, pool pgread.Querier, after *keyset.Cursor, limit int) (list []Withdrawal, total int, more bool, err error) {
	list, total, more, err = keyset.Fetch(ctx, pool, pendingQuery, after, limit, func(row pgx.CollectableRow, total *int) (Withdrawal, error) {
		return scanWith(row, total)
	})
	if err != nil {
		return nil, 0, false, fmt.Errorf("withdrawals: pending %w", err)
	}
	return list, total, more, nil
}

// ByUser lists a user's withdrawals, newest first.
func ByUser(ctx context.Context, pool pgread.Querier, userID string, limit int) ([]Withdrawal, error) {
	if limit <= 0 {
		limit = 500
	}
	return list(ctx, pool, `WHERE w.user_id = $2 ORDER BY w.requested_at DESC, w.withdrawal_id LIMIT $1`, limit, userID)
}

func list(ctx context.Context, pool pgread.Querier, where string, args ...any) ([]Withdrawal, error) {
	rows, err := pool.Query(ctx, `SELECT `+columns+from+where, args...)
	if err != nil {
		return nil, fmt.Errorf("withdrawals: list: %w", err)
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("withdrawals: list: %w", err)
	}
	return out, nil
}

// Builder implements projections.Bulk: a rebuild holds every withdrawal in memory, applies each
// later event to it there and copies the rows once at the end, where Apply runs a statement per
// event. It does to the rows what Apply's statements do, in the same order
// (TestBulkRebuildEqualsLive compares the two).
func (p *Projection) Builder() projections.Builder {
	return &builder{p: p, byID: map[string]*withdrawalRow{}}
}

var _ projections.Bulk = (*Projection)(nil)

type withdrawalRow struct {
	id, user, address, network, asset, status, txHash, onChain, rate, reason, staffID string
	amount, fee, feeWaived                                                            money.Money
	requestedAt                                                                       time.Time
	decidedAt                                                                         *time.Time
	chainStatus                                                                       string
	chainHeight, chainConfirmations                                                   int64
	chainSeenAt                                                                       *time.Time
}

type builder struct {
	p    *Projection
	rows []*withdrawalRow
	byID map[string]*withdrawalRow
}

func (b *builder) Add(ctx context.Context, env eventstore.Envelope) error {
	category := env.StreamID.Category()
	if category != account.StreamCategory && category != chain.PayoutStreamCategory {
		return nil
	}
	e, err := projections.Decode(ctx, b.p.codec, env)
	if err != nil {
		return err
	}
	userID := env.StreamID.ID()
	// mine is the withdrawal an account event is about, when its user's (Apply's WHERE).
	mine := func(id string) *withdrawalRow {
		if r := b.byID[id]; r != nil && category == account.StreamCategory && r.user == userID {
			return r
		}
		return nil
	}
	switch e := e.(type) {
	case account.WithdrawalRequested:
		if category != account.StreamCategory || b.byID[e.WithdrawalID] != nil {
			return nil // ON CONFLICT DO NOTHING
		}
		r := &withdrawalRow{id: e.WithdrawalID, user: userID, address: e.Address, network: e.Network, asset: e.Asset,
			status: string(account.StatusPending), amount: e.Amount, fee: e.Fee, feeWaived: money.Zero, requestedAt: e.At}
		b.byID[r.id] = r
		b.rows = append(b.rows, r)
	case account.WithdrawalApproved:
		if r := mine(e.WithdrawalID); r != nil {
			at := e.At
			r.status, r.txHash, r.onChain, r.rate, r.staffID, r.decidedAt = string(account.StatusApproved), e.TxHash, e.OnChainAmount,
				e.USDRate, e.StaffID, &at
		}
	case account.WithdrawalRejected:
		if r := mine(e.WithdrawalID); r != nil {
			at := e.At
			r.status, r.reason, r.staffID, r.decidedAt = string(account.StatusRejected), e.Reason, e.StaffID, &at
		}
	case account.FeeWaived:
		if r := mine(e.WithdrawalID); r != nil {
			r.feeWaived = r.feeWaived.Add(e.Amount)
		}
	case chain.PayoutSeen:
		if r := b.byID[e.WithdrawalID]; r != nil && category == chain.PayoutStreamCategory {
			at := e.At
			r.chainStatus, r.chainHeight, r.chainConfirmations, r.chainSeenAt = string(e.Status), int64(e.Height), int64(e.Confirmations), &at
		}
	}
	return nil
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	if !final {
		return nil // a later event may still change any withdrawal
	}
	num := projections.Numeric
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"withdrawals"}, []string{"withdrawal_id", "user_id", "amount", "fee", "fee_waived",
		"address", "network", "asset", "status", "tx_hash", "on_chain_amount", "usd_rate", "reason", "staff_id", "requested_at",
		"decided_at", "chain_status", "chain_height", "chain_confirmations", "chain_seen_at"},
		pgx.CopyFromSlice(len(b.rows), func(i int) ([]any, error) {
			r := b.rows[i]
			return []any{r.id, r.user, num(r.amount), num(r.fee), num(r.feeWaived), r.address, r.network, r.asset, r.status,
				r.txHash, r.onChain, r.rate, r.reason, r.staffID, r.requestedAt, r.decidedAt, r.chainStatus, r.chainHeight,
				r.chainConfirmations, r.chainSeenAt}, nil
		}))
	if err != nil {
		return fmt.Errorf("withdrawals: copy: %w", err)
	}
	b.rows, b.byID = nil, nil
	return nil
}

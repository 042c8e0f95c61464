// Package wallets is the read model of users' deposits: every deposit with its status, for the
// status page and the staff queue. A user's dashboard figures are the books' (projections/ledger),
// read through Balances, so they are kept in one place.
package wallets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/ledger"
)

// Name of the projection; its tables live in schema rm_wallets.
const Name = "wallets"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the account events registered.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("wallets: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Version implements projections.Versioned. 2: the figures moved to the books
// (projections/ledger), and the balances table went.
func (*Projection) Version() int { return 2 }

// Schema implements projections.Projection.
func (*Projection) Schema() string {
	return `
CREATE TABLE deposits (
    deposit_id      text        NOT NULL,
    user_id         text        NOT NULL,
    transaction_id  text        NOT NULL,
    amount          numeric(20,2) NOT NULL,
    asset           text        NOT NULL,
    network         text        NOT NULL,
    address         text        NOT NULL,
    on_chain_amount text        NOT NULL,
    usd_rate        text        NOT NULL,
    tx_hash         text        NOT NULL,
    status          text        NOT NULL,
    received        numeric(20,2) NOT NULL,
    notes           text        NOT NULL,
    staff_id        text        NOT NULL,
    requested_at    timestamptz NOT NULL,
    decided_at      timestamptz,
    PRIMARY KEY (user_id, deposit_id)
);
CREATE UNIQUE INDEX deposits_transaction_id ON deposits (transaction_id);
CREATE INDEX deposits_pending ON deposits (requested_at, transaction_id) WHERE status = 'Pending';`
}

// Apply records each deposit event.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, env := range events {
		if env.StreamID.Category() != account.StreamCategory {
			continue
		}
		e, err := p.codec.Decode(env)
		if err != nil {
			return err
		}
		if err := applyDeposit(ctx, tx, env.StreamID.ID(), e); err != nil {
			return err
		}
	}
	return nil
}

func applyDeposit(ctx context.Context, tx pgx.Tx, userID string, e any) error {
	var err error
	switch e := e.(type) {
	case account.DepositRequested:
		_, err = tx.Exec(ctx, `INSERT INTO deposits (deposit_id, user_id, transaction_id, amount, asset, network, address,
			on_chain_amount, usd_rate, tx_hash, status, received, notes, staff_id, requested_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'Pending', 0, '', '', $11) ON CONFLICT DO NOTHING`,
			e.DepositID, userID, e.TransactionID, e.Amount.String(), e.Asset, e.Network, e.Address, e.OnChainAmount,
			e.USDRate, e.TxHash, e.At)
	case account.DepositConfirmed:
		_, err = tx.Exec(ctx, `UPDATE deposits SET status = 'Confirmed', received = $3, notes = $4, staff_id = $5, decided_at = $6
			WHERE user_id = $1 AND deposit_id = $2`, userID, e.DepositID, e.Received.String(), e.Notes, e.StaffID, e.At)
	case account.DepositRejected:
		_, err = tx.Exec(ctx, `UPDATE deposits SET status = 'Rejected', notes = $3, staff_id = $4, decided_at = $5
			WHERE user_id = $1 AND deposit_id = $2`, userID, e.DepositID, e.Notes, e.StaffID, e.At)
	}
	if err != nil {
		return fmt.Errorf("wallets: deposits: %w", err)
	}
	return nil
}

// Balances returns a user's figures from the books (projections/ledger); a user without money
// events has zeros.
func Balances(ctx context.Context, pool *pgxpool.Pool, userID string) (account.Balances, error) {
	b, err := ledger.Figures(ctx, pool, userID)
	if errors.Is(err, ledger.ErrNotFound) {
		return account.Balances{}, nil
	}
	if err != nil {
		return account.Balances{}, fmt.Errorf("wallets: balances: %w", err)
	}
	return b, nil
}

// cents writes a numeric column as money reads it: "-12.50", "0.00".
func cents(col string) string { return "to_char(" + col + ", 'FM999999999999999990.00')" }

// Deposit is one deposit row, with its owner's name and e-mail from the users read model.
type Deposit struct {
	TransactionID string
	UserID        string
	Amount        money.Money
	Asset         string
	Network       string
	Address       string
	OnChainAmount string
	USDRate       string
	TxHash        string
	Status        account.Status
	Received      money.Money
	Notes         string
	RequestedAt   time.Time
	DecidedAt     *time.Time
	Name, Email   string
}

// ErrNotFound is a deposit the read model does not hold.
var ErrNotFound = account.ErrDepositNotFound

var depositColumns = `d.transaction_id, d.user_id, ` + cents("d.amount") + `, d.asset, d.network,
	d.address, d.on_chain_amount, d.usd_rate, d.tx_hash, d.status, ` + cents("d.received") + `, d.notes,
	d.requested_at, d.decided_at, coalesce(u.name, ''), coalesce(u.email, '')`

func scanDeposit(rs pgx.CollectableRow) (Deposit, error) {
	var d Deposit
	var amount, received string
	err := rs.Scan(&d.TransactionID, &d.UserID, &amount, &d.Asset, &d.Network, &d.Address, &d.OnChainAmount, &d.USDRate,
		&d.TxHash, &d.Status, &received, &d.Notes, &d.RequestedAt, &d.DecidedAt, &d.Name, &d.Email)
	if err != nil {
		return d, err
	}
	d.RequestedAt = d.RequestedAt.UTC()
	if d.DecidedAt != nil {
		t := d.DecidedAt.UTC()
		d.DecidedAt = &t
	}
	if d.Amount, err = money.Parse(amount); err != nil {
		return d, err
	}
	d.Received, err = money.Parse(received)
	return d, err
}

// ByTransactionID returns one deposit.
func ByTransactionID(ctx context.Context, pool *pgxpool.Pool, transactionID string) (Deposit, error) {
	rows, err := pool.Query(ctx, `SELECT `+depositColumns+` FROM rm_wallets.deposits d
		LEFT JOIN rm_users.users u ON u.id = d.user_id WHERE d.transaction_id = $1`, transactionID)
	if err != nil {
		return Deposit{}, fmt.Errorf("wallets: deposit: %w", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanDeposit)
	if errors.Is(err, pgx.ErrNoRows) {
		return Deposit{}, ErrNotFound
	}
	if err != nil {
		return Deposit{}, fmt.Errorf("wallets: deposit: %w", err)
	}
	return d, nil
}

// PendingDeposits lists the deposits waiting for staff, oldest first.
func PendingDeposits(ctx context.Context, pool *pgxpool.Pool, limit int) ([]Deposit, error) {
	if limit <= 0 {
		limit = 500
	}
	rows, err := pool.Query(ctx, `SELECT `+depositColumns+` FROM rm_wallets.deposits d
		LEFT JOIN rm_users.users u ON u.id = d.user_id WHERE d.status = 'Pending'
		ORDER BY d.requested_at, d.transaction_id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("wallets: pending deposits: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanDeposit)
	if err != nil {
		return nil, fmt.Errorf("wallets: pending deposits: %w", err)
	}
	return list, nil
}

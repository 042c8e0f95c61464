// Package wallets is the read model of users' deposits: every deposit with its status, for the
// status page and the staff queue. A user's dashboard figures are the books' (projections/ledger),
// read through Balances, so they are kept in one place.
package wallets

import (
	"clearvest/platform/pgread"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/keyset"
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
// (projections/ledger), and the balances table went. 3: a deposit's source (declared, or seen
// on the chain), which staff and the investor read beside its status.
func (*Projection) Version() int { return 3 }

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
    source          text        NOT NULL DEFAULT '',
    requested_at    timestamptz NOT NULL,
    decided_at      timestamptz,
    PRIMARY KEY (user_id, deposit_id)
);
CREATE UNIQUE INDEX deposits_transaction_id ON deposits (transaction_id);
CREATE INDEX deposits_pending ON deposits (requested_at, transaction_id) WHERE status = 'Pending';`
}

// Apply records each deposit event. The requests of a batch go in as one multi-row INSERT
// rather than a statement each, which was most of this projection's cost under load
// (docs/benchmarks.md, "Money commands over HTTP"); decisions are rare and stay one UPDATE each.
// Every statement goes in one round trip, in the events' order: a request's INSERT is queued
// before a decision on it.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	batch := &pgx.Batch{}
	var reqs requests
	for _, env := range events {
		if env.StreamID.Category() != account.StreamCategory {
			continue
		}
		e, err := projections.Decode(ctx, p.codec, env)
		if err != nil {
			return err
		}
		userID := env.StreamID.ID()
		switch e := e.(type) {
		case account.DepositRequested:
			reqs.add(userID, e)
		case account.DepositConfirmed:
			reqs.queue(batch)
			batch.Queue(`UPDATE deposits SET status = 'Confirmed', received = $3, notes = $4, staff_id = $5, decided_at = $6
				WHERE user_id = $1 AND deposit_id = $2`, userID, e.DepositID, e.Received.String(), e.Notes, e.StaffID, e.At)
		case account.DepositRejected:
			reqs.queue(batch)
			batch.Queue(`UPDATE deposits SET status = 'Rejected', notes = $3, staff_id = $4, decided_at = $5
				WHERE user_id = $1 AND deposit_id = $2`, userID, e.DepositID, e.Notes, e.StaffID, e.At)
		case account.DepositLinkedToChain:
			// As the account applies it: a deposit staff already confirmed keeps what they saw.
			reqs.queue(batch)
			batch.Queue(`UPDATE deposits SET source = 'chain', asset = $3, on_chain_amount = $4, address = $5
				WHERE user_id = $1 AND deposit_id = $2 AND status = 'Pending'`, userID, e.DepositID, e.Asset, e.OnChainAmount, e.Address)
		}
	}
	reqs.queue(batch)
	if batch.Len() == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("wallets: deposits: %w", err)
	}
	return nil
}

// requests collects deposit requests, column by column, for one INSERT.
type requests struct {
	depositIDs, userIDs, transactionIDs, amounts, assets, networks, addresses, onChain, rates, txHashes, sources []string
	at                                                                                                           []time.Time
}

func (r *requests) add(userID string, e account.DepositRequested) {
	r.depositIDs = append(r.depositIDs, e.DepositID)
	r.userIDs = append(r.userIDs, userID)
	r.transactionIDs = append(r.transactionIDs, e.TransactionID)
	r.amounts = append(r.amounts, e.Amount.String())
	r.assets = append(r.assets, e.Asset)
	r.networks = append(r.networks, e.Network)
	r.addresses = append(r.addresses, e.Address)
	r.onChain = append(r.onChain, e.OnChainAmount)
	r.rates = append(r.rates, e.USDRate)
	r.txHashes = append(r.txHashes, e.TxHash)
	r.sources = append(r.sources, e.Source)
	r.at = append(r.at, e.At)
}

// queue adds the INSERT of the requests collected so far to batch, and starts afresh.
func (r *requests) queue(batch *pgx.Batch) {
	if len(r.depositIDs) == 0 {
		return
	}
	batch.Queue(`INSERT INTO deposits (deposit_id, user_id, transaction_id, amount, asset, network, address,
		on_chain_amount, usd_rate, tx_hash, status, received, notes, staff_id, source, requested_at)
		SELECT d, u, t, a, s, n, ad, oc, ra, h, 'Pending', 0, '', '', so, at
		FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::text[],
		  $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::text[]) AS r(d, u, t, a, s, n, ad, oc, ra, h, at, so)
		ON CONFLICT DO NOTHING`,
		r.depositIDs, r.userIDs, r.transactionIDs, r.amounts, r.assets, r.networks, r.addresses, r.onChain,
		r.rates, r.txHashes, r.at, r.sources)
	*r = requests{}
}

// Balances returns a user's figures from the books (projections/ledger); a user without money
// events has zeros.
func Balances(ctx context.Context, pool pgread.Querier, userID string) (account.Balances, error) {
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
	ID            string
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
	// Source is account.SourceChain for a deposit the chain watcher records and decides; empty
	// for one an investor declared and staff decide.
	Source      string
	RequestedAt time.Time
	DecidedAt   *time.Time
	Name, Email string
}

// ErrNotFound is a deposit the read model does not hold.
var ErrNotFound = account.ErrDepositNotFound

var depositColumns = `d.deposit_id, d.transaction_id, d.user_id, ` + cents("d.amount") + `, d.asset, d.network,
	d.address, d.on_chain_amount, d.usd_rate, d.tx_hash, d.status, ` + cents("d.received") + `, d.notes,
	d.requested_at, d.decided_at, coalesce(u.name, ''), coalesce(u.email, ''), d.source`

func scanDeposit(rs pgx.CollectableRow) (Deposit, error) { return scanDepositWith(rs) }

// scanDepositWith scans depositColumns and then extra, the columns a query adds after them.
func scanDepositWith(rs pgx.CollectableRow, extra ...any) (Deposit, error) {
	var d Deposit
	var amount, received string
	err := rs.Scan(append([]any{&d.ID, &d.TransactionID, &d.UserID, &amount, &d.Asset, &d.Network, &d.Address, &d.OnChainAmount, &d.USDRate,
		&d.TxHash, &d.Status, &received, &d.Notes, &d.RequestedAt, &d.DecidedAt, &d.Name, &d.Email, &d.Source}, extra...)...)
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
func ByTransactionID(ctx context.Context, pool pgread.Querier, transactionID string) (Deposit, error) {
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

// PendingChainOf returns a user's pending deposits the chain watcher decides, oldest first.
func PendingChainOf(ctx context.Context, pool pgread.Querier, userID string) ([]Deposit, error) {
	rows, err := pool.Query(ctx, `SELECT `+depositColumns+` FROM rm_wallets.deposits d
		LEFT JOIN rm_users.users u ON u.id = d.user_id
		WHERE d.user_id = $1 AND d.status = 'Pending' AND d.source = 'chain' ORDER BY d.requested_at, d.transaction_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("wallets: pending chain deposits: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanDeposit)
	if err != nil {
		return nil, fmt.Errorf("wallets: pending chain deposits: %w", err)
	}
	return list, nil
}

// pendingQuery is the deposit queue: deposits waiting for staff.
var pendingQuery = keyset.Query{
	Select: depositColumns,
	From:   `FROM rm_wallets.deposits d LEFT JOIN rm_users.users u ON u.id = d.user_id`,
	Where:  `d.status = 'Pending'`,
	At:     `d.requested_at`, ID: `d.transaction_id`,
	Count: `SELECT count(*) FROM rm_wallets.deposits WHERE status = 'Pending'`,
}

// PendingPage lists up to limit deposits waiting for staff, oldest first, starting after the
// cursor (from the start when after is nil), with how many wait in all (keyset.Fetch).
func PendingPage(ctx context.Context, pool pgread.Querier, after *keyset.Cursor, limit int) (list []Deposit, total int, more bool, err error) {
	list, total, more, err = keyset.Fetch(ctx, pool, pendingQuery, after, limit, func(row pgx.CollectableRow, total *int) (Deposit, error) {
		return scanDepositWith(row, total)
	})
	if err != nil {
		return nil, 0, false, fmt.Errorf("wallets: pending %w", err)
	}
	return list, total, more, nil
}

// PendingForStaff counts the pending deposits staff decide: the declared ones. A chain deposit
// waits in the queue too, with its confirmations, but the watcher decides it.
func PendingForStaff(ctx context.Context, pool pgread.Querier) (int, error) {
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM rm_wallets.deposits WHERE status = 'Pending' AND source <> 'chain'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("wallets: pending for staff: %w", err)
	}
	return n, nil
}

// DepositedOf returns what each of the users has deposited: the sum received of their confirmed
// deposits, by user id; a user without one is left out (nothing deposited).
func DepositedOf(ctx context.Context, pool pgread.Querier, userIDs []string) (map[string]money.Money, error) {
	rows, err := pool.Query(ctx, `SELECT user_id, `+cents(`sum(received)`)+` FROM rm_wallets.deposits
		WHERE user_id = ANY($1) AND status = 'Confirmed' GROUP BY user_id`, userIDs)
	if err != nil {
		return nil, fmt.Errorf("wallets: deposited: %w", err)
	}
	defer rows.Close()
	out := make(map[string]money.Money, len(userIDs))
	for rows.Next() {
		var id, sum string
		if err := rows.Scan(&id, &sum); err != nil {
			return nil, fmt.Errorf("wallets: deposited: %w", err)
		}
		m, err := money.Parse(sum)
		if err != nil {
			return nil, fmt.Errorf("wallets: deposited: %w", err)
		}
		out[id] = m
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("wallets: deposited: %w", err)
	}
	return out, nil
}

// Builder implements projections.Bulk: a rebuild holds every deposit in memory, makes each
// decision on it there, and copies the rows once at the end, where Apply inserts the requests
// and updates a row per decision. It does to the rows what Apply's statements do, in the same
// order (TestBulkRebuildEqualsLive compares the two).
func (p *Projection) Builder() projections.Builder {
	return &builder{p: p, byKey: map[depositKey]*depositRow{}, txIDs: map[string]bool{}}
}

var _ projections.Bulk = (*Projection)(nil)

type depositKey struct{ user, deposit string }

type depositRow struct {
	key                                                           depositKey
	transactionID, asset, network, address, onChain, rate, txHash string
	status, notes, staffID, source                                string
	amount, received                                              money.Money
	requestedAt                                                   time.Time
	decidedAt                                                     *time.Time
}

type builder struct {
	p     *Projection
	rows  []*depositRow
	byKey map[depositKey]*depositRow
	txIDs map[string]bool // the unique transaction ids taken
}

func (b *builder) Add(ctx context.Context, env eventstore.Envelope) error {
	if env.StreamID.Category() != account.StreamCategory {
		return nil
	}
	e, err := projections.Decode(ctx, b.p.codec, env) // every one, as Apply decodes them
	if err != nil {
		return err
	}
	userID := env.StreamID.ID()
	switch e := e.(type) {
	case account.DepositRequested:
		k := depositKey{userID, e.DepositID}
		if b.byKey[k] != nil || b.txIDs[e.TransactionID] {
			return nil // ON CONFLICT DO NOTHING
		}
		row := &depositRow{key: k, transactionID: e.TransactionID, asset: e.Asset, network: e.Network, address: e.Address,
			onChain: e.OnChainAmount, rate: e.USDRate, txHash: e.TxHash, status: string(account.StatusPending), source: e.Source,
			amount: e.Amount, received: money.Zero, requestedAt: e.At}
		b.byKey[k], b.txIDs[e.TransactionID] = row, true
		b.rows = append(b.rows, row)
	case account.DepositConfirmed:
		if row := b.byKey[depositKey{userID, e.DepositID}]; row != nil {
			at := e.At
			row.status, row.received, row.notes, row.staffID, row.decidedAt = string(account.StatusConfirmed), e.Received, e.Notes, e.StaffID, &at
		}
	case account.DepositRejected:
		if row := b.byKey[depositKey{userID, e.DepositID}]; row != nil {
			at := e.At
			row.status, row.notes, row.staffID, row.decidedAt = string(account.StatusRejected), e.Notes, e.StaffID, &at
		}
	case account.DepositLinkedToChain:
		if row := b.byKey[depositKey{userID, e.DepositID}]; row != nil && row.status == string(account.StatusPending) {
			row.source, row.asset, row.onChain, row.address = "chain", e.Asset, e.OnChainAmount, e.Address
		}
	}
	return nil
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	if !final {
		return nil // a later decision may still change any deposit
	}
	num := projections.Numeric
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"deposits"}, []string{"deposit_id", "user_id", "transaction_id", "amount", "asset",
		"network", "address", "on_chain_amount", "usd_rate", "tx_hash", "status", "received", "notes", "staff_id", "source",
		"requested_at", "decided_at"}, pgx.CopyFromSlice(len(b.rows), func(i int) ([]any, error) {
		r := b.rows[i]
		return []any{r.key.deposit, r.key.user, r.transactionID, num(r.amount), r.asset, r.network, r.address, r.onChain, r.rate,
			r.txHash, r.status, num(r.received), r.notes, r.staffID, r.source, r.requestedAt, r.decidedAt}, nil
	}))
	if err != nil {
		return fmt.Errorf("wallets: copy deposits: %w", err)
	}
	b.rows, b.byKey, b.txIDs = nil, nil, nil
	return nil
}

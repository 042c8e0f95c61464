// Package ledger is the double-entry read model of the money events: every account.* event's
// postings (domain/ledger.Postings) as rows, every account's balance, and every user's figures.
// Auditors read the trial balance and the accounts that ever went below zero from it; the
// figures are the ones the dashboard shows, read from the books instead of the aggregate.
package ledger

import (
	"clearvest/platform/pgread"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	books "clearvest/domain/ledger"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_ledger.
const Name = "ledger"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the account events registered.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("ledger: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection. Amounts are NUMERIC(20,2) like every amount in a
// read model.
//
//   - postings: one row per posting, keyed by the event's position and the posting's line in
//     its set.
//   - balances: one row per account; lowest is the lowest balance the account had after any
//     event, first_negative the position of the event that first took it below zero.
//   - figures: one row per user, the dashboard figures (ledger.Figures) summed over the user's
//     events.
func (*Projection) Schema() string {
	return `
CREATE TABLE postings (
    position   bigint        NOT NULL,
    line       smallint      NOT NULL,
    stream_id  text          NOT NULL,
    event_type text          NOT NULL,
    account    text          NOT NULL,
    amount     numeric(20,2) NOT NULL,
    user_id    text          NOT NULL,
    PRIMARY KEY (position, line)
);
CREATE INDEX postings_by_user ON postings (user_id, position);
CREATE INDEX postings_by_account ON postings (account, position);
CREATE TABLE balances (
    account        text          PRIMARY KEY,
    user_account   boolean       NOT NULL,
    balance        numeric(20,2) NOT NULL,
    lowest         numeric(20,2) NOT NULL,
    first_negative bigint
);
CREATE TABLE figures (
    user_id     text          PRIMARY KEY,
    available   numeric(20,2) NOT NULL,
    held        numeric(20,2) NOT NULL,
    invested    numeric(20,2) NOT NULL,
    returns     numeric(20,2) NOT NULL,
    fees        numeric(20,2) NOT NULL,
    adjustments numeric(20,2) NOT NULL,
    referrals   numeric(20,2) NOT NULL
);`
}

type balanceRow struct {
	balance, lowest money.Money
	firstNegative   *int64
	user            bool
}

// Apply decodes the batch's money events, folds balances and figures in memory (starting from
// the rows already stored for the accounts and users the batch touches) and writes one statement
// per table.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	var batch []posted
	accountSet, userSet := map[string]bool{}, map[string]bool{}
	for _, env := range events {
		b, ok, err := p.post(ctx, env)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		batch = append(batch, b)
		userSet[b.env.StreamID.ID()] = true
		for _, q := range b.ps {
			accountSet[string(q.Account)] = true
		}
	}
	if len(batch) == 0 {
		return nil
	}

	bals, err := loadBalances(ctx, tx, keys(accountSet))
	if err != nil {
		return err
	}
	figs, err := loadFigures(ctx, tx, keys(userSet))
	if err != nil {
		return err
	}
	f := &fold{bals: bals, figs: figs}
	for _, b := range batch {
		f.add(b)
	}

	r := &f.postings
	if _, err := tx.Exec(ctx, `
		INSERT INTO postings (position, line, stream_id, event_type, account, amount, user_id)
		SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::text[])`,
		r.positions, r.lines, r.streams, r.types, r.accounts, texts(r.amounts), r.users); err != nil {
		return fmt.Errorf("ledger: postings: %w", err)
	}

	var (
		bAccounts, bBalances, bLowest []string
		bUser                         []bool
		bNegative                     []*int64
	)
	for _, a := range keys(accountSet) {
		r := bals[a]
		bAccounts = append(bAccounts, a)
		bUser = append(bUser, r.user)
		bBalances = append(bBalances, r.balance.String())
		bLowest = append(bLowest, r.lowest.String())
		bNegative = append(bNegative, r.firstNegative)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO balances (account, user_account, balance, lowest, first_negative)
		SELECT * FROM unnest($1::text[], $2::boolean[], $3::numeric[], $4::numeric[], $5::bigint[])
		ON CONFLICT (account) DO UPDATE SET balance = EXCLUDED.balance, lowest = EXCLUDED.lowest,
		  first_negative = EXCLUDED.first_negative`,
		bAccounts, bUser, bBalances, bLowest, bNegative); err != nil {
		return fmt.Errorf("ledger: balances: %w", err)
	}

	cols := make([][]string, 8)
	for _, u := range keys(userSet) {
		f := figs[u]
		for i, v := range []string{u, f.Available.String(), f.Held.String(), f.Invested.String(), f.Returns.String(),
			f.Fees.String(), f.Adjustments.String(), f.Referrals.String()} {
			cols[i] = append(cols[i], v)
		}
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO figures (user_id, available, held, invested, returns, fees, adjustments, referrals)
		SELECT * FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[])
		ON CONFLICT (user_id) DO UPDATE SET available = EXCLUDED.available, held = EXCLUDED.held, invested = EXCLUDED.invested,
		  returns = EXCLUDED.returns, fees = EXCLUDED.fees, adjustments = EXCLUDED.adjustments, referrals = EXCLUDED.referrals`,
		cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7]); err != nil {
		return fmt.Errorf("ledger: figures: %w", err)
	}
	return nil
}

// posted is a money event and its postings.
type posted struct {
	env eventstore.Envelope
	ps  []books.Posting
}

// post decodes env if it is an account's event; ok is false for events that post nothing.
func (p *Projection) post(ctx context.Context, env eventstore.Envelope) (posted, bool, error) {
	if env.StreamID.Category() != account.StreamCategory {
		return posted{}, false, nil
	}
	e, err := projections.Decode(ctx, p.codec, env)
	if err != nil {
		return posted{}, false, fmt.Errorf("ledger: %s at position %d: %w", env.Type, env.Position, err)
	}
	ps := books.Postings(env.StreamID.ID(), e)
	if len(ps) == 0 {
		return posted{}, false, nil
	}
	if len(ps) > 32767 {
		return posted{}, false, fmt.Errorf("ledger: %s at position %d has %d postings", env.Type, env.Position, len(ps))
	}
	return posted{env, ps}, true, nil
}

// fold is what postings are folded into before their rows are written: one batch's in Apply,
// the whole log's in a rebuild (Builder).
type fold struct {
	bals     map[string]*balanceRow      // by account
	figs     map[string]account.Balances // by user
	postings postingRows
}

// postingRows collects postings, column by column.
type postingRows struct {
	positions                       []int64
	lines                           []int16
	streams, types, accounts, users []string
	amounts                         []money.Money
}

// add folds one event's postings.
func (f *fold) add(b posted) {
	r := &f.postings
	userID := b.env.StreamID.ID()
	for i, q := range b.ps {
		r.positions = append(r.positions, b.env.Position)
		r.lines = append(r.lines, int16(i))
		r.streams = append(r.streams, string(b.env.StreamID))
		r.types = append(r.types, b.env.Type)
		r.accounts = append(r.accounts, string(q.Account))
		r.amounts = append(r.amounts, q.Amount)
		r.users = append(r.users, q.User)

		row := f.bals[string(q.Account)]
		if row == nil {
			_, _, isUser := q.Account.User()
			row = &balanceRow{user: isUser}
			f.bals[string(q.Account)] = row
		}
		row.balance = row.balance.Add(q.Amount)
	}
	// Balances are judged after the whole set, as the trial balance judges them.
	for _, q := range b.ps {
		row := f.bals[string(q.Account)]
		if row.balance.LessThan(row.lowest) {
			row.lowest = row.balance
		}
		if row.balance.IsNegative() && row.firstNegative == nil {
			pos := b.env.Position
			row.firstNegative = &pos
		}
	}
	f.figs[userID] = add(f.figs[userID], books.Figures(userID, b.ps))
}

func texts(ms []money.Money) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// Builder implements projections.Bulk: a rebuild writes the postings batch by batch with COPY
// and folds every account's balance and every user's figures in memory, writing each row once
// at the end, where Apply would read them back and upsert them in every batch.
func (p *Projection) Builder() projections.Builder {
	return &builder{p: p, f: &fold{bals: map[string]*balanceRow{}, figs: map[string]account.Balances{}}}
}

var _ projections.Bulk = (*Projection)(nil)

type builder struct {
	p *Projection
	f *fold
}

func (b *builder) Add(ctx context.Context, env eventstore.Envelope) error {
	it, ok, err := b.p.post(ctx, env)
	if err != nil || !ok {
		return err
	}
	b.f.add(it)
	return nil
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	r := &b.f.postings
	if len(r.positions) > 0 {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"postings"}, []string{"position", "line", "stream_id", "event_type", "account",
			"amount", "user_id"}, pgx.CopyFromSlice(len(r.positions), func(i int) ([]any, error) {
			return []any{r.positions[i], r.lines[i], r.streams[i], r.types[i], r.accounts[i], projections.Numeric(r.amounts[i]), r.users[i]}, nil
		}))
		if err != nil {
			return fmt.Errorf("ledger: copy postings: %w", err)
		}
		*r = postingRows{}
	}
	if !final {
		return nil
	}
	accounts := slices.Sorted(maps.Keys(b.f.bals))
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"balances"}, []string{"account", "user_account", "balance", "lowest", "first_negative"},
		pgx.CopyFromSlice(len(accounts), func(i int) ([]any, error) {
			row := b.f.bals[accounts[i]]
			return []any{accounts[i], row.user, projections.Numeric(row.balance), projections.Numeric(row.lowest), row.firstNegative}, nil
		})); err != nil {
		return fmt.Errorf("ledger: copy balances: %w", err)
	}
	users := slices.Sorted(maps.Keys(b.f.figs))
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"figures"}, []string{"user_id", "available", "held", "invested", "returns", "fees",
		"adjustments", "referrals"}, pgx.CopyFromSlice(len(users), func(i int) ([]any, error) {
		f := b.f.figs[users[i]]
		num := projections.Numeric
		return []any{users[i], num(f.Available), num(f.Held), num(f.Invested), num(f.Returns), num(f.Fees),
			num(f.Adjustments), num(f.Referrals)}, nil
	})); err != nil {
		return fmt.Errorf("ledger: copy figures: %w", err)
	}
	return nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out) // a stable order keeps row locks in the same order in every batch
	return out
}

func add(a, b account.Balances) account.Balances {
	return account.Balances{
		Available: a.Available.Add(b.Available), Held: a.Held.Add(b.Held), Invested: a.Invested.Add(b.Invested),
		Returns: a.Returns.Add(b.Returns), Fees: a.Fees.Add(b.Fees), Adjustments: a.Adjustments.Add(b.Adjustments),
		Referrals: a.Referrals.Add(b.Referrals),
	}
}

func loadBalances(ctx context.Context, tx pgx.Tx, accounts []string) (map[string]*balanceRow, error) {
	rows, err := tx.Query(ctx, `SELECT account, user_account, balance::text, lowest::text, first_negative
		FROM balances WHERE account = ANY($1)`, accounts)
	if err != nil {
		return nil, fmt.Errorf("ledger: balances: %w", err)
	}
	defer rows.Close()
	out := map[string]*balanceRow{}
	for rows.Next() {
		var (
			a, bal, low string
			r           balanceRow
		)
		if err := rows.Scan(&a, &r.user, &bal, &low, &r.firstNegative); err != nil {
			return nil, err
		}
		if r.balance, err = money.Parse(bal); err == nil {
			r.lowest, err = money.Parse(low)
		}
		if err != nil {
			return nil, fmt.Errorf("ledger: balance of %s: %w", a, err)
		}
		out[a] = &r
	}
	return out, rows.Err()
}

const figureColumns = `available::text, held::text, invested::text, returns::text, fees::text, adjustments::text, referrals::text`

func scanFigures(row pgx.Row, extra ...any) (account.Balances, error) {
	var s [7]string
	dest := append(extra, &s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6])
	if err := row.Scan(dest...); err != nil {
		return account.Balances{}, err
	}
	return parseFigures(s)
}

// parseFigures reads figureColumns' text, in their order.
func parseFigures(s [7]string) (account.Balances, error) {
	var b account.Balances
	for i, f := range []*money.Money{&b.Available, &b.Held, &b.Invested, &b.Returns, &b.Fees, &b.Adjustments, &b.Referrals} {
		m, err := money.Parse(s[i])
		if err != nil {
			return account.Balances{}, err
		}
		*f = m
	}
	return b, nil
}

func loadFigures(ctx context.Context, tx pgx.Tx, users []string) (map[string]account.Balances, error) {
	rows, err := tx.Query(ctx, `SELECT user_id, `+figureColumns+` FROM figures WHERE user_id = ANY($1)`, users)
	if err != nil {
		return nil, fmt.Errorf("ledger: figures: %w", err)
	}
	defer rows.Close()
	out := map[string]account.Balances{}
	for rows.Next() {
		var u string
		b, err := scanFigures(rows, &u)
		if err != nil {
			return nil, fmt.Errorf("ledger: figures: %w", err)
		}
		out[u] = b
	}
	return out, rows.Err()
}

// ---- queries ----

// Querier is what the queries read through: a pool, a transaction that reads the read model
// and its checkpoint from one snapshot, or a read replica's choice.
type Querier = pgread.Querier

// ErrNotFound is returned for a user the read model holds no money events of.
var ErrNotFound = errors.New("ledger: no money events for this user")

// Balance is one account's balance.
type Balance struct {
	Account books.Account
	Balance money.Money
}

// TrialBalance is the books as the read model holds them.
type TrialBalance struct {
	// Total is the sum of every balance: zero when the books balance.
	Total money.Money
	// Accounts lists every account's balance, by name.
	Accounts []Balance
	// Unbalanced lists the positions of events whose postings did not sum to zero.
	Unbalanced []int64
}

// Balanced reports whether the total and every event's postings sum to zero.
func (tb TrialBalance) Balanced() bool { return tb.Total.IsZero() && len(tb.Unbalanced) == 0 }

// ReadTrialBalance reads every account's balance and the events whose postings do not balance.
func ReadTrialBalance(ctx context.Context, q Querier) (TrialBalance, error) {
	var tb TrialBalance
	rows, err := q.Query(ctx, `SELECT account, balance::text FROM rm_ledger.balances ORDER BY account`)
	if err != nil {
		return tb, err
	}
	tb.Accounts, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Balance, error) {
		var a, s string
		if err := row.Scan(&a, &s); err != nil {
			return Balance{}, err
		}
		m, err := money.Parse(s)
		return Balance{Account: books.Account(a), Balance: m}, err
	})
	if err != nil {
		return tb, err
	}
	for _, b := range tb.Accounts {
		tb.Total = tb.Total.Add(b.Balance)
	}
	rows, err = q.Query(ctx, `SELECT position FROM rm_ledger.postings GROUP BY position HAVING sum(amount) <> 0 ORDER BY position`)
	if err != nil {
		return tb, err
	}
	tb.Unbalanced, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	return tb, err
}

// Negative is a user account that went below zero.
type Negative struct {
	Account books.Account
	// Lowest is the lowest balance it had after an event; Position is the event that first took
	// it below zero.
	Lowest   money.Money
	Position int64
}

// WentNegative lists the user accounts that were below zero after any event, in the order it
// first happened. It must be empty.
func WentNegative(ctx context.Context, q Querier) ([]Negative, error) {
	rows, err := q.Query(ctx, `SELECT account, lowest::text, first_negative FROM rm_ledger.balances
		WHERE user_account AND first_negative IS NOT NULL ORDER BY first_negative, account`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Negative, error) {
		var a, s string
		var n Negative
		if err := row.Scan(&a, &s, &n.Position); err != nil {
			return n, err
		}
		n.Account = books.Account(a)
		var err error
		n.Lowest, err = money.Parse(s)
		return n, err
	})
}

// Figures reads a user's figures from the books; ErrNotFound when the user has no posting.
func Figures(ctx context.Context, q Querier, userID string) (account.Balances, error) {
	b, err := scanFigures(q.QueryRow(ctx, `SELECT `+figureColumns+` FROM rm_ledger.figures WHERE user_id = $1`, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, ErrNotFound
	}
	return b, err
}

// Joined reads a user's figures in the same query as another read model's row (the dashboard
// reads the users row and the figures together, in one round trip): Columns and Join go into
// that query, Dest receives the columns, and Balances reads them, zeros for a user with no
// posting (the join found no row). It implements users.Join.
type Joined struct {
	userID string
	s      [7]*string
}

// JoinFigures returns a Joined for a query whose user id is in userIDColumn (for example
// "u.id": rm_users.users as users.GetWith names it).
func JoinFigures(userIDColumn string) *Joined { return &Joined{userID: userIDColumn} }

// Columns are the figures' columns, from the joined table's alias.
func (*Joined) Columns() string { return joinedColumns }

var joinedColumns = "lf." + strings.ReplaceAll(figureColumns, ", ", ", lf.")

// Join is the LEFT JOIN of the figures on the user id.
func (j *Joined) Join() string { return `LEFT JOIN rm_ledger.figures lf ON lf.user_id = ` + j.userID }

// Dest are the scan destinations of Columns.
func (j *Joined) Dest() []any {
	return []any{&j.s[0], &j.s[1], &j.s[2], &j.s[3], &j.s[4], &j.s[5], &j.s[6]}
}

// Balances are the figures read; zeros when the user has no row in the books.
func (j *Joined) Balances() (account.Balances, error) {
	if j.s[0] == nil {
		return account.Balances{}, nil
	}
	var s [7]string
	for i, p := range j.s {
		if p == nil {
			return account.Balances{}, errors.New("ledger: figures: a NULL column")
		}
		s[i] = *p
	}
	return parseFigures(s)
}

// FiguresOf reads the figures of the users named, by user id, in one query. A user with no row
// in the books (no money yet) is left out: their figures are zeros.
func FiguresOf(ctx context.Context, q Querier, userIDs []string) (map[string]account.Balances, error) {
	rows, err := q.Query(ctx, `SELECT user_id, `+figureColumns+` FROM rm_ledger.figures WHERE user_id = ANY($1)`, userIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]account.Balances, len(userIDs))
	for rows.Next() {
		var u string
		b, err := scanFigures(rows, &u)
		if err != nil {
			return nil, err
		}
		out[u] = b
	}
	return out, rows.Err()
}

// UserFigures is one user's row of the figures.
type UserFigures struct {
	UserID  string
	Figures account.Balances
}

// FigureCursor reads every user's figures in the byte order of their ids (Go's string order), a
// page at a time, through a cursor of the transaction it was opened in: a reader that merges them
// with something else in that order holds one page, however many users there are.
type FigureCursor struct {
	tx   pgx.Tx
	page []UserFigures
	done bool
}

// figurePage is how many users a fetch reads.
const figurePage = 1000

// OpenFigures declares the cursor in tx, which must stay open while it is read.
func OpenFigures(ctx context.Context, tx pgx.Tx) (*FigureCursor, error) {
	if _, err := tx.Exec(ctx, `DECLARE ledger_figures NO SCROLL CURSOR FOR
		SELECT user_id, `+figureColumns+` FROM rm_ledger.figures ORDER BY user_id COLLATE "C"`); err != nil {
		return nil, fmt.Errorf("ledger: figures: %w", err)
	}
	return &FigureCursor{tx: tx}, nil
}

// Peek returns the next user's figures without moving past them; ok is false after the last.
func (c *FigureCursor) Peek(ctx context.Context) (f UserFigures, ok bool, err error) {
	if len(c.page) == 0 && !c.done {
		rows, err := c.tx.Query(ctx, fmt.Sprintf(`FETCH %d FROM ledger_figures`, figurePage))
		if err != nil {
			return UserFigures{}, false, fmt.Errorf("ledger: figures: %w", err)
		}
		c.page, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (UserFigures, error) {
			var f UserFigures
			var err error
			f.Figures, err = scanFigures(row, &f.UserID)
			return f, err
		})
		if err != nil {
			return UserFigures{}, false, fmt.Errorf("ledger: figures: %w", err)
		}
		c.done = len(c.page) < figurePage
	}
	if len(c.page) == 0 {
		return UserFigures{}, false, nil
	}
	return c.page[0], true, nil
}

// Next moves past the figures Peek returned.
func (c *FigureCursor) Next() {
	if len(c.page) > 0 {
		c.page = c.page[1:]
	}
}

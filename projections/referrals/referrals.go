// Package referrals is the read model of referrals: for each referrer, the users they referred
// (name, photo, when they joined), whether each has qualified (their first deposit was
// confirmed) and the bonus credited for them, for the referrals page.
//
// Events are decoded through the registry, so its field cipher must be set: names and photos are
// personal fields. As in the users read model, a closed account keeps its row (the referrer's
// bonus for it stays theirs) with its personal fields blanked, so the read model never outlives
// an erasure, and a rebuild after the user's key was destroyed yields the same rows.
package referrals

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_referrals.
const Name = "referrals"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the identity and account events
// registered and, for a log with sealed personal fields, its cipher set.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("referrals: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection. Only referred users have a row.
func (*Projection) Schema() string {
	return `
CREATE TABLE referred (
    user_id      text        PRIMARY KEY,
    referrer_id  text        NOT NULL,
    name         text        NOT NULL,
    photo        text        NOT NULL,
    closed       boolean     NOT NULL DEFAULT false,
    joined_at    timestamptz NOT NULL,
    qualified_at timestamptz,
    bonus        numeric(20,2),
    credited_at  timestamptz
);
CREATE INDEX referred_by_referrer ON referred (referrer_id, joined_at DESC, user_id DESC);`
}

// handled are the event types that change a row; only these are decoded.
var handled = map[string]bool{
	identity.TypeRegistered: true, identity.TypeProfileUpdated: true, identity.TypeClosed: true,
	account.TypeDepositConfirmed: true, account.TypeReferralBonusCredited: true,
}

// streams are where those events are: users' profiles and their money.
var streams = []string{identity.StreamCategory, account.StreamCategory}

// Apply writes each event's change with one statement; referrals are rare next to the events
// it passes over, which cost nothing.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	return projections.EachOf(ctx, events, p.codec, handled, streams, func(env eventstore.Envelope, id string, e aggregate.Event) error {
		if err := apply(ctx, tx, id, env.RecordedAt, e); err != nil {
			return fmt.Errorf("referrals: %s: %w", env.Type, err)
		}
		return nil
	})
}

func apply(ctx context.Context, tx pgx.Tx, id string, at time.Time, e any) error {
	var err error
	switch e := e.(type) {
	case identity.Registered:
		if e.ReferredBy == "" {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO referred (user_id, referrer_id, name, photo, joined_at) VALUES ($1, $2, $3, '', $4)
			ON CONFLICT (user_id) DO NOTHING`, id, e.ReferredBy, e.Name, at)
	case identity.ProfileUpdated:
		_, err = tx.Exec(ctx, `UPDATE referred SET name = $2, photo = $3 WHERE user_id = $1 AND NOT closed`, id, e.Name, e.Photo)
	case identity.Closed:
		_, err = tx.Exec(ctx, `UPDATE referred SET name = '', photo = '', closed = true WHERE user_id = $1`, id)
	case account.DepositConfirmed:
		_, err = tx.Exec(ctx, `UPDATE referred SET qualified_at = $2 WHERE user_id = $1 AND qualified_at IS NULL`, id, e.At)
	case account.ReferralBonusCredited:
		_, err = tx.Exec(ctx, `UPDATE referred SET bonus = $3, credited_at = $4 WHERE user_id = $2 AND referrer_id = $1`,
			id, e.ReferredUserID, e.Amount.Decimal(), e.At)
	}
	return err
}

// Referred is one user a referrer referred. Name and Photo are "" once the account is closed.
type Referred struct {
	UserID      string
	Name        string
	Photo       string
	Closed      bool
	JoinedAt    time.Time
	QualifiedAt *time.Time // their first deposit was confirmed
	Bonus       *money.Money
	CreditedAt  *time.Time
}

// Qualified reports whether the user's first deposit was confirmed.
func (r Referred) Qualified() bool { return r.QualifiedAt != nil }

// List returns the users referrerID referred, newest first.
func List(ctx context.Context, pool pgread.Querier, referrerID string) ([]Referred, error) {
	rows, err := pool.Query(ctx, `SELECT user_id, name, photo, closed, joined_at, qualified_at, bonus::text, credited_at
		FROM rm_referrals.referred WHERE referrer_id = $1 ORDER BY joined_at DESC, user_id DESC`, referrerID)
	if err != nil {
		return nil, fmt.Errorf("referrals: list: %w", err)
	}
	defer rows.Close()
	var out []Referred
	for rows.Next() {
		var r Referred
		var bonus *string
		if err := rows.Scan(&r.UserID, &r.Name, &r.Photo, &r.Closed, &r.JoinedAt, &r.QualifiedAt, &bonus, &r.CreditedAt); err != nil {
			return nil, fmt.Errorf("referrals: list: %w", err)
		}
		if bonus != nil {
			m, err := money.Parse(*bonus)
			if err != nil {
				return nil, err
			}
			r.Bonus = &m
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Builder implements projections.Bulk: a rebuild holds every referred user's row in memory,
// applies each later event to it there and copies the rows once at the end, where Apply runs a
// statement per event, an UPDATE for every confirmed deposit whether or not its user was
// referred. It does to the rows what Apply's statements do, in the same order (the package's
// rebuild test compares the two).
func (p *Projection) Builder() projections.Builder {
	return &builder{p: p, byUser: map[string]*referredRow{}}
}

var _ projections.Bulk = (*Projection)(nil)

type referredRow struct {
	user, referrer, name, photo string
	closed                      bool
	joinedAt                    time.Time
	qualifiedAt, creditedAt     *time.Time
	bonus                       *money.Money
}

type builder struct {
	p      *Projection
	rows   []*referredRow
	byUser map[string]*referredRow
}

func (b *builder) Add(ctx context.Context, env eventstore.Envelope) error {
	return projections.EachOf(ctx, []eventstore.Envelope{env}, b.p.codec, handled, streams, func(env eventstore.Envelope, id string, e aggregate.Event) error {
		switch e := e.(type) {
		case identity.Registered:
			if e.ReferredBy != "" && b.byUser[id] == nil { // ON CONFLICT DO NOTHING
				r := &referredRow{user: id, referrer: e.ReferredBy, name: e.Name, joinedAt: env.RecordedAt}
				b.byUser[id] = r
				b.rows = append(b.rows, r)
			}
		case identity.ProfileUpdated:
			if r := b.byUser[id]; r != nil && !r.closed {
				r.name, r.photo = e.Name, e.Photo
			}
		case identity.Closed:
			if r := b.byUser[id]; r != nil {
				r.name, r.photo, r.closed = "", "", true
			}
		case account.DepositConfirmed:
			if r := b.byUser[id]; r != nil && r.qualifiedAt == nil {
				at := e.At
				r.qualifiedAt = &at
			}
		case account.ReferralBonusCredited:
			if r := b.byUser[e.ReferredUserID]; r != nil && r.referrer == id {
				bonus, at := e.Amount, e.At
				r.bonus, r.creditedAt = &bonus, &at
			}
		}
		return nil
	})
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	if !final {
		return nil // a later event may still change any row
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"referred"}, []string{"user_id", "referrer_id", "name", "photo", "closed", "joined_at",
		"qualified_at", "bonus", "credited_at"}, pgx.CopyFromSlice(len(b.rows), func(i int) ([]any, error) {
		r := b.rows[i]
		var bonus *pgtype.Numeric
		if r.bonus != nil {
			n := projections.Numeric(*r.bonus)
			bonus = &n
		}
		return []any{r.user, r.referrer, r.name, r.photo, r.closed, r.joinedAt, r.qualifiedAt, bonus, r.creditedAt}, nil
	}))
	if err != nil {
		return fmt.Errorf("referrals: copy: %w", err)
	}
	b.rows, b.byUser = nil, nil
	return nil
}

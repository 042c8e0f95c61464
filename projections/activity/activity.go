// Package activity is the read model behind the public site's social proof: the activity
// ticker (recent deposits confirmed, investments started and matured) and the investor and
// country counts.
//
// It keeps, per user, only the country of their profile and whether a deposit of theirs was
// ever confirmed; per activity, its kind, the plan's name and when it happened. No names, no
// amounts: what the public sees is anonymised by construction. Closing an account blanks its
// country, so its activities read "An investor" from then on, and a rebuild yields the same.
package activity

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_activity.
const Name = "activity"

// Kinds of activity.
const (
	KindDepositConfirmed  = "deposit_confirmed"
	KindInvestmentStarted = "investment_started"
	KindInvestmentRenewed = "investment_renewed"
	KindInvestmentMatured = "investment_matured"
)

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the identity and account events
// registered (only fields that are not sealed are read, but the cipher must be set to decode a
// log with sealed fields).
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("activity: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection. plans maps an investment to its plan's name, which
// the activation event does not carry.
func (*Projection) Schema() string {
	return `
CREATE TABLE people (
    user_id     text    PRIMARY KEY,
    country     text    NOT NULL DEFAULT '',
    closed      boolean NOT NULL DEFAULT false,
    investor_at timestamptz
);
CREATE INDEX people_investors ON people (country) WHERE investor_at IS NOT NULL;
CREATE TABLE plans (
    investment_id text PRIMARY KEY,
    plan_name     text NOT NULL
);
CREATE TABLE items (
    position  bigint      PRIMARY KEY,
    user_id   text        NOT NULL,
    kind      text        NOT NULL,
    plan_name text        NOT NULL DEFAULT '',
    at        timestamptz NOT NULL
);`
}

var handled = map[string]bool{
	identity.TypeRegistered: true, identity.TypeProfileUpdated: true, identity.TypeClosed: true,
	account.TypeDepositConfirmed: true, account.TypeInvestmentRequested: true, account.TypeInvestmentActivated: true,
	account.TypeInvestmentMatured: true, account.TypeInvestmentReinvested: true,
}

// streams are where those events are: users' profiles and their money.
var streams = []string{identity.StreamCategory, account.StreamCategory}

// Apply records each event that is activity, or that says where a user is from.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	return projections.EachOf(ctx, events, p.codec, handled, streams, func(env eventstore.Envelope, id string, e aggregate.Event) error {
		if err := apply(ctx, tx, id, env.Position, e); err != nil {
			return fmt.Errorf("activity: %s at position %d: %w", env.Type, env.Position, err)
		}
		return nil
	})
}

func apply(ctx context.Context, tx pgx.Tx, userID string, position int64, e any) error {
	item := func(kind, plan string, at time.Time) error {
		_, err := tx.Exec(ctx, `INSERT INTO items (position, user_id, kind, plan_name, at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (position) DO NOTHING`, position, userID, kind, plan, at)
		return err
	}
	planOf := `COALESCE((SELECT plan_name FROM plans WHERE investment_id = $1), '')`
	var err error
	switch e := e.(type) {
	case identity.Registered:
		_, err = tx.Exec(ctx, `INSERT INTO people (user_id, country) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET country = EXCLUDED.country WHERE NOT people.closed`, userID, e.Country)
	case identity.ProfileUpdated:
		_, err = tx.Exec(ctx, `UPDATE people SET country = $2 WHERE user_id = $1 AND NOT closed`, userID, e.Country)
	case identity.Closed:
		_, err = tx.Exec(ctx, `INSERT INTO people (user_id, closed) VALUES ($1, true)
			ON CONFLICT (user_id) DO UPDATE SET country = '', closed = true`, userID)
	case account.DepositConfirmed:
		if _, err = tx.Exec(ctx, `INSERT INTO people (user_id, investor_at) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET investor_at = COALESCE(people.investor_at, EXCLUDED.investor_at)`, userID, e.At); err == nil {
			err = item(KindDepositConfirmed, "", e.At)
		}
	case account.InvestmentRequested:
		_, err = tx.Exec(ctx, `INSERT INTO plans (investment_id, plan_name) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			e.InvestmentID, e.Terms.PlanName)
	case account.InvestmentReinvested:
		if _, err = tx.Exec(ctx, `INSERT INTO plans (investment_id, plan_name) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			e.NewInvestmentID, e.Terms.PlanName); err == nil {
			err = item(KindInvestmentRenewed, e.Terms.PlanName, e.Start)
		}
	case account.InvestmentActivated:
		var plan string
		if err = tx.QueryRow(ctx, `SELECT `+planOf, e.InvestmentID).Scan(&plan); err == nil {
			err = item(KindInvestmentStarted, plan, e.Start)
		}
	case account.InvestmentMatured:
		var plan string
		if err = tx.QueryRow(ctx, `SELECT `+planOf, e.InvestmentID).Scan(&plan); err == nil {
			err = item(KindInvestmentMatured, plan, e.At)
		}
	}
	return err
}

// Item is one anonymised activity: what happened, the plan's name where there is one, the
// country of the user's profile ("" when unknown or the account is closed) and when.
type Item struct {
	ID      int64 // the event's position: stable, and unique
	Kind    string
	Plan    string
	Country string
	At      time.Time
}

// Recent returns the latest activities, newest first.
func Recent(ctx context.Context, pool pgread.Querier, limit int) ([]Item, error) {
	rows, err := pool.Query(ctx, `SELECT i.position, i.kind, i.plan_name, COALESCE(p.country, ''), i.at
		FROM rm_activity.items i LEFT JOIN rm_activity.people p ON p.user_id = i.user_id
		ORDER BY i.position DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("activity: recent: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(rs pgx.CollectableRow) (Item, error) {
		var it Item
		err := rs.Scan(&it.ID, &it.Kind, &it.Plan, &it.Country, &it.At)
		it.At = it.At.UTC()
		return it, err
	})
	if err != nil {
		return nil, fmt.Errorf("activity: recent: %w", err)
	}
	return out, nil
}

// Counts are the public counts before rounding: Investors is every user with at least one
// confirmed deposit (closed accounts included: they did invest); Countries is how many
// different countries the open accounts among them name in their profile.
type Counts struct {
	Investors int
	Countries int
}

// Totals returns the counts.
func Totals(ctx context.Context, pool pgread.Querier) (Counts, error) {
	var c Counts
	err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT country) FILTER (WHERE country <> '' AND NOT closed)
		FROM rm_activity.people WHERE investor_at IS NOT NULL`).Scan(&c.Investors, &c.Countries)
	if err != nil {
		return Counts{}, fmt.Errorf("activity: totals: %w", err)
	}
	return c, nil
}

// IsInvestor reports whether a deposit of userID's was ever confirmed.
func IsInvestor(ctx context.Context, pool pgread.Querier, userID string) (bool, error) {
	var ok bool
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM rm_activity.people WHERE user_id = $1 AND investor_at IS NOT NULL)`,
		userID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("activity: investor: %w", err)
	}
	return ok, nil
}

// Builder implements projections.Bulk: a rebuild copies the items batch by batch and holds the
// people and the plans' names in memory, copying them once at the end, where Apply runs a
// statement or two per event. It does to the rows what Apply's statements do, in the same order
// (TestBulkRebuildEqualsLive compares the two).
func (p *Projection) Builder() projections.Builder {
	return &builder{p: p, people: map[string]*person{}, plans: map[string]string{}}
}

var _ projections.Bulk = (*Projection)(nil)

type person struct {
	country    string
	closed     bool
	investorAt *time.Time
}

type activityItem struct {
	position         int64
	user, kind, plan string
	at               time.Time
}

type builder struct {
	p          *Projection
	people     map[string]*person
	peopleKeys []string // in the order they came, for the COPY
	plans      map[string]string
	planKeys   []string
	items      []activityItem
}

func (b *builder) person(userID string) (*person, bool) {
	if p := b.people[userID]; p != nil {
		return p, true
	}
	p := &person{}
	b.people[userID] = p
	b.peopleKeys = append(b.peopleKeys, userID)
	return p, false
}

func (b *builder) plan(id, name string) {
	if _, ok := b.plans[id]; !ok { // ON CONFLICT DO NOTHING
		b.plans[id] = name
		b.planKeys = append(b.planKeys, id)
	}
}

func (b *builder) Add(ctx context.Context, env eventstore.Envelope) error {
	return projections.EachOf(ctx, []eventstore.Envelope{env}, b.p.codec, handled, streams, func(env eventstore.Envelope, userID string, e aggregate.Event) error {
		item := func(kind, plan string, at time.Time) {
			b.items = append(b.items, activityItem{position: env.Position, user: userID, kind: kind, plan: plan, at: at})
		}
		switch e := e.(type) {
		case identity.Registered:
			if p, _ := b.person(userID); !p.closed {
				p.country = e.Country
			}
		case identity.ProfileUpdated:
			if p := b.people[userID]; p != nil && !p.closed {
				p.country = e.Country
			}
		case identity.Closed:
			p, _ := b.person(userID)
			p.country, p.closed = "", true
		case account.DepositConfirmed:
			if p, _ := b.person(userID); p.investorAt == nil {
				at := e.At
				p.investorAt = &at
			}
			item(KindDepositConfirmed, "", e.At)
		case account.InvestmentRequested:
			b.plan(e.InvestmentID, e.Terms.PlanName)
		case account.InvestmentReinvested:
			b.plan(e.NewInvestmentID, e.Terms.PlanName)
			item(KindInvestmentRenewed, e.Terms.PlanName, e.Start)
		case account.InvestmentActivated:
			item(KindInvestmentStarted, b.plans[e.InvestmentID], e.Start)
		case account.InvestmentMatured:
			item(KindInvestmentMatured, b.plans[e.InvestmentID], e.At)
		}
		return nil
	})
}

func (b *builder) Write(ctx context.Context, tx pgx.Tx, final bool) error {
	if len(b.items) > 0 {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"position", "user_id", "kind", "plan_name", "at"},
			pgx.CopyFromSlice(len(b.items), func(i int) ([]any, error) {
				it := b.items[i]
				return []any{it.position, it.user, it.kind, it.plan, it.at}, nil
			})); err != nil {
			return fmt.Errorf("activity: copy items: %w", err)
		}
		b.items = nil
	}
	if !final {
		return nil // people and plans may still change
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"people"}, []string{"user_id", "country", "closed", "investor_at"},
		pgx.CopyFromSlice(len(b.peopleKeys), func(i int) ([]any, error) {
			p := b.people[b.peopleKeys[i]]
			return []any{b.peopleKeys[i], p.country, p.closed, p.investorAt}, nil
		})); err != nil {
		return fmt.Errorf("activity: copy people: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"plans"}, []string{"investment_id", "plan_name"},
		pgx.CopyFromSlice(len(b.planKeys), func(i int) ([]any, error) {
			return []any{b.planKeys[i], b.plans[b.planKeys[i]]}, nil
		})); err != nil {
		return fmt.Errorf("activity: copy plans: %w", err)
	}
	b.people, b.peopleKeys, b.plans, b.planKeys = nil, nil, nil, nil
	return nil
}

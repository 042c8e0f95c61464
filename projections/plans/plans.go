// Package plans is the read model of the plan catalogue: every plan with its current version and
// terms, and every version of the terms it has had (an investment names the version it was made
// with). The API lists the active plans from it.
package plans

import (
	"clearvest/platform/pgread"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_plans.
const Name = "plans"

// ErrNotFound is returned for a plan the read model does not hold.
var ErrNotFound = plan.ErrNotFound

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the plan events registered.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("plans: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection. Amounts are NUMERIC(20,2) like every amount in a
// read model; a term rate keeps the digits it was given (plain NUMERIC).
func (*Projection) Schema() string {
	return `
CREATE TABLE plans (
    id          text          PRIMARY KEY,
    name        text          NOT NULL,
    active      boolean       NOT NULL,
    version     integer       NOT NULL,
    min_amount  numeric(20,2) NOT NULL,
    max_amount  numeric(20,2) NOT NULL,
    term_days   integer       NOT NULL,
    term_rate   numeric       NOT NULL,
    created_at  timestamptz   NOT NULL,
    updated_at  timestamptz   NOT NULL
);
CREATE INDEX plans_active ON plans (min_amount, name) WHERE active;
CREATE TABLE plan_terms (
    plan_id      text          NOT NULL,
    version      integer       NOT NULL,
    min_amount   numeric(20,2) NOT NULL,
    max_amount   numeric(20,2) NOT NULL,
    term_days    integer       NOT NULL,
    term_rate    numeric       NOT NULL,
    effective_at timestamptz   NOT NULL,
    PRIMARY KEY (plan_id, version)
);`
}

// Apply writes each plan event as it comes. Plans change rarely (a handful of events a year), so
// a statement per event costs nothing worth folding for.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, env := range events {
		if env.StreamID.Category() != plan.StreamCategory {
			continue
		}
		e, err := projections.Decode(ctx, p.codec, env)
		if err != nil {
			return err
		}
		id := env.StreamID.ID()
		if err := apply(ctx, tx, id, e); err != nil {
			return fmt.Errorf("plans: %s at position %d: %w", env.Type, env.Position, err)
		}
	}
	return nil
}

// apply writes one event. Times are the events' own (when the plan changed), not when they were
// stored, so a rebuild writes the same rows.
func apply(ctx context.Context, tx pgx.Tx, id string, e any) error {
	switch e := e.(type) {
	case plan.Created:
		at := e.At
		t := e.Terms
		if _, err := tx.Exec(ctx, `INSERT INTO plans (id, name, active, version, min_amount, max_amount, term_days, term_rate, created_at, updated_at)
			VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8, $8)`,
			id, e.Name, e.Active, t.Min.String(), t.Max.String(), t.TermDays, t.TermRate.String(), at); err != nil {
			return err
		}
		return insertTerms(ctx, tx, id, 1, t, at)
	case plan.TermsChanged:
		t, at := e.Terms, e.At
		if err := updated(tx.Exec(ctx, `UPDATE plans SET version = $2, min_amount = $3, max_amount = $4, term_days = $5, term_rate = $6,
			updated_at = $7 WHERE id = $1`, id, e.Version, t.Min.String(), t.Max.String(), t.TermDays, t.TermRate.String(), at)); err != nil {
			return err
		}
		return insertTerms(ctx, tx, id, e.Version, t, at)
	case plan.Activated:
		return updated(tx.Exec(ctx, `UPDATE plans SET active = true, updated_at = $2 WHERE id = $1`, id, e.At))
	case plan.Deactivated:
		return updated(tx.Exec(ctx, `UPDATE plans SET active = false, updated_at = $2 WHERE id = $1`, id, e.At))
	}
	return nil
}

func insertTerms(ctx context.Context, tx pgx.Tx, id string, version int, t plan.Terms, at time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO plan_terms (plan_id, version, min_amount, max_amount, term_days, term_rate, effective_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, version, t.Min.String(), t.Max.String(), t.TermDays, t.TermRate.String(), at)
	return err
}

// updated fails when an event names a plan the read model does not hold: the projection parks
// there rather than guess (a plan event before its plan.created is a broken stream).
func updated(tag interface{ RowsAffected() int64 }, err error) error {
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return errors.New("no such plan in the read model")
	}
	return nil
}

// Plan is one plan with its current terms.
type Plan struct {
	ID        string
	Name      string
	Active    bool
	Version   int
	Terms     plan.Terms
	CreatedAt time.Time
	UpdatedAt time.Time
}

// The amounts are read as text (exact, no float on the way); they are renamed so that ORDER BY
// min_amount still sorts by the number, not by the text.
const planColumns = `id, name, active, version, min_amount::text AS min_text, max_amount::text AS max_text, term_days,
	term_rate::text AS rate_text, created_at, updated_at`

func scanPlan(row pgx.CollectableRow) (Plan, error) {
	var p Plan
	var minText, maxText, rateText string
	if err := row.Scan(&p.ID, &p.Name, &p.Active, &p.Version, &minText, &maxText, &p.Terms.TermDays, &rateText, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return Plan{}, err
	}
	var err error
	if p.Terms.Min, err = money.Parse(minText); err != nil {
		return Plan{}, fmt.Errorf("plan %s: min %q: %w", p.ID, minText, err)
	}
	if p.Terms.Max, err = money.Parse(maxText); err != nil {
		return Plan{}, fmt.Errorf("plan %s: max %q: %w", p.ID, maxText, err)
	}
	if p.Terms.TermRate, err = decimal.NewFromString(rateText); err != nil {
		return Plan{}, fmt.Errorf("plan %s: rate %q: %w", p.ID, rateText, err)
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return p, nil
}

// Active lists the plans offered to investors, smallest minimum first (then by name).
func Active(ctx context.Context, pool pgread.Querier) ([]Plan, error) {
	rows, err := pool.Query(ctx, `SELECT `+planColumns+` FROM rm_plans.plans WHERE active ORDER BY min_amount, name, id`)
	if err != nil {
		return nil, fmt.Errorf("plans: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanPlan)
	if err != nil {
		return nil, fmt.Errorf("plans: %w", err)
	}
	return list, nil
}

// All lists every plan, withdrawn ones included, in the same order.
func All(ctx context.Context, pool pgread.Querier) ([]Plan, error) {
	rows, err := pool.Query(ctx, `SELECT `+planColumns+` FROM rm_plans.plans ORDER BY min_amount, name, id`)
	if err != nil {
		return nil, fmt.Errorf("plans: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanPlan)
	if err != nil {
		return nil, fmt.Errorf("plans: %w", err)
	}
	return list, nil
}

// Get returns one plan, active or not.
func Get(ctx context.Context, pool pgread.Querier, id string) (Plan, error) {
	rows, err := pool.Query(ctx, `SELECT `+planColumns+` FROM rm_plans.plans WHERE id = $1`, id)
	if err != nil {
		return Plan{}, fmt.Errorf("plans: %w", err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, scanPlan)
	if errors.Is(err, pgx.ErrNoRows) {
		return Plan{}, ErrNotFound
	}
	if err != nil {
		return Plan{}, fmt.Errorf("plans: %w", err)
	}
	return p, nil
}

// TermsAt returns the terms of one version of a plan, as an investment made under it keeps them.
func TermsAt(ctx context.Context, pool pgread.Querier, id string, version int) (plan.Terms, error) {
	var t plan.Terms
	var minText, maxText, rateText string
	err := pool.QueryRow(ctx, `SELECT min_amount::text, max_amount::text, term_days, term_rate::text
		FROM rm_plans.plan_terms WHERE plan_id = $1 AND version = $2`, id, version).Scan(&minText, &maxText, &t.TermDays, &rateText)
	if errors.Is(err, pgx.ErrNoRows) {
		return plan.Terms{}, ErrNotFound
	}
	if err != nil {
		return plan.Terms{}, fmt.Errorf("plans: %w", err)
	}
	if t.Min, err = money.Parse(minText); err != nil {
		return plan.Terms{}, err
	}
	if t.Max, err = money.Parse(maxText); err != nil {
		return plan.Terms{}, err
	}
	if t.TermRate, err = decimal.NewFromString(rateText); err != nil {
		return plan.Terms{}, err
	}
	return t, nil
}

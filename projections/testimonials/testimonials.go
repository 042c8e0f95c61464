// Package testimonials is the read model of testimonials: each one's author (by id), text,
// status and the staff decision, for the staff queue, the author's dashboard card and the public
// list.
//
// Authors are kept by id only: their name and country are read from the users read model when
// a testimonial is shown, so a changed or erased profile is never shown stale. Closing the
// author's account deletes their testimonials here (what they wrote is theirs), and a rebuild
// yields the same rows.
package testimonials

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/identity"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_testimonials.
const Name = "testimonials"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the testimonial events
// registered.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("testimonials: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection.
func (*Projection) Schema() string {
	return `
CREATE TABLE testimonials (
    testimonial_id text        PRIMARY KEY,
    user_id        text        NOT NULL,
    text           text        NOT NULL,
    status         text        NOT NULL,
    reason         text        NOT NULL DEFAULT '',
    staff_id       text        NOT NULL DEFAULT '',
    submitted_at   timestamptz NOT NULL,
    decided_at     timestamptz
);
CREATE INDEX testimonials_user ON testimonials (user_id, submitted_at DESC);
CREATE INDEX testimonials_pending ON testimonials (submitted_at, testimonial_id) WHERE status = 'Pending';
CREATE INDEX testimonials_approved ON testimonials (decided_at DESC, testimonial_id DESC) WHERE status = 'Approved';`
}

// Apply records each testimonial event and forgets the testimonials of closed accounts.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, env := range events {
		cat, id := env.StreamID.Category(), env.StreamID.ID()
		var err error
		switch {
		case cat == identity.StreamCategory && env.Type == identity.TypeClosed:
			_, err = tx.Exec(ctx, `DELETE FROM testimonials WHERE user_id = $1`, id)
		case cat == testimonial.StreamCategory:
			var e any
			if e, err = projections.Decode(ctx, p.codec, env); err == nil {
				err = apply(ctx, tx, id, e)
			}
		}
		if err != nil {
			return fmt.Errorf("testimonials: %s at position %d: %w", env.Type, env.Position, err)
		}
	}
	return nil
}

func apply(ctx context.Context, tx pgx.Tx, id string, e any) error {
	var err error
	switch e := e.(type) {
	case testimonial.Submitted:
		_, err = tx.Exec(ctx, `INSERT INTO testimonials (testimonial_id, user_id, text, status, submitted_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (testimonial_id) DO NOTHING`, id, e.UserID, e.Text, testimonial.StatusPending, e.At)
	case testimonial.Approved:
		_, err = tx.Exec(ctx, `UPDATE testimonials SET status = $2, staff_id = $3, decided_at = $4 WHERE testimonial_id = $1`,
			id, testimonial.StatusApproved, e.StaffID, e.At)
	case testimonial.Rejected:
		_, err = tx.Exec(ctx, `UPDATE testimonials SET status = $2, staff_id = $3, reason = $4, decided_at = $5 WHERE testimonial_id = $1`,
			id, testimonial.StatusRejected, e.StaffID, e.Reason, e.At)
	}
	return err
}

// Testimonial is one row of the read model.
type Testimonial struct {
	ID          string
	UserID      string
	Text        string
	Status      testimonial.Status
	Reason      string
	SubmittedAt time.Time
	DecidedAt   *time.Time
}

const columns = `testimonial_id, user_id, text, status, reason, submitted_at, decided_at`

func scan(rs pgx.CollectableRow) (Testimonial, error) {
	var t Testimonial
	err := rs.Scan(&t.ID, &t.UserID, &t.Text, &t.Status, &t.Reason, &t.SubmittedAt, &t.DecidedAt)
	t.SubmittedAt = t.SubmittedAt.UTC()
	if t.DecidedAt != nil {
		d := t.DecidedAt.UTC()
		t.DecidedAt = &d
	}
	return t, err
}

func list(ctx context.Context, pool pgread.Querier, query string, args ...any) ([]Testimonial, error) {
	rows, err := pool.Query(ctx, `SELECT `+columns+` FROM rm_testimonials.testimonials `+query, args...)
	if err != nil {
		return nil, fmt.Errorf("testimonials: %w", err)
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("testimonials: %w", err)
	}
	return out, nil
}

// Pending lists the testimonials waiting for staff, oldest first.
func Pending(ctx context.Context, pool pgread.Querier, limit int) ([]Testimonial, error) {
	return list(ctx, pool, `WHERE status = 'Pending' ORDER BY submitted_at, testimonial_id LIMIT $1`, limit)
}

// CountPending is how many testimonials wait for staff, all of them (Pending shows at most a
// page).
func CountPending(ctx context.Context, pool pgread.Querier) (int, error) {
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM rm_testimonials.testimonials WHERE status = 'Pending'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("testimonials: count pending: %w", err)
	}
	return n, nil
}

// Approved lists the published testimonials, most recently approved first.
func Approved(ctx context.Context, pool pgread.Querier, limit int) ([]Testimonial, error) {
	return list(ctx, pool, `WHERE status = 'Approved' ORDER BY decided_at DESC, testimonial_id DESC LIMIT $1`, limit)
}

// Latest returns the user's most recent testimonial; ok is false when they wrote none.
func Latest(ctx context.Context, pool pgread.Querier, userID string) (t Testimonial, ok bool, err error) {
	out, err := list(ctx, pool, `WHERE user_id = $1 ORDER BY submitted_at DESC, testimonial_id DESC LIMIT 1`, userID)
	if err != nil || len(out) == 0 {
		return Testimonial{}, false, err
	}
	return out[0], true, nil
}

// ErrNotFound is returned by Get for an id the read model does not hold.
var ErrNotFound = testimonial.ErrNotFound

// Get returns one testimonial.
func Get(ctx context.Context, pool pgread.Querier, id string) (Testimonial, error) {
	out, err := list(ctx, pool, `WHERE testimonial_id = $1`, id)
	if err != nil {
		return Testimonial{}, err
	}
	if len(out) == 0 {
		return Testimonial{}, ErrNotFound
	}
	return out[0], nil
}

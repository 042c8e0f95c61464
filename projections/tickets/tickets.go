// Package tickets is the read model of support tickets: the staff queue of messages sent with
// the contact form, open ones first and oldest first, with who wrote, what, and when staff last
// answered.
//
// Events are decoded through the registry, so its field cipher must be set: names, addresses
// and messages are personal fields sealed with each ticket's key.
package tickets

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/support"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_tickets.
const Name = "tickets"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection. codec decodes the events; it needs the support events registered
// and, for a log with sealed personal fields, its cipher set.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("tickets: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection. The queue index puts open tickets first (status
// rank 0), then answered, then closed, each oldest first.
func (*Projection) Schema() string {
	return `
CREATE TABLE tickets (
    ticket_id     text        PRIMARY KEY,
    name          text        NOT NULL,
    email         text        NOT NULL,
    message       text        NOT NULL,
    status        text        NOT NULL,
    status_rank   smallint    NOT NULL,
    opened_at     timestamptz NOT NULL,
    replies       integer     NOT NULL DEFAULT 0,
    last_reply    text        NOT NULL DEFAULT '',
    last_reply_at timestamptz,
    closed_at     timestamptz
);
CREATE INDEX tickets_queue ON tickets (status_rank, opened_at, ticket_id);`
}

var rank = map[support.Status]int{support.StatusOpen: 0, support.StatusAnswered: 1, support.StatusClosed: 2}

// Apply writes each event's change with one statement.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, env := range events {
		if env.StreamID.Category() != support.StreamCategory {
			continue
		}
		e, err := projections.Decode(ctx, p.codec, env)
		if err != nil {
			return err
		}
		id := env.StreamID.ID()
		switch e := e.(type) {
		case support.Opened:
			_, err = tx.Exec(ctx, `INSERT INTO tickets (ticket_id, name, email, message, status, status_rank, opened_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (ticket_id) DO NOTHING`,
				id, e.Name, e.Email, e.Message, support.StatusOpen, rank[support.StatusOpen], e.At)
		case support.Replied:
			_, err = tx.Exec(ctx, `UPDATE tickets SET status = $2, status_rank = $3, replies = replies + 1, last_reply = $4,
				last_reply_at = $5 WHERE ticket_id = $1`, id, support.StatusAnswered, rank[support.StatusAnswered], e.Message, e.At)
		case support.Closed:
			_, err = tx.Exec(ctx, `UPDATE tickets SET status = $2, status_rank = $3, closed_at = $4 WHERE ticket_id = $1`,
				id, support.StatusClosed, rank[support.StatusClosed], e.At)
		}
		if err != nil {
			return fmt.Errorf("tickets: %s: %w", env.Type, err)
		}
	}
	return nil
}

// Ticket is one row of the staff queue.
type Ticket struct {
	ID          string
	Name        string
	Email       string
	Message     string
	Status      support.Status
	OpenedAt    time.Time
	Replies     int
	LastReply   string
	LastReplyAt *time.Time
	ClosedAt    *time.Time
}

// List returns up to limit tickets: open first, then answered, then closed, each oldest first.
func List(ctx context.Context, pool pgread.Querier, limit int) ([]Ticket, error) {
	rows, err := pool.Query(ctx, `SELECT ticket_id, name, email, message, status, opened_at, replies, last_reply, last_reply_at, closed_at
		FROM rm_tickets.tickets ORDER BY status_rank, opened_at, ticket_id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("tickets: list: %w", err)
	}
	defer rows.Close()
	var out []Ticket
	for rows.Next() {
		var t Ticket
		if err := rows.Scan(&t.ID, &t.Name, &t.Email, &t.Message, &t.Status, &t.OpenedAt, &t.Replies, &t.LastReply,
			&t.LastReplyAt, &t.ClosedAt); err != nil {
			return nil, fmt.Errorf("tickets: list: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// CountOpen is how many tickets wait for staff's first answer.
func CountOpen(ctx context.Context, pool pgread.Querier) (int, error) {
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM rm_tickets.tickets WHERE status_rank = $1`, rank[support.StatusOpen]).Scan(&n); err != nil {
		return 0, fmt.Errorf("tickets: count open: %w", err)
	}
	return n, nil
}

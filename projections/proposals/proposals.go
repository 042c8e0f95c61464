// Package proposals is the read model of the four-eyes rule: proposals waiting for a second
// staff member, oldest first, and those decided, for the staff queues (docs/security.md,
// "Separation of duties").
package proposals

import (
	"clearvest/platform/pgread"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/money"
	"clearvest/domain/proposal"
	"clearvest/eventstore"
	"clearvest/projections"
)

// Name of the projection; its tables live in schema rm_proposals.
const Name = "proposals"

// Projection implements projections.Projection.
type Projection struct {
	codec *eventstore.Registry
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection; codec must know the proposal events.
func New(codec *eventstore.Registry) *Projection {
	if codec == nil {
		panic("proposals: New needs the event registry")
	}
	return &Projection{codec: codec}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Schema implements projections.Projection.
func (*Projection) Schema() string {
	return `
CREATE TABLE proposals (
    proposal_id     text        PRIMARY KEY,
    kind            text        NOT NULL,
    subject_id      text        NOT NULL,
    user_id         text        NOT NULL,
    amount          numeric(20,2) NOT NULL,
    why             text        NOT NULL,
    params          jsonb       NOT NULL,
    proposer_id     text        NOT NULL,
    reason          text        NOT NULL,
    status          text        NOT NULL,
    opened_at       timestamptz NOT NULL,
    decider_id      text        NOT NULL DEFAULT '',
    decision_reason text        NOT NULL DEFAULT '',
    decided_at      timestamptz
);
CREATE INDEX proposals_pending ON proposals (opened_at, proposal_id) WHERE status = 'pending';`
}

// Apply writes each event's change with one statement.
func (p *Projection) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	for _, env := range events {
		if env.StreamID.Category() != proposal.StreamCategory {
			continue
		}
		e, err := projections.Decode(ctx, p.codec, env)
		if err != nil {
			return err
		}
		switch e := e.(type) {
		case proposal.Opened:
			params, merr := json.Marshal(e.Params)
			if merr != nil {
				return merr
			}
			_, err = tx.Exec(ctx, `INSERT INTO proposals (proposal_id, kind, subject_id, user_id, amount, why, params, proposer_id,
				reason, status, opened_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10) ON CONFLICT (proposal_id) DO NOTHING`,
				e.ProposalID, string(e.Kind), e.SubjectID, e.UserID, e.Amount.String(), e.Why, params, e.ProposerID, e.Reason, e.At)
		case proposal.Approved:
			err = decide(ctx, tx, e.ProposalID, proposal.StatusApproved, e.StaffID, e.Reason, e.At)
		case proposal.Rejected:
			err = decide(ctx, tx, e.ProposalID, proposal.StatusRejected, e.StaffID, e.Reason, e.At)
		}
		if err != nil {
			return fmt.Errorf("proposals: %s: %w", env.Type, err)
		}
	}
	return nil
}

func decide(ctx context.Context, tx pgx.Tx, id string, st proposal.Status, staffID, reason string, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE proposals SET status = $2, decider_id = $3, decision_reason = $4, decided_at = $5
		WHERE proposal_id = $1`, id, string(st), staffID, reason, at)
	return err
}

// Row is one proposal as the staff queue shows it, with the names of the people involved.
type Row struct {
	ID             string
	Kind           proposal.Kind
	SubjectID      string
	UserID         string
	UserName       string
	Amount         money.Money
	Why            string
	Params         map[string]string
	ProposerID     string
	ProposerName   string
	Reason         string
	Status         proposal.Status
	OpenedAt       time.Time
	DeciderID      string
	DeciderName    string
	DecisionReason string
	DecidedAt      *time.Time
}

const columns = `p.proposal_id, p.kind, p.subject_id, p.user_id, coalesce(u.name, ''), p.amount::text, p.why, p.params,
	p.proposer_id, coalesce(pr.name, ''), p.reason, p.status, p.opened_at, p.decider_id, coalesce(d.name, ''),
	p.decision_reason, p.decided_at
	FROM rm_proposals.proposals p
	LEFT JOIN rm_users.users u ON u.id = p.user_id
	LEFT JOIN rm_users.users pr ON pr.id = p.proposer_id
	LEFT JOIN rm_users.users d ON d.id = p.decider_id`

// Pending returns up to limit proposals waiting for a second person, oldest first.
func Pending(ctx context.Context, pool pgread.Querier, limit int) ([]Row, error) {
	return query(ctx, pool, `SELECT `+columns+` WHERE p.status = 'pending' ORDER BY p.opened_at, p.proposal_id LIMIT $1`, limit)
}

// CountPending is how many proposals wait for a second person, all of them.
func CountPending(ctx context.Context, pool pgread.Querier) (int, error) {
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM rm_proposals.proposals WHERE status = 'pending'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("proposals: count pending: %w", err)
	}
	return n, nil
}

// Recent returns up to limit decided proposals, newest decision first.
func Recent(ctx context.Context, pool pgread.Querier, limit int) ([]Row, error) {
	return query(ctx, pool, `SELECT `+columns+` WHERE p.status <> 'pending' ORDER BY p.decided_at DESC, p.proposal_id LIMIT $1`, limit)
}

func query(ctx context.Context, pool pgread.Querier, sql string, limit int) ([]Row, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := pool.Query(ctx, sql, limit)
	if err != nil {
		return nil, fmt.Errorf("proposals: list: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Row, error) {
		var r Row
		var amount string
		var params []byte
		if err := row.Scan(&r.ID, &r.Kind, &r.SubjectID, &r.UserID, &r.UserName, &amount, &r.Why, &params, &r.ProposerID,
			&r.ProposerName, &r.Reason, &r.Status, &r.OpenedAt, &r.DeciderID, &r.DeciderName, &r.DecisionReason, &r.DecidedAt); err != nil {
			return Row{}, err
		}
		m, err := money.Parse(amount)
		if err != nil {
			return Row{}, err
		}
		r.Amount = m
		if err := json.Unmarshal(params, &r.Params); err != nil {
			return Row{}, err
		}
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("proposals: list: %w", err)
	}
	return list, nil
}

package projections

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/domain/domainerr"
	"clearvest/eventstore/postgres"
)

// Failure is the event a projection is parked at.
type Failure struct {
	Position      int64
	EventID       string
	EventType     string
	StreamID      string
	Error         string
	Attempts      int // times the event failed on its own; a retry that fails again adds one
	FirstFailedAt time.Time
	FailedAt      time.Time
	// RetryRequestedAt is set by Retry; until the runner reaches the event again the projection
	// runs, and the failure row stays as the record of what happened.
	RetryRequestedAt *time.Time
	RetryRequestedBy string
}

// Parked tells whether the runner is holding the projection at the failed event.
func (f *Failure) Parked() bool { return f != nil && f.RetryRequestedAt == nil }

// Skip is an event an operator told a projection to pass without applying.
type Skip struct {
	Position  int64
	EventID   string
	EventType string
	StreamID  string
	Reason    string
	By        string
	At        time.Time
	Error     string // the failure recorded at that position when it was skipped, if any
	// Applied is true when the live read model had already applied the event when it was
	// skipped: the skip then only changes what rebuilds do.
	Applied bool
}

var (
	// ErrUnknownProjection is returned for a projection name the runner does not know.
	ErrUnknownProjection = domainerr.New(domainerr.NotFound, "no such projection")
	// ErrNotParked is returned by Retry for a projection with no recorded failure.
	ErrNotParked = domainerr.New(domainerr.Conflict, "the projection has no recorded failure to retry")
	// ErrNoEvent is returned by Skip for a position that holds no event.
	ErrNoEvent = domainerr.New(domainerr.NotFound, "no event at that position")
	// ErrAlreadySkipped is returned by Skip for an event skipped before.
	ErrAlreadySkipped = domainerr.New(domainerr.Conflict, "that event is already skipped")
	// ErrParked is wrapped by CatchUp and Step for a projection parked at a failed event.
	ErrParked = errors.New("projections: parked at a failed event")
	// ErrStoodDown is wrapped for a projection whose read model was built by another definition
	// than this process's (see Versioned).
	ErrStoodDown = errors.New("projections: stood down")
)

// maxErrorText bounds the error text kept in the database; a panic's stack can be long.
const maxErrorText = 8 << 10

func truncateError(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …(truncated)"
}

// park records that p failed on its own at e.Event, in the transaction that moves the checkpoint
// up to the event before it. A failure at the same position as the recorded one (a retry that
// failed again) counts one more attempt.
func park(ctx context.Context, tx pgx.Tx, e *EventError) (attempts int, err error) {
	err = tx.QueryRow(ctx, `
		INSERT INTO projection_failures (name, position, event_id, event_type, stream_id, error, attempts, first_failed_at, failed_at)
		VALUES ($1, $2, $3, $4, $5, $6, 1, now(), now())
		ON CONFLICT (name) DO UPDATE SET
		  attempts = CASE WHEN projection_failures.position = EXCLUDED.position THEN projection_failures.attempts + 1 ELSE 1 END,
		  first_failed_at = CASE WHEN projection_failures.position = EXCLUDED.position THEN projection_failures.first_failed_at ELSE now() END,
		  position = EXCLUDED.position, event_id = EXCLUDED.event_id, event_type = EXCLUDED.event_type,
		  stream_id = EXCLUDED.stream_id, error = EXCLUDED.error, failed_at = now(),
		  retry_requested_at = NULL, retry_requested_by = NULL
		RETURNING attempts`,
		e.Projection, e.Event.Position, e.Event.ID, e.Event.Type, string(e.Event.StreamID), truncateError(failureText(e.Err))).Scan(&attempts)
	if err != nil {
		return 0, fmt.Errorf("projections: record the failure of %s: %w", e.Projection, err)
	}
	return attempts, nil
}

const failureColumns = `position, event_id::text, event_type, stream_id, error, attempts, first_failed_at, failed_at, retry_requested_at, coalesce(retry_requested_by, '')`

func scanFailure(row pgx.Row) (*Failure, error) {
	var f Failure
	err := row.Scan(&f.Position, &f.EventID, &f.EventType, &f.StreamID, &f.Error, &f.Attempts, &f.FirstFailedAt, &f.FailedAt, &f.RetryRequestedAt, &f.RetryRequestedBy)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &f, nil
}

// Retry clears a projection's park: the runner in every process tries the failed event again
// at its next look (at once in this process, within the idle poll in others). Use it after
// deploying a fixed Apply, or when the cause was outside the event. by names the operator.
func (r *Runner) Retry(ctx context.Context, name, by string) (Failure, error) {
	if _, err := r.lookup(name); err != nil {
		return Failure{}, err
	}
	if strings.TrimSpace(by) == "" {
		return Failure{}, domainerr.Field("by", "say who asks for the retry")
	}
	f, err := scanFailure(r.pool.QueryRow(ctx, `UPDATE projection_failures SET retry_requested_at = now(), retry_requested_by = $2
		WHERE name = $1 RETURNING `+failureColumns, name, by))
	if err != nil {
		return Failure{}, fmt.Errorf("projections: retry %s: %w", name, err)
	}
	if f == nil {
		return Failure{}, ErrNotParked.WithMessage(fmt.Sprintf("%s has no recorded failure to retry", name))
	}
	r.logger.Info("projection retry requested", "projection", name, "position", f.Position, "by", by)
	r.changed.Notify() // wake this process's runner now
	return *f, nil
}

// SkipRequest asks a projection to pass one event without applying it.
type SkipRequest struct {
	Name     string
	Position int64
	Reason   string
	By       string
}

// Skip records that a projection passes the event at a position without applying it, with the
// reason and the operator, and clears the park if the projection is parked at that event. It
// takes the projection's lock, so no batch is half-way through the event meanwhile: an event
// after the checkpoint is passed by the runner; one the live read model has already applied
// stays applied there (Skip.Applied) and is passed by rebuilds.
func (r *Runner) Skip(ctx context.Context, req SkipRequest) (Skip, error) {
	if _, err := r.lookup(req.Name); err != nil {
		return Skip{}, err
	}
	switch {
	case req.Position <= 0:
		return Skip{}, domainerr.Field("position", "give the position of the event to skip, a positive number")
	case strings.TrimSpace(req.Reason) == "":
		return Skip{}, domainerr.Field("reason", "give a reason for skipping the event; it is kept as the record of the decision")
	case strings.TrimSpace(req.By) == "":
		return Skip{}, domainerr.Field("by", "say who skips the event")
	}
	s := Skip{Position: req.Position, Reason: strings.TrimSpace(req.Reason), By: strings.TrimSpace(req.By)}
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if err := lock(ctx, tx, req.Name); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT event_id::text, type, stream_id FROM events WHERE position = $1`, req.Position).Scan(&s.EventID, &s.EventType, &s.StreamID)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNoEvent.WithMessage(fmt.Sprintf("no event at position %d", req.Position))
		}
		if err != nil {
			return err
		}
		var checkpoint int64
		var failedErr *string
		if err := tx.QueryRow(ctx, `SELECT c.position, f.error FROM projection_checkpoints c
			LEFT JOIN projection_failures f ON f.name = c.name AND f.position = $2 WHERE c.name = $1`, req.Name, req.Position).Scan(&checkpoint, &failedErr); err != nil {
			return fmt.Errorf("projections: checkpoint of %s: %w", req.Name, err)
		}
		s.Applied = req.Position <= checkpoint
		if failedErr != nil {
			s.Error = *failedErr
		}
		err = tx.QueryRow(ctx, `INSERT INTO projection_skips (name, position, event_id, event_type, stream_id, reason, skipped_by, error, already_applied)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING skipped_at`,
			req.Name, req.Position, s.EventID, s.EventType, s.StreamID, s.Reason, s.By, failedErr, s.Applied).Scan(&s.At)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			return ErrAlreadySkipped.WithMessage(fmt.Sprintf("the event at position %d is already skipped by %s", req.Position, req.Name))
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM projection_failures WHERE name = $1 AND position = $2`, req.Name, req.Position)
		return err
	})
	if err != nil {
		if _, _, classified := domainerr.KindOf(err); classified {
			return Skip{}, err
		}
		return Skip{}, fmt.Errorf("projections: skip position %d of %s: %w", req.Position, req.Name, err)
	}
	r.logger.Info("projection event skipped", "projection", req.Name, "position", s.Position, "event_id", s.EventID,
		"type", s.EventType, "stream", s.StreamID, "reason", s.Reason, "by", s.By, "already_applied", s.Applied)
	r.changed.Notify()
	return s, nil
}

// skipsOf lists a projection's skipped events in position order.
func skipsOf(ctx context.Context, q postgres.Querier, name string) ([]Skip, error) {
	rows, err := q.Query(ctx, `SELECT position, event_id::text, event_type, stream_id, reason, skipped_by, skipped_at, coalesce(error, ''), already_applied
		FROM projection_skips WHERE name = $1 ORDER BY position`, name)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Skip, error) {
		var s Skip
		err := row.Scan(&s.Position, &s.EventID, &s.EventType, &s.StreamID, &s.Reason, &s.By, &s.At, &s.Error, &s.Applied)
		return s, err
	})
}

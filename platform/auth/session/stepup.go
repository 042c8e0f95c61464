package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// StepUpLifetime is how long a confirmation ("it's me": an authenticator code or the password)
// lets the session through operations that need one. Short, because it stands for the person
// being at the screen, not for the sign-in.
const StepUpLifetime = 5 * time.Minute

// MarkSteppedUp records that the person behind one of userID's live sessions has just confirmed
// who they are, and returns until when that counts. A session that is not theirs, or has ended,
// is ErrNotFound.
func (s *Store) MarkSteppedUp(ctx context.Context, userID, sessionID uuid.UUID) (time.Time, error) {
	now := s.clock.Now()
	tag, err := s.db.Exec(ctx, `UPDATE sessions SET stepped_up_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
		sessionID, userID, now)
	if err != nil {
		return time.Time{}, fmt.Errorf("session: step up: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return time.Time{}, ErrNotFound
	}
	return now.Add(StepUpLifetime), nil
}

// SteppedUp reports whether the session was confirmed within StepUpLifetime. It reads the row
// each time (never the guard's memory): the operations that ask are few, and a confirmation must
// count in every process at once.
func (s *Store) SteppedUp(ctx context.Context, userID, sessionID uuid.UUID) (bool, error) {
	var at *time.Time
	err := s.db.QueryRow(ctx, `SELECT stepped_up_at FROM sessions WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
		sessionID, userID).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("session: step up: %w", err)
	}
	return Fresh(at, s.clock.Now()), nil
}

// Fresh is the step-up rule: a confirmation at *at counts until StepUpLifetime has passed.
func Fresh(at *time.Time, now time.Time) bool {
	if at == nil {
		return false
	}
	age := now.Sub(*at)
	return age >= 0 && age < StepUpLifetime
}

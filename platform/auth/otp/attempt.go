package otp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/platform/auth"
)

// Attempt is a sign-in waiting for its e-mailed code.
type Attempt struct {
	// Token is the pending-login token: the browser keeps it and sends it back with the code.
	// It is a random 256-bit value; only its hash is stored.
	Token string
	// Code is the code to e-mail now; "" when the attempt goes on with the code already sent.
	Code string
	// Expires is when the attempt, and its code, end.
	Expires time.Time
}

// Begin starts a sign-in attempt for a user who has just passed the password, replacing any
// earlier attempt of the purpose: only the latest e-mail works. It returns the attempt and the
// statements that store it, for the caller to send with the e-mail carrying its code in one
// round trip; none when the attempt goes on with the code already sent.
//
// current is the token the browser already holds, if any. When it names the user's live
// attempt whose code went out less than Cooldown ago, that attempt goes on and no code is made,
// so pressing "Sign in" twice sends one e-mail. In every other case (another browser, a code
// already used or expired) the attempt is new and so is its code.
func (s *Codes) Begin(ctx context.Context, userID uuid.UUID, purpose Purpose, current string) (Attempt, []auth.Statement, error) {
	pol, ok := policies[purpose]
	if !ok || !pol.attempt {
		return Attempt{}, nil, fmt.Errorf("otp: %q codes have no sign-in attempt", purpose)
	}
	now := s.clock.Now()
	if current != "" {
		var hash []byte
		var created, expires time.Time
		var used *time.Time
		err := s.db.QueryRow(ctx, `SELECT attempt_hash, created_at, expires_at, used_at FROM one_time_codes
			WHERE user_id = $1 AND purpose = $2 ORDER BY created_at DESC LIMIT 1`, userID, purpose).
			Scan(&hash, &created, &expires, &used)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return Attempt{}, nil, fmt.Errorf("otp: begin attempt: %w", err)
		}
		if err == nil && subtle.ConstantTimeCompare(hash, auth.HashToken(current)) == 1 &&
			used == nil && now.Before(expires) && now.Sub(created) < pol.cooldown {
			return Attempt{Token: current, Expires: expires}, nil, nil
		}
	}
	out := Attempt{Token: auth.NewToken(), Code: newCode(), Expires: now.Add(pol.ttl)}
	return out, []auth.Statement{
		lockStatement(userID, purpose),
		{SQL: `DELETE FROM one_time_codes WHERE user_id = $1 AND purpose = $2`, Args: []any{userID, purpose}},
		{SQL: `INSERT INTO one_time_codes (id, user_id, purpose, code_hash, attempt_hash, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			Args: []any{uuid.Must(uuid.NewV7()), userID, purpose, s.hash(s.keys[0], purpose, out.Code), auth.HashToken(out.Token), out.Expires, now}},
	}, nil
}

// AttemptGoneConstraint is what the violation of Resend's statement names when the attempt was
// spent, burnt or replaced after Resend read it; CooldownConstraint, when it got a new code.
const AttemptGoneConstraint = "one_time_codes_attempt_gone"

// Resend makes a new code for the user's live attempt named by token, valid for the purpose's
// full life from now, and returns the attempt and the statement that stores the code (auth
// migration 0012), for the caller to send with the e-mail carrying it. It fails with
// ErrNoAttempt when token names no live attempt of the user, with a *CooldownError within
// Cooldown of the last code (which is still the valid one). An attempt burnt by wrong guesses
// is over too (ErrNoAttempt): a new code would wipe out the guesses already made, so the person
// signs in again with the password. Should the attempt change before the statement runs, it
// fails with a check violation of CooldownConstraint or AttemptGoneConstraint.
func (s *Codes) Resend(ctx context.Context, userID uuid.UUID, purpose Purpose, token string) (Attempt, auth.Statement, error) {
	pol, ok := policies[purpose]
	if !ok || !pol.attempt {
		return Attempt{}, auth.Statement{}, fmt.Errorf("otp: %q codes have no sign-in attempt", purpose)
	}
	if strings.TrimSpace(token) == "" || userID == uuid.Nil {
		return Attempt{}, auth.Statement{}, ErrNoAttempt
	}
	now := s.clock.Now()
	var id uuid.UUID
	var hash []byte
	var created, expires time.Time
	var used *time.Time
	var attempts int
	err := s.db.QueryRow(ctx, `SELECT id, attempt_hash, created_at, expires_at, used_at, attempts FROM one_time_codes
		WHERE user_id = $1 AND purpose = $2 ORDER BY created_at DESC LIMIT 1`, userID, purpose).
		Scan(&id, &hash, &created, &expires, &used, &attempts)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Attempt{}, auth.Statement{}, ErrNoAttempt
	case err != nil:
		return Attempt{}, auth.Statement{}, fmt.Errorf("otp: resend: %w", err)
	case subtle.ConstantTimeCompare(hash, auth.HashToken(token)) != 1 || used != nil || !now.Before(expires) ||
		attempts >= MaxAttempts:
		return Attempt{}, auth.Statement{}, ErrNoAttempt
	case now.Sub(created) < pol.cooldown:
		return Attempt{}, auth.Statement{}, &CooldownError{Wait: created.Add(pol.cooldown).Sub(now)}
	}
	out := Attempt{Token: token, Code: newCode(), Expires: now.Add(pol.ttl)}
	return out, auth.Statement{SQL: `SELECT otp_resend($1, $2, $3, $4, $5, $6, $7, $8)`,
		Args: []any{id, userID, purpose, created, s.hash(s.keys[0], purpose, out.Code), now, out.Expires, MaxAttempts}}, nil
}

// Redeem spends the code of the user's attempt named by token. A token that names no live
// attempt is ErrNoAttempt and counts as no guess (there was nothing to guess against); a wrong
// code counts like any wrong code (ErrInvalidCode, then ErrTooManyWrongCodes).
//
// Redeem runs on the store's own connection, like Consume: a wrong guess must count even when
// the caller then rolls back.
func (s *Codes) Redeem(ctx context.Context, purpose Purpose, token, code string, userID uuid.UUID) error {
	return s.redeemAttempt(ctx, purpose, token, code, userID, true)
}

// Check is Redeem without spending the code: it answers the same, and a wrong code counts the
// same, but a right one still works afterwards. A sign-in that needs one more step after the
// code (the authenticator's) checks the code first, so that the step is only shown to whoever
// holds it, and redeems it once the step is answered too.
func (s *Codes) Check(ctx context.Context, purpose Purpose, token, code string, userID uuid.UUID) error {
	return s.redeemAttempt(ctx, purpose, token, code, userID, false)
}

func (s *Codes) redeemAttempt(ctx context.Context, purpose Purpose, token, code string, userID uuid.UUID, spend bool) error {
	pol, ok := policies[purpose]
	if !ok || !pol.attempt {
		return fmt.Errorf("otp: %q codes have no sign-in attempt", purpose)
	}
	if strings.TrimSpace(token) == "" {
		return ErrNoAttempt
	}
	return s.redeem(ctx, purpose, strings.ReplaceAll(strings.TrimSpace(code), " ", ""), userID, auth.HashToken(token), spend)
}

// lockStatement takes the lock of a user's codes of a purpose until the transaction ends; the
// SQL functions of auth migrations 0011 and 0012 take the same one.
func lockStatement(userID uuid.UUID, purpose Purpose) auth.Statement {
	return auth.Statement{SQL: `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, Args: []any{"otp:" + userID.String() + ":" + string(purpose)}}
}

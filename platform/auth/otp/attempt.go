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
// earlier attempt of the purpose: only the latest e-mail works. db is the caller's transaction
// (the one that queues the e-mail), or nil for the store's own pool.
//
// current is the token the browser already holds, if any. When it names the user's live
// attempt whose code went out less than Cooldown ago, that attempt goes on and no code is made,
// so pressing "Sign in" twice sends one e-mail. In every other case (another browser, a code
// already used or expired) the attempt is new and so is its code.
func (s *Codes) Begin(ctx context.Context, db auth.DB, userID uuid.UUID, purpose Purpose, current string) (Attempt, error) {
	pol, ok := policies[purpose]
	if !ok || !pol.attempt {
		return Attempt{}, fmt.Errorf("otp: %q codes have no sign-in attempt", purpose)
	}
	if db == nil {
		db = s.db
	}
	now := s.clock.Now()
	var out Attempt
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := lockPurpose(ctx, tx, userID, purpose); err != nil {
			return err
		}
		if current != "" {
			var hash []byte
			var created, expires time.Time
			var used *time.Time
			err := tx.QueryRow(ctx, `SELECT attempt_hash, created_at, expires_at, used_at FROM one_time_codes
				WHERE user_id = $1 AND purpose = $2 ORDER BY created_at DESC LIMIT 1`, userID, purpose).
				Scan(&hash, &created, &expires, &used)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			if err == nil && subtle.ConstantTimeCompare(hash, auth.HashToken(current)) == 1 &&
				used == nil && now.Before(expires) && now.Sub(created) < pol.cooldown {
				out = Attempt{Token: current, Expires: expires}
				return nil
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM one_time_codes WHERE user_id = $1 AND purpose = $2`, userID, purpose); err != nil {
			return err
		}
		out = Attempt{Token: auth.NewToken(), Code: newCode(), Expires: now.Add(pol.ttl)}
		_, err := tx.Exec(ctx, `INSERT INTO one_time_codes (id, user_id, purpose, code_hash, attempt_hash, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			uuid.Must(uuid.NewV7()), userID, purpose, s.hash(s.keys[0], purpose, out.Code), auth.HashToken(out.Token), out.Expires, now)
		return err
	})
	if err != nil {
		return Attempt{}, fmt.Errorf("otp: begin attempt: %w", err)
	}
	return out, nil
}

// Resend makes a new code for the user's live attempt named by token, valid for the purpose's
// full life from now. It fails with ErrNoAttempt when token names no live attempt of the user,
// with a *CooldownError within Cooldown of the last code (which is still the valid one). An
// attempt burnt by wrong guesses is over too (ErrNoAttempt): a new code would wipe out the
// guesses already made, so the person signs in again with the password.
func (s *Codes) Resend(ctx context.Context, db auth.DB, userID uuid.UUID, purpose Purpose, token string) (Attempt, error) {
	pol, ok := policies[purpose]
	if !ok || !pol.attempt {
		return Attempt{}, fmt.Errorf("otp: %q codes have no sign-in attempt", purpose)
	}
	if strings.TrimSpace(token) == "" || userID == uuid.Nil {
		return Attempt{}, ErrNoAttempt
	}
	if db == nil {
		db = s.db
	}
	now := s.clock.Now()
	var out Attempt
	var refused error
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := lockPurpose(ctx, tx, userID, purpose); err != nil {
			return err
		}
		var id uuid.UUID
		var hash []byte
		var created, expires time.Time
		var used *time.Time
		var attempts int
		err := tx.QueryRow(ctx, `SELECT id, attempt_hash, created_at, expires_at, used_at, attempts FROM one_time_codes
			WHERE user_id = $1 AND purpose = $2 ORDER BY created_at DESC LIMIT 1`, userID, purpose).
			Scan(&id, &hash, &created, &expires, &used, &attempts)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			refused = ErrNoAttempt
			return nil
		case err != nil:
			return err
		case subtle.ConstantTimeCompare(hash, auth.HashToken(token)) != 1 || used != nil || !now.Before(expires) ||
			attempts >= MaxAttempts:
			refused = ErrNoAttempt
			return nil
		case now.Sub(created) < pol.cooldown:
			refused = &CooldownError{Wait: created.Add(pol.cooldown).Sub(now)}
			return nil
		}
		out = Attempt{Token: token, Code: newCode(), Expires: now.Add(pol.ttl)}
		_, err = tx.Exec(ctx, `UPDATE one_time_codes SET code_hash = $2, created_at = $3, expires_at = $4 WHERE id = $1`,
			id, s.hash(s.keys[0], purpose, out.Code), now, out.Expires)
		return err
	})
	if err != nil {
		return Attempt{}, fmt.Errorf("otp: resend: %w", err)
	}
	if refused != nil {
		return Attempt{}, refused
	}
	return out, nil
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

// lockPurpose serialises the writers of one user's codes of a purpose, so two quick clicks
// cannot both pass a check (the cooldown, or an attempt's state).
func lockPurpose(ctx context.Context, tx pgx.Tx, userID uuid.UUID, purpose Purpose) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "otp:"+userID.String()+":"+string(purpose))
	return err
}

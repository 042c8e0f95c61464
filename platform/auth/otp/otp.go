// Package otp issues and redeems one-time codes and links sent by e-mail: 6-digit login codes,
// and 256-bit tokens for e-mail verification, password reset and "this wasn't me".
//
// Only an HMAC of each code is stored, keyed with a key derived from the application secret.
// For the random 256-bit tokens a plain hash would do, but a 6-digit code has only a million
// values: hashed without a key, a copy of the table would give them all away in a second.
//
// A code is single use. Issuing a new one of the same purpose replaces the old (so only the
// latest e-mail works), and a login code is burnt after a few wrong guesses, so guessing is
// bounded by how often codes may be requested (see package ratelimit).
//
// A login code is more than a code: it belongs to one sign-in attempt (Begin), the one that
// passed the password, and is redeemed only together with that attempt's token, which the
// browser holds. The code alone, read from a mailbox or guessed, never signs anyone in.
package otp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
)

// Purpose is what a code is for; a code of one purpose is useless for another.
type Purpose string

// Purposes.
const (
	Login         Purpose = "login"
	VerifyEmail   Purpose = "verify_email"
	ResetPassword Purpose = "reset_password"
	WasntMe       Purpose = "wasnt_me"
	LinkGoogle    Purpose = "link_google"
)

const (
	// MaxAttempts is how many wrong guesses burn a code.
	MaxAttempts = 5
	// Cooldown is the least time between two requested codes of one purpose for one user, so a
	// "resend" button cannot be turned into a mail bomb.
	Cooldown = 60 * time.Second
	// CodeDigits is the length of numeric codes.
	CodeDigits = 6

	keyInfo = "clearvest one-time codes v1"
)

type policy struct {
	numeric  bool          // a 6-digit code typed by the user, rather than a link
	ttl      time.Duration // default life
	cooldown time.Duration
	replaces bool // a new code invalidates the older ones of its purpose
	attempt  bool // codes belong to a sign-in attempt: Begin, Resend, Redeem instead of Issue, Consume
}

var policies = map[Purpose]policy{
	Login:         {numeric: true, ttl: 10 * time.Minute, cooldown: Cooldown, replaces: true, attempt: true},
	LinkGoogle:    {numeric: true, ttl: 10 * time.Minute, cooldown: Cooldown, replaces: true},
	VerifyEmail:   {ttl: 24 * time.Hour, cooldown: Cooldown, replaces: true},
	ResetPassword: {ttl: time.Hour, cooldown: Cooldown, replaces: true},
	// Each new-device alert carries its own "this wasn't me" link; an alert must not disable
	// the link in an earlier one, and alerts are not user-requested, so no cooldown.
	WasntMe: {ttl: 7 * 24 * time.Hour},
}

// TTL is the default life of a purpose's codes.
func TTL(p Purpose) time.Duration { return policies[p].ttl }

// Numeric reports whether a purpose uses typed 6-digit codes (else URL-safe tokens for links).
func Numeric(p Purpose) bool { return policies[p].numeric }

var (
	// ErrInvalidCode: a typed code is wrong, used, replaced or expired.
	ErrInvalidCode = domainerr.New(domainerr.Unauthenticated, "Invalid or expired code")
	// ErrInvalidLink: a link's token is wrong, used, replaced or expired.
	ErrInvalidLink = domainerr.New(domainerr.Invalid, "Invalid or expired link")
	// ErrTooManyWrongCodes: the code was burnt by wrong guesses.
	ErrTooManyWrongCodes = domainerr.New(domainerr.RateLimited, "Too many wrong codes. Request a new one.")
	// ErrCooldown is matched (errors.Is) by every *CooldownError.
	ErrCooldown = domainerr.New(domainerr.RateLimited, "Please wait a minute before requesting a new code.")
	// ErrNoAttempt: the sign-in attempt is unknown, used, replaced by a newer one or expired.
	ErrNoAttempt = domainerr.Coded(domainerr.Unauthenticated, "login_expired",
		"This sign-in has expired. Please log in again.")
)

// CooldownError refuses a code requested too soon after the previous one. The API's error
// mapper sets Retry-After from RetryAfter.
type CooldownError struct{ Wait time.Duration }

func (e *CooldownError) Error() string {
	s := int((e.Wait + time.Second - 1) / time.Second)
	if s == 1 {
		return "Please wait 1 second before requesting a new code."
	}
	return fmt.Sprintf("Please wait %d seconds before requesting a new code.", s)
}

// Kind implements domainerr.Classified.
func (e *CooldownError) Kind() domainerr.Kind { return domainerr.RateLimited }

// RetryAfter is how long until a new code may be requested.
func (e *CooldownError) RetryAfter() time.Duration { return e.Wait }

// Is makes errors.Is(err, ErrCooldown) hold.
func (e *CooldownError) Is(target error) bool { return target == ErrCooldown }

// Codes issues and redeems one-time codes.
type Codes struct {
	db    auth.DB
	clock clock.Clock
	keys  [][]byte // keys[0] is current; the others still redeem codes issued before a rotation
}

// New returns the code store on db, keyed from the application secrets (current first).
func New(db auth.DB, c clock.Clock, secret []byte, previous ...[]byte) (*Codes, error) {
	s := &Codes{db: db, clock: c}
	for _, sec := range append([][]byte{secret}, previous...) {
		key, err := auth.DeriveKey(sec, keyInfo)
		if err != nil {
			return nil, fmt.Errorf("otp: %w", err)
		}
		s.keys = append(s.keys, key)
	}
	return s, nil
}

func (s *Codes) hash(key []byte, p Purpose, plaintext string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(p))
	m.Write([]byte{0})
	m.Write([]byte(plaintext))
	return m.Sum(nil)
}

func (s *Codes) hashes(p Purpose, plaintext string) [][]byte {
	out := make([][]byte, len(s.keys))
	for i, k := range s.keys {
		out[i] = s.hash(k, p, plaintext)
	}
	return out
}

func newCode() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(1_000_000)) // crypto/rand never fails on supported platforms
	return fmt.Sprintf("%0*d", CodeDigits, n.Int64())
}

// Issue creates a code for a user and returns its plaintext, to be e-mailed and forgotten.
// ttl 0 means the purpose's default. db is where it is written: the transaction that also
// queues the e-mail (so neither exists without the other), or nil for the store's own pool.
// A request within Cooldown of the previous code of the purpose is a *CooldownError.
func (s *Codes) Issue(ctx context.Context, db auth.DB, userID uuid.UUID, purpose Purpose, ttl time.Duration) (string, error) {
	if db == nil {
		db = s.db
	}
	now := s.clock.Now()
	c, err := s.issue(userID, purpose, ttl, now, false)
	if err != nil {
		return "", err
	}
	var last *time.Time
	if err := db.QueryRow(ctx, c.Statement.SQL, c.Statement.Args...).Scan(&last); err != nil {
		return "", fmt.Errorf("otp: issue: %w", err)
	}
	if last != nil {
		return "", &CooldownError{Wait: last.Add(policies[purpose].cooldown).Sub(now)}
	}
	return c.Plaintext, nil
}

// Issued is a code made for a command that sends its writes in one round trip
// (command.Submit): its plaintext, to be e-mailed, and the statement that stores it.
type Issued struct {
	Plaintext string
	Statement auth.Statement
}

// CooldownConstraint is what the violation of an Issued statement names when a code of its
// purpose was issued, within the cooldown, after IssueFor read the last one.
const CooldownConstraint = "one_time_codes_cooldown"

// IssueFor makes a code as Issue does, but leaves storing it to the caller's command: it reads
// when the last code of the purpose was made (a *CooldownError within the cooldown) and returns
// the statement that stores the new one, which fails with a check violation of
// CooldownConstraint should another code be issued meanwhile.
func (s *Codes) IssueFor(ctx context.Context, userID uuid.UUID, purpose Purpose, ttl time.Duration) (Issued, error) {
	now := s.clock.Now()
	if cd := policies[purpose].cooldown; cd > 0 {
		var last *time.Time
		if err := s.db.QueryRow(ctx, `SELECT max(created_at) FROM one_time_codes WHERE user_id = $1 AND purpose = $2`,
			userID, purpose).Scan(&last); err != nil {
			return Issued{}, fmt.Errorf("otp: issue: %w", err)
		}
		if last != nil && now.Sub(*last) < cd {
			return Issued{}, &CooldownError{Wait: last.Add(cd).Sub(now)}
		}
	}
	return s.issue(userID, purpose, ttl, now, true)
}

// issue makes a code of purpose and the call of otp_issue (auth migration 0011) that stores it
// under the purpose's rules; refuse makes the call fail within the cooldown rather than return
// the last code's time.
func (s *Codes) issue(userID uuid.UUID, purpose Purpose, ttl time.Duration, now time.Time, refuse bool) (Issued, error) {
	pol, ok := policies[purpose]
	if !ok || pol.attempt {
		return Issued{}, fmt.Errorf("otp: Issue cannot make %q codes", purpose)
	}
	if ttl <= 0 {
		ttl = pol.ttl
	}
	plaintext := auth.NewToken()
	if pol.numeric {
		plaintext = newCode()
	}
	var since *time.Time
	if pol.cooldown > 0 {
		t := now.Add(-pol.cooldown)
		since = &t
	}
	return Issued{Plaintext: plaintext, Statement: auth.Statement{SQL: `SELECT otp_issue($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		Args: []any{uuid.Must(uuid.NewV7()), userID, purpose, s.hash(s.keys[0], purpose, plaintext), now.Add(ttl), now, since, pol.replaces, refuse}}}, nil
}

// ForgetStatement deletes every code of a user, spent ones included (account closure).
func ForgetStatement(userID uuid.UUID) auth.Statement {
	return auth.Statement{SQL: `DELETE FROM one_time_codes WHERE user_id = $1`, Args: []any{userID}}
}

// Consume redeems a code and returns the user it belongs to. A typed code (login) needs the
// user it was sent to, since the code alone is not unique; a link's token identifies its user,
// and userID may be uuid.Nil or, when the caller knows who is signed in, that user.
//
// Consume runs on the store's own connection, never the caller's transaction: a wrong guess
// must count even when the caller then rolls back.
func (s *Codes) Consume(ctx context.Context, purpose Purpose, plaintext string, userID uuid.UUID) (uuid.UUID, error) {
	pol, ok := policies[purpose]
	if !ok || pol.attempt {
		return uuid.Nil, fmt.Errorf("otp: Consume cannot redeem %q codes", purpose)
	}
	plaintext = strings.TrimSpace(plaintext)
	if pol.numeric {
		return s.consumeCode(ctx, purpose, strings.ReplaceAll(plaintext, " ", ""), userID)
	}
	return s.consumeToken(ctx, purpose, plaintext, userID)
}

func (s *Codes) consumeToken(ctx context.Context, purpose Purpose, token string, userID uuid.UUID) (uuid.UUID, error) {
	if len(token) != 43 {
		return uuid.Nil, ErrInvalidLink
	}
	var owner uuid.UUID
	// The single UPDATE both checks and spends the token, so two clicks cannot both succeed.
	// Looking the hash up by index leaks nothing through timing: an attacker would have to
	// find HMAC inputs whose outputs share a prefix with the stored value.
	err := s.db.QueryRow(ctx, `
		UPDATE one_time_codes SET used_at = $3
		WHERE id = (SELECT id FROM one_time_codes
		            WHERE code_hash = ANY($1) AND purpose = $2 AND used_at IS NULL AND expires_at > $3
		              AND ($4 = '00000000-0000-0000-0000-000000000000'::uuid OR user_id = $4)
		            LIMIT 1)
		  AND used_at IS NULL
		RETURNING user_id`, s.hashes(purpose, token), purpose, s.clock.Now(), userID).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, ErrInvalidLink
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("otp: consume: %w", err)
	}
	return owner, nil
}

func (s *Codes) consumeCode(ctx context.Context, purpose Purpose, code string, userID uuid.UUID) (uuid.UUID, error) {
	if err := s.redeem(ctx, purpose, code, userID, nil, true); err != nil {
		return uuid.Nil, err
	}
	return userID, nil
}

// redeem checks a typed code against the user's latest code of the purpose and, with spend,
// spends it. With an attempt hash, the code must also belong to that attempt (else ErrNoAttempt,
// which is no guess and counts nothing).
func (s *Codes) redeem(ctx context.Context, purpose Purpose, code string, userID uuid.UUID, attempt []byte, spend bool) error {
	if userID == uuid.Nil || !isDigits(code, CodeDigits) {
		return ErrInvalidCode
	}
	now := s.clock.Now()
	// outcome is committed with the attempt count, not returned through BeginFunc (which would
	// roll the count back).
	var outcome error
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var id uuid.UUID
		var stored, attemptHash []byte
		var expires time.Time
		var attempts int
		var used *time.Time
		err := tx.QueryRow(ctx, `SELECT id, code_hash, attempt_hash, expires_at, attempts, used_at FROM one_time_codes
			WHERE user_id = $1 AND purpose = $2 ORDER BY created_at DESC LIMIT 1 FOR UPDATE`, userID, purpose).
			Scan(&id, &stored, &attemptHash, &expires, &attempts, &used)
		noCode := ErrInvalidCode
		if attempt != nil {
			noCode = ErrNoAttempt
		}
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			outcome = noCode
			return nil
		case err != nil:
			return err
		case attempt != nil && subtle.ConstantTimeCompare(attempt, attemptHash) != 1:
			outcome = ErrNoAttempt
			return nil
		case used != nil || !now.Before(expires):
			outcome = noCode
			return nil
		case attempts >= MaxAttempts:
			outcome = ErrTooManyWrongCodes
			return nil
		}
		match := false
		for _, h := range s.hashes(purpose, code) {
			if hmac.Equal(h, stored) {
				match = true
			}
		}
		if match {
			if !spend {
				return nil
			}
			_, err := tx.Exec(ctx, `UPDATE one_time_codes SET used_at = $2 WHERE id = $1`, id, now)
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE one_time_codes SET attempts = attempts + 1 WHERE id = $1`, id); err != nil {
			return err
		}
		if attempts+1 >= MaxAttempts {
			outcome = ErrTooManyWrongCodes
		} else {
			outcome = ErrInvalidCode
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("otp: consume: %w", err)
	}
	return outcome
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

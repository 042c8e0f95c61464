// Package session keeps sign-in sessions and trusted devices.
//
// A session is one sign-in on one browser or client. It is held by an opaque refresh token
// (only its hash is stored) that rotates on every use, and every request checks the session row,
// so signing out, "sign out everywhere" and suspension are immediate even though access tokens
// are stateless.
//
// Rotation gives theft detection: the legitimate client and a thief both hold the same refresh
// token, and whichever refreshes second presents a token that was already rotated out. That
// reuse is the signal; the whole family is revoked and both must sign in again, which only the
// real user can.
package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/auth"
	"clearvest/platform/auth/principal"
)

const (
	// AbsoluteLifetime bounds a session however active it is: a stolen session dies by itself.
	AbsoluteLifetime = 12 * time.Hour
	// StaffIdleTimeout applies to authors and admins, whose sessions can move other people's
	// money: an unattended staff browser must not stay signed in for long.
	StaffIdleTimeout = 30 * time.Minute
	// SubscriberIdleTimeout is as long as the absolute lifetime: a subscriber's session only
	// ends by time or by signing out.
	SubscriberIdleTimeout = 12 * time.Hour
	// TouchInterval is how stale last_seen_at may get before a request updates it. Writing on
	// every request would turn every read into a write; a minute is far below any timeout.
	TouchInterval = time.Minute
	// RotationGrace is how long after a rotation the token it replaced is taken for a race (two
	// tabs refreshing at once) rather than theft.
	RotationGrace = 10 * time.Second
	// retention is how long ended sessions stay for the user's list and investigations.
	retention = 30 * 24 * time.Hour
	// maxFieldLen caps client-supplied strings (user agents can be arbitrarily long).
	maxFieldLen = 512
)

// Revocation reasons recorded by this package; callers pass their own (e.g. "logout",
// "password_changed", "suspended") to Revoke and RevokeAll.
const (
	ReasonIdle         = "idle_timeout"
	ReasonRefreshReuse = "refresh_token_reuse"
)

var (
	// ErrExpired: the session is unknown, revoked, idle too long or past its absolute life.
	ErrExpired = domainerr.New(domainerr.Unauthenticated, "Your session has expired. Please log in again.")
	// ErrReused: a rotated-out refresh token came back, so it may have been stolen; the session
	// family is revoked. The API should clear the cookies and may alert the user.
	ErrReused = domainerr.New(domainerr.Unauthenticated, "For your security, this session was ended. Please log in again.")
	// ErrRaced: the token was rotated a moment ago by a concurrent refresh (another tab). Nothing
	// is revoked; the client should retry with the cookie it holds now.
	ErrRaced = domainerr.New(domainerr.Conflict, "Your session was just refreshed. Please try again.")
	// ErrNotFound: no such session of this user.
	ErrNotFound = domainerr.New(domainerr.NotFound, "Session not found")
)

// IdleTimeout is how long a session of role may go unused.
func IdleTimeout(role identity.Role) time.Duration {
	if role.IsStaff() {
		return StaffIdleTimeout
	}
	return SubscriberIdleTimeout
}

// Device describes where a sign-in came from, as the request tells it. It is informational
// (shown in the user's session list), never trusted for access decisions.
type Device struct {
	IP        string
	UserAgent string
	DeviceID  string
}

// Session is one sign-in.
type Session struct {
	ID            uuid.UUID
	UserID        uuid.UUID
	FamilyID      uuid.UUID
	CreatedAt     time.Time
	LastSeenAt    time.Time
	ExpiresAt     time.Time
	RevokedAt     time.Time // zero while active
	RevokedReason string
	IP            string
	UserAgent     string
	DeviceID      string
}

// Label is a short human description of the session's device, e.g. "Firefox on Windows".
func (s Session) Label() string { return DeviceLabel(s.UserAgent) }

// Store keeps sessions in PostgreSQL.
type Store struct {
	db    auth.DB
	clock clock.Clock
}

// New returns the session store on db (normally the pool).
func New(db auth.DB, c clock.Clock) *Store { return &Store{db: db, clock: c} }

// columns are read from the sessions table, always aliased s.
const columns = `s.id, s.user_id, s.family_id, s.created_at, s.last_seen_at, s.expires_at, s.revoked_at, coalesce(s.revoked_reason, ''), s.ip, s.user_agent, s.device_id`

func scan(row pgx.Row, extra ...any) (Session, error) {
	var s Session
	var revoked *time.Time
	dest := append([]any{&s.ID, &s.UserID, &s.FamilyID, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt, &revoked,
		&s.RevokedReason, &s.IP, &s.UserAgent, &s.DeviceID}, extra...)
	if err := row.Scan(dest...); err != nil {
		return Session{}, err
	}
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = s.CreatedAt.UTC(), s.LastSeenAt.UTC(), s.ExpiresAt.UTC()
	if revoked != nil {
		s.RevokedAt = revoked.UTC()
	}
	return s, nil
}

func truncate(s string) string {
	if len(s) <= maxFieldLen {
		return s
	}
	s = s[:maxFieldLen]
	return strings.ToValidUTF8(s, "")
}

// CreateStatements starts a session for a user who has just proved who they are: the session,
// its refresh token (to be set as the cv_refresh cookie; it is not stored anywhere in
// plaintext) and the statements that store it, which the flow sends with its events in one
// round trip.
func (s *Store) CreateStatements(userID uuid.UUID, dev Device) (Session, string, []auth.Statement) {
	now := s.clock.Now()
	id := uuid.Must(uuid.NewV7())
	refresh := auth.NewToken()
	sess := Session{
		ID: id, UserID: userID, FamilyID: id, CreatedAt: now, LastSeenAt: now,
		ExpiresAt: now.Add(AbsoluteLifetime), IP: truncate(dev.IP), UserAgent: truncate(dev.UserAgent),
		DeviceID: truncate(dev.DeviceID),
	}
	return sess, refresh, []auth.Statement{
		// Each sign-in prunes the user's long-dead sessions, which keeps the table small
		// without a background job.
		{SQL: `DELETE FROM sessions WHERE user_id = $1 AND expires_at < $2`, Args: []any{userID, now.Add(-retention)}},
		{SQL: `INSERT INTO sessions (id, user_id, refresh_hash, family_id, created_at, last_seen_at, expires_at, ip, user_agent, device_id)
			VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9)`,
			Args: []any{sess.ID, userID, auth.HashToken(refresh), sess.FamilyID, now, sess.ExpiresAt, sess.IP, sess.UserAgent, sess.DeviceID}},
	}
}

// Validate checks, on every authenticated request, that a session may still be used by a user
// whose current role is role (from the principal row, not the token, so a demotion applies at
// once), and records the activity. An idle session is revoked on the spot.
func (s *Store) Validate(ctx context.Context, sessionID uuid.UUID, role identity.Role, now time.Time) (Session, error) {
	sess, err := s.get(ctx, sessionID)
	if err != nil {
		return Session{}, err
	}
	if err := s.usable(ctx, s.db, sess, role, now); err != nil {
		return Session{}, err
	}
	if now.Sub(sess.LastSeenAt) >= TouchInterval {
		if err := s.touch(ctx, sess.ID, now); err != nil {
			return Session{}, err
		}
		sess.LastSeenAt = now
	}
	return sess, nil
}

// get reads a session; an unknown one is ErrExpired.
func (s *Store) get(ctx context.Context, sessionID uuid.UUID) (Session, error) {
	sess, err := scan(s.db.QueryRow(ctx, `SELECT `+columns+` FROM sessions s WHERE s.id = $1`, sessionID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrExpired
	}
	if err != nil {
		return Session{}, fmt.Errorf("session: validate: %w", err)
	}
	return sess, nil
}

// touch records activity at now. The condition makes concurrent requests (and processes) write
// at most once per TouchInterval.
func (s *Store) touch(ctx context.Context, sessionID uuid.UUID, now time.Time) error {
	if _, err := s.db.Exec(ctx, `UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at <= $3`,
		sessionID, now, now.Add(-TouchInterval)); err != nil {
		return fmt.Errorf("session: touch: %w", err)
	}
	return nil
}

// touchMany records the activity of many sessions in one statement; a session already seen
// later keeps its time.
func (s *Store) touchMany(ctx context.Context, ids []uuid.UUID, at []time.Time) error {
	if _, err := s.db.Exec(ctx, `UPDATE sessions s SET last_seen_at = t.at
		FROM unnest($1::uuid[], $2::timestamptz[]) AS t(id, at)
		WHERE s.id = t.id AND s.last_seen_at < t.at`, ids, at); err != nil {
		return fmt.Errorf("session: touch: %w", err)
	}
	return nil
}

// usable applies the revocation, absolute and idle rules, revoking a session found idle so that
// it stays dead even if the role (and so the idle timeout) changes later.
func (s *Store) usable(ctx context.Context, db auth.DB, sess Session, role identity.Role, now time.Time) error {
	if !sess.RevokedAt.IsZero() || !now.Before(sess.ExpiresAt) {
		return ErrExpired
	}
	if now.Sub(sess.LastSeenAt) > IdleTimeout(role) {
		if _, err := db.Exec(ctx, `UPDATE sessions SET revoked_at = $2, revoked_reason = $3 WHERE id = $1 AND revoked_at IS NULL`,
			sess.ID, now, ReasonIdle); err != nil {
			return fmt.Errorf("session: revoke idle: %w", err)
		}
		return ErrExpired
	}
	return nil
}

// Refresh exchanges a refresh token for a new one, keeping the session. It enforces the same
// rules as Validate (with the user's current role and status from the principal row) and
// detects reuse of rotated-out tokens: ErrReused after revoking the family, or ErrRaced when the
// token was rotated within RotationGrace by a concurrent refresh.
func (s *Store) Refresh(ctx context.Context, refreshToken string) (Session, string, error) {
	now := s.clock.Now()
	hash := auth.HashToken(refreshToken)
	next := auth.NewToken()
	var sess Session
	// outcome is the answer when the token is refused. It is not returned through BeginFunc,
	// which would roll back: revoking a family on reuse must commit.
	var outcome error
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var role *identity.Role
		var status *identity.Status
		var err error
		// FOR UPDATE serialises concurrent refreshes of one session: the second waits, then no
		// longer matches the rotated hash and is handled as a reuse below.
		sess, err = scan(tx.QueryRow(ctx, `
			SELECT `+columns+`, p.role, p.status
			FROM sessions s LEFT JOIN principals p ON p.user_id = s.user_id
			WHERE s.refresh_hash = $1 FOR UPDATE OF s`, hash), &role, &status)
		if errors.Is(err, pgx.ErrNoRows) {
			answer, err := s.reused(ctx, tx, hash, now)
			if err != nil {
				return err
			}
			outcome = answer
			return nil
		}
		if err != nil {
			return err
		}
		if role == nil {
			outcome = ErrExpired
			return nil
		}
		if err := (principal.Principal{Status: *status}).CanAct(); err != nil {
			outcome = err
			return nil
		}
		if err := s.usable(ctx, tx, sess, *role, now); err != nil {
			outcome = err
			return nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO session_rotated_tokens (refresh_hash, session_id, rotated_at) VALUES ($1, $2, $3)`,
			hash, sess.ID, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sessions SET refresh_hash = $2, last_seen_at = $3 WHERE id = $1`, sess.ID, auth.HashToken(next), now)
		sess.LastSeenAt = now
		return err
	})
	if err != nil {
		return Session{}, "", fmt.Errorf("session: refresh: %w", err)
	}
	if outcome != nil {
		return Session{}, "", outcome
	}
	return sess, next, nil
}

// reused handles a refresh token that is not any session's current one: it returns the answer
// for the caller (ErrExpired, ErrRaced or ErrReused), and an error only when the database fails.
func (s *Store) reused(ctx context.Context, tx pgx.Tx, hash []byte, now time.Time) (*domainerr.Error, error) {
	var familyID uuid.UUID
	var rotatedAt time.Time
	var revoked bool
	err := tx.QueryRow(ctx, `
		SELECT s.family_id, r.rotated_at, s.revoked_at IS NOT NULL
		FROM session_rotated_tokens r JOIN sessions s ON s.id = r.session_id
		WHERE r.refresh_hash = $1`, hash).Scan(&familyID, &rotatedAt, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrExpired, nil
	}
	if err != nil {
		return nil, err
	}
	if !revoked && now.Sub(rotatedAt) <= RotationGrace {
		return ErrRaced, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE sessions SET revoked_at = $2, revoked_reason = $3 WHERE family_id = $1 AND revoked_at IS NULL`,
		familyID, now, ReasonRefreshReuse); err != nil {
		return nil, err
	}
	return ErrReused, nil
}

// RevokeStatement ends a session (signing out). Revoking an ended session changes nothing.
func (s *Store) RevokeStatement(sessionID uuid.UUID, reason string) auth.Statement {
	return auth.Statement{SQL: `UPDATE sessions SET revoked_at = $2, revoked_reason = $3 WHERE id = $1 AND revoked_at IS NULL`,
		Args: []any{sessionID, s.clock.Now(), reason}}
}

// RevokeOwn ends one of userID's sessions, for "sign out that device" in the session list. A
// session of another user is ErrNotFound, so ids from the request cannot reach other accounts.
func (s *Store) RevokeOwn(ctx context.Context, userID, sessionID uuid.UUID, reason string) error {
	var found bool
	err := s.db.QueryRow(ctx, `
		WITH target AS (SELECT id FROM sessions WHERE id = $1 AND user_id = $2),
		     upd AS (UPDATE sessions SET revoked_at = $3, revoked_reason = $4
		             WHERE id IN (SELECT id FROM target) AND revoked_at IS NULL)
		SELECT EXISTS (SELECT 1 FROM target)`, sessionID, userID, s.clock.Now(), reason).Scan(&found)
	if err != nil {
		return fmt.Errorf("session: revoke: %w", err)
	}
	if !found {
		return ErrNotFound
	}
	return nil
}

// RevokeAll ends every session of a user except one (the caller's own, after a password change;
// uuid.Nil to end them all, e.g. on suspension or "this wasn't me"). It returns how many ended.
func (s *Store) RevokeAll(ctx context.Context, userID, except uuid.UUID, reason string) (int, error) {
	st := s.RevokeAllStatement(userID, except, reason)
	tag, err := s.db.Exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return 0, fmt.Errorf("session: revoke all: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// RevokeAllStatement is RevokeAll as a statement and its arguments, for a command that sends its
// writes with its events in one round trip (command.Submit).
func (s *Store) RevokeAllStatement(userID, except uuid.UUID, reason string) auth.Statement {
	return auth.Statement{SQL: `UPDATE sessions SET revoked_at = $2, revoked_reason = $3 WHERE user_id = $1 AND id <> $4 AND revoked_at IS NULL`,
		Args: []any{userID, s.clock.Now(), reason, except}}
}

// DeleteAllStatement removes every session of a user, ended ones and their rotated-out tokens included
// (account closure: the rows hold the addresses and browsers the user signed in from).
func DeleteAllStatement(userID uuid.UUID) auth.Statement {
	return auth.Statement{SQL: `DELETE FROM sessions WHERE user_id = $1`, Args: []any{userID}}
}

// List returns a user's sessions that are neither revoked nor past their absolute life, most
// recently used first; view-as-user sessions held by staff are not the user's and are left out. Marking the caller's own is left to the caller, which knows its sid.
func (s *Store) List(ctx context.Context, userID uuid.UUID) ([]Session, error) {
	rows, err := s.db.Query(ctx, `SELECT `+columns+` FROM sessions s
		WHERE s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND s.impersonator_id IS NULL ORDER BY s.last_seen_at DESC, s.id`, userID, s.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("session: list: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	return out, nil
}

// Package principal keeps the rows that say who someone is to the server: their role and status
// (principals), the e-mail that names them (user_emails) and their password hash (credentials).
//
// The event log is the history; these rows are the write side's current truth, written in the
// same transaction as the events that change them. Requests read them directly instead of a
// projection, because a projection lags: a suspended user must be locked out on the very next
// request, not after a catch-up.
package principal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/auth"
)

var (
	// ErrClosed: the account was closed; it can no longer sign in or act.
	ErrClosed = domainerr.New(domainerr.Unauthenticated, "This account has been closed.")
	// ErrUnknown: no principal row, which for a request means no such user.
	ErrUnknown = domainerr.New(domainerr.Unauthenticated, "Please log in to continue.")
)

// Principal is who may act, as of the last committed change.
type Principal struct {
	UserID    uuid.UUID
	Role      identity.Role
	Status    identity.Status
	UpdatedAt time.Time
}

// CanAct returns nil for an active principal, else the error to answer with.
func (p Principal) CanAct() error {
	switch p.Status {
	case identity.StatusActive:
		return nil
	case identity.StatusSuspended:
		return identity.ErrSuspended
	default:
		return ErrClosed
	}
}

// Principals reads and writes the principals table.
type Principals struct {
	db    auth.DB
	clock clock.Clock
}

// NewPrincipals returns the principals store on db (normally the pool).
func NewPrincipals(db auth.DB, c clock.Clock) *Principals { return &Principals{db: db, clock: c} }

// Get returns a user's principal, or ErrUnknown when there is none.
func (s *Principals) Get(ctx context.Context, userID uuid.UUID) (Principal, error) {
	p := Principal{UserID: userID}
	err := s.db.QueryRow(ctx, `SELECT role, status, updated_at FROM principals WHERE user_id = $1`, userID).
		Scan(&p.Role, &p.Status, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, ErrUnknown
	}
	if err != nil {
		return Principal{}, fmt.Errorf("principal: get: %w", err)
	}
	p.UpdatedAt = p.UpdatedAt.UTC()
	return p, nil
}

// UpsertStatement records a user's role and status, in the round trip that appends the events
// that make them so (registration, role change, suspension, closure).
func (s *Principals) UpsertStatement(userID uuid.UUID, role identity.Role, status identity.Status) (auth.Statement, error) {
	if _, err := identity.ParseRole(string(role)); err != nil {
		return auth.Statement{}, fmt.Errorf("principal: unknown role %q", role)
	}
	if !status.Valid() {
		return auth.Statement{}, fmt.Errorf("principal: unknown status %q", status)
	}
	return auth.Statement{SQL: `INSERT INTO principals (user_id, role, status, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, status = excluded.status, updated_at = excluded.updated_at`,
		Args: []any{userID, role, status, s.clock.Now()}}, nil
}

// ErrEmailTaken is the answer when an e-mail address already belongs to another account.
var ErrEmailTaken = domainerr.New(domainerr.Conflict, "Email already in use")

// NormalizeEmail is the form e-mails are compared in: trimmed and lower-cased. Lower-casing the
// local part is stricter than RFC 5321 allows, but no mail provider people use treats
// Alice@ and alice@ as different people, and treating them as one stops look-alike accounts.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Emails keeps e-mail addresses unique across accounts, ignoring case.
type Emails struct{ db auth.DB }

// NewEmails returns the e-mail index on db.
func NewEmails(db auth.DB) *Emails { return &Emails{db: db} }

// Reserve claims email for userID inside tx, the registration's (or e-mail change's)
// transaction, so two concurrent sign-ups with one address cannot both commit. Reserving an
// address the user already holds is a no-op; one held by someone else is ErrEmailTaken, without
// aborting tx.
func (s *Emails) Reserve(ctx context.Context, tx pgx.Tx, email string, userID uuid.UUID) error {
	st, err := s.ReserveStatement(email, userID)
	if err != nil {
		return err
	}
	// In a savepoint, so that a refusal leaves the caller's transaction usable.
	err = pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error { return auth.Exec(ctx, sp, st) })
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.ConstraintName == EmailTakenConstraint {
		return ErrEmailTaken
	}
	if err != nil {
		return fmt.Errorf("principal: reserve e-mail: %w", err)
	}
	return nil
}

// EmailTakenConstraint is what the violation of Reserve's statement names when the address
// belongs to another account.
const EmailTakenConstraint = "user_emails_taken"

// ReserveStatement is Reserve as a statement (auth migration 0013), for a registration that
// sends its writes with its events in one round trip: it fails with a check violation of
// EmailTakenConstraint when the address belongs to another account.
func (s *Emails) ReserveStatement(email string, userID uuid.UUID) (auth.Statement, error) {
	key := NormalizeEmail(email)
	if key == "" {
		return auth.Statement{}, fmt.Errorf("principal: empty e-mail")
	}
	return auth.Statement{SQL: `SELECT auth_reserve_email($1, $2)`, Args: []any{key, userID}}, nil
}

// Release gives up a user's claim on email (after an e-mail change, or when a closed account's
// personal data is erased). Another user's claim is left alone.
func (s *Emails) Release(ctx context.Context, tx pgx.Tx, email string, userID uuid.UUID) error {
	if _, err := tx.Exec(ctx, `DELETE FROM user_emails WHERE email_lower = $1 AND user_id = $2`, NormalizeEmail(email), userID); err != nil {
		return fmt.Errorf("principal: release e-mail: %w", err)
	}
	return nil
}

// ReleaseAllStatement gives up every address a user holds (account closure). It needs no
// address, so it also works once the user's personal data, their address included, can no
// longer be read.
func ReleaseAllStatement(userID uuid.UUID) auth.Statement {
	return auth.Statement{SQL: `DELETE FROM user_emails WHERE user_id = $1`, Args: []any{userID}}
}

// Lookup returns the user holding email, if any.
func (s *Emails) Lookup(ctx context.Context, email string) (uuid.UUID, bool, error) {
	var id uuid.UUID
	err := s.db.QueryRow(ctx, `SELECT user_id FROM user_emails WHERE email_lower = $1`, NormalizeEmail(email)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, false, nil
	}
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("principal: look up e-mail: %w", err)
	}
	return id, true, nil
}

// Credential is a user's stored password hash.
type Credential struct {
	Hash      string
	ChangedAt time.Time
}

// Credentials stores password hashes (PHC strings from package password; never plaintext).
type Credentials struct {
	db    auth.DB
	clock clock.Clock
}

// NewCredentials returns the credentials store on db.
func NewCredentials(db auth.DB, c clock.Clock) *Credentials { return &Credentials{db: db, clock: c} }

// Set stores a user's password hash through db: a pgx.Tx to commit it with the
// user.password_changed event, or the pool for a transparent rehash after login.
func (s *Credentials) Set(ctx context.Context, db auth.DB, userID uuid.UUID, hash string) error {
	st, err := s.SetStatement(userID, hash)
	if err != nil {
		return err
	}
	if err := auth.Exec(ctx, db, st); err != nil {
		return fmt.Errorf("principal: set credential: %w", err)
	}
	return nil
}

// SetStatement is Set as a statement and its arguments, for a command that sends its writes
// with its events in one round trip (command.Submit).
func (s *Credentials) SetStatement(userID uuid.UUID, hash string) (auth.Statement, error) {
	if !strings.HasPrefix(hash, "$argon2id$") {
		return auth.Statement{}, fmt.Errorf("principal: refusing to store something that is not an argon2id hash")
	}
	return auth.Statement{SQL: `INSERT INTO credentials (user_id, password_hash, changed_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash, changed_at = excluded.changed_at`,
		Args: []any{userID, hash, s.clock.Now()}}, nil
}

// Get returns a user's password hash; ok is false when the user has none (a Google-only
// account, say).
func (s *Credentials) Get(ctx context.Context, userID uuid.UUID) (Credential, bool, error) {
	var c Credential
	err := s.db.QueryRow(ctx, `SELECT password_hash, changed_at FROM credentials WHERE user_id = $1`, userID).Scan(&c.Hash, &c.ChangedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Credential{}, false, nil
	}
	if err != nil {
		return Credential{}, false, fmt.Errorf("principal: get credential: %w", err)
	}
	c.ChangedAt = c.ChangedAt.UTC()
	return c, true, nil
}

// DeleteCredentialStatement removes a user's password (account closure).
func DeleteCredentialStatement(userID uuid.UUID) auth.Statement {
	return auth.Statement{SQL: `DELETE FROM credentials WHERE user_id = $1`, Args: []any{userID}}
}

// Package idempotency keeps the Idempotency-Key header's keys and the responses they were
// answered with (docs/product-rules.md, "API conventions"), in PostgreSQL, so that every server
// process sharing the database honours them. The HTTP side is api/idempotency.
package idempotency

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/platform/auth"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the idempotency_keys table.
var Migrations = pgmigrate.MustFromFS("idempotency", migrationFS, "migrations")

const (
	// DefaultTTL is how long a key is remembered after its first use.
	DefaultTTL = 24 * time.Hour
	// DefaultLease is how long a request holds its key while it runs. It outlasts the server's
	// longest request (serve's 60-second write timeout), and lets a retry run again once a
	// process that died mid-request can no longer answer.
	DefaultLease = 2 * time.Minute
)

// Store keeps idempotency keys and the responses they were answered with. Responses are sealed
// with a key derived from CLEARVEST_SECRET_KEY, since they may carry personal data and sign-in
// tokens; a copy of the table alone reveals none of them.
type Store struct {
	pool   *pgxpool.Pool
	sealer *auth.Sealer
	ttl    time.Duration
	lease  time.Duration
}

// Option configures a Store.
type Option func(*Store)

// WithTTL sets how long a key is remembered (default 24 hours).
func WithTTL(d time.Duration) Option { return func(s *Store) { s.ttl = d } }

// WithLease sets how long a running request holds its key (default 2 minutes).
func WithLease(d time.Duration) Option { return func(s *Store) { s.lease = d } }

// NewStore returns a store on a migrated database (Migrations); secret is the decoded
// CLEARVEST_SECRET_KEY and previous the keys it replaced (CLEARVEST_SECRET_KEY_PREVIOUS), whose
// sealed responses still open during a rotation.
func NewStore(pool *pgxpool.Pool, secret []byte, previous [][]byte, opts ...Option) (*Store, error) {
	sealer, err := auth.NewSealer("clearvest idempotent responses v1", secret, previous...)
	if err != nil {
		return nil, fmt.Errorf("idempotency: %w", err)
	}
	s := &Store{pool: pool, sealer: sealer, ttl: DefaultTTL, lease: DefaultLease}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Response is what a request was answered with: the status, the headers a repeat must see again,
// and the body.
type Response struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// Outcomes of Begin other than a claim or a stored response.
var (
	ErrInProgress = errors.New("idempotency: the first request with this key is still running")
	ErrReused     = errors.New("idempotency: the key was used with another request")
)

// Claim is the right to answer a key, held by one running request.
type Claim struct {
	id    []byte
	token uuid.UUID
}

// Begin claims a key for a request, or returns the response of the request that already used
// it. It fails with ErrReused when the key came with another request, and with ErrInProgress
// while that request runs. A key whose time is up (expired, or abandoned in progress by a
// process that died) is claimed afresh. owner is the user the response is expected to be about
// (as for Complete; uuid.Nil for none yet): recorded with the claim, so that Complete, naming
// the same owner, changes no indexed column and PostgreSQL can update the row in place (a HOT
// update), which made the answer's write about half as costly (docs/benchmarks.md, "Money
// commands over HTTP").
func (s *Store) Begin(ctx context.Context, scope, key string, requestHash []byte, owner uuid.UUID) (*Claim, *Response, error) {
	c := &Claim{id: keyID(scope, key), token: uuid.New()}
	o := ownerOrNull(owner)
	// The row may vanish between the two statements (its request failed and released it), so a
	// missing row means trying again; three rounds are plenty for a race of two statements.
	for range 3 {
		var claimed bool
		err := s.pool.QueryRow(ctx, `INSERT INTO idempotency_keys AS k (id, request_hash, token, locked_until, expires_at, owner)
			VALUES ($1, $2, $3, now() + make_interval(secs => $4), now() + make_interval(secs => $5), $6)
			ON CONFLICT (id) DO UPDATE SET request_hash = EXCLUDED.request_hash, token = EXCLUDED.token,
			  locked_until = EXCLUDED.locked_until, response = NULL, created_at = now(), expires_at = EXCLUDED.expires_at,
			  owner = EXCLUDED.owner
			WHERE k.expires_at <= now()
			   OR (k.response IS NULL AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash)
			RETURNING true`,
			c.id, requestHash, c.token, s.lease.Seconds(), s.ttl.Seconds(), o).Scan(&claimed)
		if err == nil {
			return c, nil, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, nil, fmt.Errorf("idempotency: claim: %w", err)
		}
		var storedHash, sealed []byte
		err = s.pool.QueryRow(ctx, `SELECT request_hash, response FROM idempotency_keys WHERE id = $1`, c.id).Scan(&storedHash, &sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("idempotency: read: %w", err)
		}
		switch {
		case string(storedHash) != string(requestHash):
			return nil, nil, ErrReused
		case sealed == nil:
			return nil, nil, ErrInProgress
		}
		plain, err := s.sealer.Open(sealed, c.id)
		if err != nil {
			return nil, nil, fmt.Errorf("idempotency: open the stored response: %w", err)
		}
		var res Response
		if err := json.Unmarshal(plain, &res); err != nil {
			return nil, nil, fmt.Errorf("idempotency: stored response: %w", err)
		}
		return nil, &res, nil
	}
	return nil, nil, ErrInProgress
}

// Complete stores the response of a claimed key. owner is the user the response is about (the
// caller, or the user a sign-in signed in), uuid.Nil for none: closing that user's account
// deletes it (Forget), since a response may hold their personal data. A claim that was taken
// over (the request outlived its lease) stores nothing.
func (s *Store) Complete(ctx context.Context, c *Claim, res Response, owner uuid.UUID) error {
	plain, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("idempotency: %w", err)
	}
	_, err = s.pool.Exec(ctx, `UPDATE idempotency_keys SET response = $3, locked_until = NULL, owner = $4 WHERE id = $1 AND token = $2`,
		c.id, c.token, s.sealer.Seal(plain, c.id), ownerOrNull(owner))
	if err != nil {
		return fmt.Errorf("idempotency: store the response: %w", err)
	}
	return nil
}

// Release gives a claimed key up, so that a retry runs again.
func (s *Store) Release(ctx context.Context, c *Claim) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE id = $1 AND token = $2`, c.id, c.token); err != nil {
		return fmt.Errorf("idempotency: release: %w", err)
	}
	return nil
}

// DB is what Forget writes through: a pool or the caller's transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Forget deletes every stored response owned by a user, inside the transaction that closes
// their account. Requests still running keep their claim (which records the owner too), so that
// their answer is stored and repeated as before.
func Forget(ctx context.Context, db DB, owner uuid.UUID) error {
	if _, err := db.Exec(ctx, `DELETE FROM idempotency_keys WHERE owner = $1 AND response IS NOT NULL`, owner); err != nil {
		return fmt.Errorf("idempotency: forget a user's responses: %w", err)
	}
	return nil
}

// Sweep deletes expired keys and returns how many. Expired keys are already ignored; sweeping
// only keeps the table small.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= now()`)
	if err != nil {
		return 0, fmt.Errorf("idempotency: sweep: %w", err)
	}
	return tag.RowsAffected(), nil
}

// Run sweeps every interval until ctx ends. Every serve process may run it.
func (s *Store) Run(ctx context.Context, interval time.Duration, onError func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil && onError != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func ownerOrNull(owner uuid.UUID) *uuid.UUID {
	if owner == uuid.Nil {
		return nil
	}
	return &owner
}

// keyID names a caller's key without storing either: a client address in a scope is personal
// data, and keys are the client's own.
func keyID(scope, key string) []byte {
	h := sha256.New()
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return h.Sum(nil)
}

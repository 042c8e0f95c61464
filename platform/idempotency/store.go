// Package idempotency keeps the Idempotency-Key header's keys and the responses they were
// answered with (docs/product-rules.md, "API conventions"), in PostgreSQL, so that every server
// process sharing the database honours them. The HTTP side is api/idempotency.
package idempotency

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
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

	// running holds the ids of the keys of requests running in this process with a pending
	// claim (Pend).
	running sync.Map

	// Answers waiting to be written, and whether a writer is at work (Complete).
	mu      sync.Mutex
	answers []*answer
	writing bool
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
	owner *uuid.UUID // Pend's: the owner recorded with the claim
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
		res, err := s.recorded(ctx, c.id, requestHash)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return nil, res, nil
	}
	return nil, nil, ErrInProgress
}

// recorded reads a key's record: its response, or ErrReused when it was used with another
// request, or ErrInProgress while that request runs. pgx.ErrNoRows: there is none.
func (s *Store) recorded(ctx context.Context, id, requestHash []byte) (*Response, error) {
	var storedHash, sealed []byte
	err := s.pool.QueryRow(ctx, `SELECT request_hash, response FROM idempotency_keys WHERE id = $1 AND expires_at > now()`, id).Scan(&storedHash, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("idempotency: read: %w", err)
	}
	switch {
	case string(storedHash) != string(requestHash):
		return nil, ErrReused
	case sealed == nil:
		return nil, ErrInProgress
	}
	plain, err := s.sealer.Open(sealed, id)
	if err != nil {
		return nil, fmt.Errorf("idempotency: open the stored response: %w", err)
	}
	var res Response
	if err := json.Unmarshal(plain, &res); err != nil {
		return nil, fmt.Errorf("idempotency: stored response: %w", err)
	}
	return &res, nil
}

// Complete stores the response of a claimed key. owner is the user the response is about (the
// caller, or the user a sign-in signed in), uuid.Nil for none: closing that user's account
// deletes it (Forget), since a response may hold their personal data. A claim that was taken
// over (the request outlived its lease) stores nothing.
//
// The responses of requests finishing at the same time are written together, one statement and
// one commit for all of them, while the requests wait: a repeat sent once the first answer has
// arrived always finds it.
func (s *Store) Complete(ctx context.Context, c *Claim, res Response, owner uuid.UUID) error {
	plain, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("idempotency: %w", err)
	}
	a := &answer{id: c.id, token: c.token, sealed: s.sealer.Seal(plain, c.id), owner: ownerOrNull(owner), done: make(chan error, 1)}
	s.mu.Lock()
	s.answers = append(s.answers, a)
	if !s.writing {
		s.writing = true
		go s.writeAnswers(context.WithoutCancel(ctx))
	}
	s.mu.Unlock()
	return <-a.done
}

// answer is a response waiting to be stored.
type answer struct {
	id     []byte
	token  uuid.UUID
	sealed []byte
	owner  *uuid.UUID
	done   chan error
}

// writeAnswers writes the waiting answers, all of them at a time, until there are none.
func (s *Store) writeAnswers(ctx context.Context) {
	for {
		s.mu.Lock()
		batch := s.answers
		s.answers = nil
		if len(batch) == 0 {
			s.writing = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		// One statement per answer, sent together: one round trip and one commit for all, and
		// each finds its row by the primary key (a join with the arrays would be planned as a
		// scan of the table once the statement's plan is cached).
		b := &pgx.Batch{}
		for _, a := range batch {
			b.Queue(`UPDATE idempotency_keys SET response = $3, locked_until = NULL, owner = $4 WHERE id = $1 AND token = $2`,
				a.id, [16]byte(a.token), a.sealed, uuidArg(a.owner))
		}
		err := s.pool.SendBatch(ctx, b).Close()
		if err != nil {
			err = fmt.Errorf("idempotency: store the response: %w", err)
		}
		for _, a := range batch {
			a.done <- err
		}
	}
}

// ClaimConstraint is the unique constraint a pending claim's statement fails on when its key is
// taken (Pending.Statement).
const ClaimConstraint = "idempotency_keys_pkey"

// Pending is a key whose record is written by the command its request runs, in that command's
// transaction (Statement), rather than claimed before the request runs (Begin): it costs no
// round trip of its own, and a record exists only if the command committed. Such a record holds
// no response: the command's events carry the key (Names), and a repeat is answered from them.
// Done must be called when the request has its answer.
type Pending struct {
	Claim
	hash []byte
	s    *Store
}

// Pend starts a request whose key will be claimed by its command. It fails with ErrInProgress
// while another request with the key runs in this process; one running in another process is
// found by the claim's statement, which then fails on ClaimConstraint.
func (s *Store) Pend(scope, key string, requestHash []byte, owner uuid.UUID) (*Pending, error) {
	p := &Pending{Claim: Claim{id: keyID(scope, key), token: uuid.New()}, hash: requestHash, s: s}
	p.owner = ownerOrNull(owner)
	if _, running := s.running.LoadOrStore(string(p.id), p); running {
		return nil, ErrInProgress
	}
	return p, nil
}

// Statement is the claim, to run in the command's transaction: it takes the key (or one whose
// time is up) or fails as a unique violation of ClaimConstraint.
func (p *Pending) Statement() (string, []any) {
	return `SELECT idempotency_claim($1, $2, $3, $4, $5)`, []any{p.id, p.hash, [16]byte(p.token), p.s.ttl.Seconds(), uuidArg(p.owner)}
}

// Recorded answers a request whose claim was taken: the stored response, or ErrReused when the
// key came with another request, or ErrInProgress while that request has no answer yet (or its
// record went away).
func (p *Pending) Recorded(ctx context.Context) (*Response, error) {
	res, err := p.s.recorded(ctx, p.id, p.hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrInProgress
	}
	return res, err
}

// Remember stores the response of a request whose command did not claim the key (it was
// refused, or ran none), as Begin and Complete would have, unless the key was taken meanwhile:
// then it stores nothing and reports false.
func (p *Pending) Remember(ctx context.Context, res Response) (bool, error) {
	plain, err := json.Marshal(res)
	if err != nil {
		return false, fmt.Errorf("idempotency: %w", err)
	}
	var stored bool
	err = p.s.pool.QueryRow(ctx, `INSERT INTO idempotency_keys AS k (id, request_hash, token, response, expires_at, owner)
		VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), $6)
		ON CONFLICT (id) DO UPDATE SET request_hash = EXCLUDED.request_hash, token = EXCLUDED.token, locked_until = NULL,
		  response = EXCLUDED.response, created_at = now(), expires_at = EXCLUDED.expires_at, owner = EXCLUDED.owner
		WHERE k.expires_at <= now()
		RETURNING true`, p.id, p.hash, p.token, p.s.sealer.Seal(plain, p.id), p.s.ttl.Seconds(), p.owner).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("idempotency: remember: %w", err)
	}
	return true, nil
}

// Names are the key and the request as the command's events record them: hex of the key's id
// (which names the caller's scope too) and of the request hash.
func (p *Pending) Names() (key, hash string) {
	return hex.EncodeToString(p.id), hex.EncodeToString(p.hash)
}

// Done ends the request's hold on its key in this process.
func (p *Pending) Done() { p.s.running.Delete(string(p.id)) }

// Release gives a claimed key up, so that a retry runs again.
func (s *Store) Release(ctx context.Context, c *Claim) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE id = $1 AND token = $2`, c.id, c.token); err != nil {
		return fmt.Errorf("idempotency: release: %w", err)
	}
	return nil
}

// ForgetStatement deletes every stored response owned by a user, with the event that closes
// their account. Requests still running keep their claim (which records the owner too), so that
// their answer is stored and repeated as before.
func ForgetStatement(owner uuid.UUID) (string, []any) {
	return `DELETE FROM idempotency_keys WHERE owner = $1 AND response IS NOT NULL`, []any{owner}
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

// uuidArg passes a uuid as its 16 bytes, which pgx sends as they are, where uuid.UUID's
// driver.Valuer would format it as text for the server to parse (a measurable share of a busy
// server's CPU); nil is NULL.
func uuidArg(u *uuid.UUID) any {
	if u == nil {
		return nil
	}
	return [16]byte(*u)
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

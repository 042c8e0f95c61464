// Package passkey keeps the challenges of passkey (WebAuthn) ceremonies between their begin and
// finish requests, server-side: single-use, short-lived and bound to the session (or, for a
// sign-in, to nothing but the random id the browser holds).
package passkey

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/domain/clock"
	"clearvest/platform/auth"
)

// ChallengeLife is how long a ceremony may take between its two requests.
const ChallengeLife = 5 * time.Minute

// Purposes of a challenge; a challenge made for one is never accepted for another.
const (
	PurposeRegister = "register"
	PurposeLogin    = "login"
	PurposeStepUp   = "step_up"
)

// ErrChallenge: no live challenge of that id, purpose and session (used, expired, or never made).
var ErrChallenge = errors.New("passkey: challenge unknown, used or expired")

// Challenge is what the finish request needs of its begin request.
type Challenge struct {
	Purpose   string
	UserID    uuid.UUID // uuid.Nil for a sign-in
	SessionID uuid.UUID // uuid.Nil for a sign-in
	RPID      string
	Origin    string
	Data      []byte // the ceremony's session data (JSON)
}

// Challenges stores challenges in PostgreSQL.
type Challenges struct {
	db    auth.DB
	clock clock.Clock
}

// NewChallenges returns the store on db.
func NewChallenges(db auth.DB, c clock.Clock) *Challenges { return &Challenges{db: db, clock: c} }

// Put keeps a challenge for ChallengeLife and returns the id the client sends back.
func (s *Challenges) Put(ctx context.Context, c Challenge) (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	id := base64.RawURLEncoding.EncodeToString(raw)
	now := s.clock.Now()
	if _, err := s.db.Exec(ctx, `DELETE FROM passkey_challenges WHERE expires_at < $1`, now); err != nil {
		return "", fmt.Errorf("passkey: tidy challenges: %w", err)
	}
	_, err := s.db.Exec(ctx, `INSERT INTO passkey_challenges (id_hash, purpose, user_id, session_id, rp_id, origin, data, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		hashID(id), c.Purpose, nullable(c.UserID), nullable(c.SessionID), c.RPID, c.Origin, c.Data, now.Add(ChallengeLife))
	if err != nil {
		return "", fmt.Errorf("passkey: put challenge: %w", err)
	}
	return id, nil
}

// Take removes and returns the challenge of id, made for purpose and (unless a sign-in) the
// session of userID. Whatever the answer, the challenge cannot be taken again: a wrong session
// or an expired challenge uses it up too.
func (s *Challenges) Take(ctx context.Context, id, purpose string, userID, sessionID uuid.UUID) (Challenge, error) {
	if id == "" {
		return Challenge{}, ErrChallenge
	}
	var c Challenge
	var uid, sid *uuid.UUID
	var expires time.Time
	err := s.db.QueryRow(ctx, `DELETE FROM passkey_challenges WHERE id_hash = $1
		RETURNING purpose, user_id, session_id, rp_id, origin, data, expires_at`, hashID(id)).
		Scan(&c.Purpose, &uid, &sid, &c.RPID, &c.Origin, &c.Data, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return Challenge{}, ErrChallenge
	}
	if err != nil {
		return Challenge{}, fmt.Errorf("passkey: take challenge: %w", err)
	}
	if uid != nil {
		c.UserID = *uid
	}
	if sid != nil {
		c.SessionID = *sid
	}
	if c.Purpose != purpose || c.UserID != userID || c.SessionID != sessionID || !s.clock.Now().Before(expires) {
		return Challenge{}, ErrChallenge
	}
	return c, nil
}

func hashID(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return sum[:]
}

func nullable(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

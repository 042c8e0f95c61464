// Package token issues and verifies access tokens: short-lived JWTs (HS256) that name a user and
// the session they belong to.
//
// An access token alone never authorises a request: the middleware also checks the session row
// and the principal row, so revocation and suspension are immediate. The token's job is to
// carry identity cheaply between those checks and to expire quickly if it leaks.
package token

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
)

const (
	// Audience is the aud claim every token carries and every verification demands, so a JWT
	// minted for another service (even one sharing a key by mistake) is not accepted here.
	Audience = "clearvest"
	// TTL is an access token's life. Short, because a token cannot be recalled; the session's
	// refresh token gets a new one.
	TTL = 15 * time.Minute
	// Leeway absorbs clock skew between the processes that issue and verify tokens.
	Leeway = 30 * time.Second

	// keyInfo is the HKDF info of the signing key. Bumping its version invalidates every token.
	keyInfo = "clearvest access token v1"
)

var (
	// ErrInvalid: the token is malformed, forged, signed by an unknown key, or meant for
	// another audience.
	ErrInvalid = domainerr.New(domainerr.Unauthenticated, "Please log in to continue.")
	// ErrExpired: the token was good but its time is up; a refresh gets a new one.
	ErrExpired = domainerr.New(domainerr.Unauthenticated, "Your session has expired. Please log in again.")
)

// Claims is what a verified token says.
type Claims struct {
	UserID    uuid.UUID
	SessionID uuid.UUID
	IssuedAt  time.Time
	ExpiresAt time.Time
	KeyID     string
	// Impersonator is the admin holding a view-as-user session, nil for the user's own.
	Impersonator *Impersonator
}

// Impersonator is the admin behind a view-as-user token (the "act" claim, RFC 8693): who they
// are and the session of their own they return to.
type Impersonator struct {
	UserID    uuid.UUID
	Role      string
	SessionID uuid.UUID
}

type jwtClaims struct {
	jwt.RegisteredClaims
	SID string    `json:"sid"`
	Act *actClaim `json:"act,omitempty"`
}

type actClaim struct {
	Sub  string `json:"sub"`
	Role string `json:"role"`
	SID  string `json:"sid"`
}

// Issuer signs tokens with the key derived from the current application secret and verifies
// tokens signed with the keys of the current or any previous secret, chosen by the kid header.
// That is what lets an operator rotate CLEARVEST_SECRET_KEY without signing everyone out:
// configure the new secret with the old one as previous for at least TTL.
type Issuer struct {
	clock  clock.Clock
	kid    string
	key    []byte
	keys   map[string][]byte
	parser *jwt.Parser
	// verified remembers accepted tokens, so that a token's signature is checked once.
	verified verifiedTokens
}

// NewIssuer derives the signing keys from the application secrets (32 bytes each).
func NewIssuer(c clock.Clock, current []byte, previous ...[]byte) (*Issuer, error) {
	i := &Issuer{clock: c, keys: map[string][]byte{}}
	for n, secret := range append([][]byte{current}, previous...) {
		key, err := auth.DeriveKey(secret, keyInfo)
		if err != nil {
			return nil, fmt.Errorf("token: %w", err)
		}
		kid := auth.KeyID(key)
		if n == 0 {
			i.kid, i.key = kid, key
		}
		i.keys[kid] = key
	}
	i.parser = jwt.NewParser(
		// The allow-list is what defeats "alg: none" and algorithm confusion: the header's
		// choice of algorithm is never trusted.
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithAudience(Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(Leeway),
		jwt.WithTimeFunc(c.Now),
	)
	return i, nil
}

// KeyID is the kid of the current signing key.
func (i *Issuer) KeyID() string { return i.kid }

// Issue returns a signed token for a user's session and the claims it carries.
func (i *Issuer) Issue(userID, sessionID uuid.UUID) (string, Claims, error) {
	return i.issue(userID, sessionID, nil, time.Time{})
}

// IssueImpersonation returns a token for a view-as-user session held by act, which lives no
// longer than the session (until).
func (i *Issuer) IssueImpersonation(userID, sessionID uuid.UUID, act Impersonator, until time.Time) (string, Claims, error) {
	return i.issue(userID, sessionID, &act, until)
}

func (i *Issuer) issue(userID, sessionID uuid.UUID, act *Impersonator, until time.Time) (string, Claims, error) {
	now := i.clock.Now().Truncate(time.Second)
	claims := Claims{UserID: userID, SessionID: sessionID, IssuedAt: now, ExpiresAt: now.Add(TTL), KeyID: i.kid, Impersonator: act}
	if !until.IsZero() && until.Before(claims.ExpiresAt) {
		claims.ExpiresAt = until.Truncate(time.Second)
	}
	var actC *actClaim
	if act != nil {
		actC = &actClaim{Sub: act.UserID.String(), Role: act.Role, SID: act.SessionID.String()}
	}
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, jwtClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   userID.String(),
			Audience:  jwt.ClaimStrings{Audience},
			IssuedAt:  jwt.NewNumericDate(claims.IssuedAt),
			ExpiresAt: jwt.NewNumericDate(claims.ExpiresAt),
		},
		SID: sessionID.String(),
		Act: actC,
	})
	t.Header["kid"] = i.kid
	s, err := t.SignedString(i.key)
	if err != nil {
		return "", Claims{}, fmt.Errorf("token: sign: %w", err)
	}
	return s, claims, nil
}

var errUnknownKey = errors.New("token: unknown kid")

// Verify checks a token's signature, algorithm, audience and times, and returns its claims.
// The errors are ErrExpired or ErrInvalid (with the reason attached, for logs).
func (i *Issuer) Verify(token string) (Claims, error) {
	if c, ok := i.verified.get(token); ok {
		return i.stillValid(c)
	}
	var c jwtClaims
	var kid string
	_, err := i.parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		kid, _ = t.Header["kid"].(string)
		key, ok := i.keys[kid]
		if !ok {
			return nil, errUnknownKey
		}
		return key, nil
	})
	if errors.Is(err, jwt.ErrTokenExpired) {
		return Claims{}, ErrExpired.Wrap(err)
	}
	if err != nil {
		return Claims{}, ErrInvalid.Wrap(err)
	}
	userID, err := uuid.Parse(c.Subject)
	if err != nil {
		return Claims{}, ErrInvalid.Wrap(fmt.Errorf("token: sub: %w", err))
	}
	sessionID, err := uuid.Parse(c.SID)
	if err != nil {
		return Claims{}, ErrInvalid.Wrap(fmt.Errorf("token: sid: %w", err))
	}
	if c.IssuedAt == nil {
		return Claims{}, ErrInvalid.Wrap(errors.New("token: no iat"))
	}
	claims := Claims{UserID: userID, SessionID: sessionID, IssuedAt: c.IssuedAt.UTC(), ExpiresAt: c.ExpiresAt.UTC(), KeyID: kid}
	if c.Act != nil {
		actor, err := uuid.Parse(c.Act.Sub)
		if err != nil {
			return Claims{}, ErrInvalid.Wrap(fmt.Errorf("token: act.sub: %w", err))
		}
		actorSession, err := uuid.Parse(c.Act.SID)
		if err != nil {
			return Claims{}, ErrInvalid.Wrap(fmt.Errorf("token: act.sid: %w", err))
		}
		claims.Impersonator = &Impersonator{UserID: actor, Role: c.Act.Role, SessionID: actorSession}
	}
	i.verified.put(token, claims, i.clock.Now())
	return claims, nil
}

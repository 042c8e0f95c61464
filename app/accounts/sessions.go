package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/auth/session"
)

// DeviceCookieLife is how long the browser keeps the trusted-device cookie.
const DeviceCookieLife = session.DeviceLifetime

// Revocation reasons recorded on sessions.
const (
	reasonLogout          = "logout"
	reasonEndedByUser     = "ended_by_user"
	reasonPasswordChanged = "password_changed"
	reasonPasswordReset   = "password_reset"
	reasonSuspended       = "suspended"
	reasonClosed          = "closed"
	reasonWasntMe         = "wasnt_me"
)

// Authenticate checks an access token and, behind it, the principal and session rows, on every
// request: a revoked session, a suspension or a role change applies at once, whatever the token
// says. A suspended user gets identity.ErrSuspended (so the UI can say why); anything else that is not a
// live session is a 401.
func (s *Service) Authenticate(ctx context.Context, accessToken string) (Principal, error) {
	claims, err := s.tokens.Verify(accessToken)
	if err != nil {
		return Principal{}, err
	}
	p, err := s.principals.Get(ctx, claims.UserID)
	if err != nil {
		return Principal{}, err
	}
	switch p.Status {
	case identity.StatusActive:
	case identity.StatusSuspended:
		return Principal{}, identity.ErrSuspended
	default:
		return Principal{}, ErrSessionEnded
	}
	sess, err := s.sessions.Validate(ctx, claims.SessionID, p.Role, s.clock.Now())
	if err != nil {
		return Principal{}, err
	}
	if sess.UserID != claims.UserID {
		return Principal{}, ErrSessionEnded
	}
	return Principal{UserID: claims.UserID.String(), Role: p.Role, SessionID: claims.SessionID.String()}, nil
}

// startSession creates a session, inside the flow's transaction, for a user who has proved who
// they are, and issues its access token: a sign-in whose events fail to commit leaves no
// session behind.
func (u *unit) startSession(ctx context.Context, userID string, c Client) (SignIn, error) {
	s := u.s
	id, err := uuid.Parse(userID)
	if err != nil {
		return SignIn{}, err
	}
	sess, refresh, err := session.New(u.tx, s.clock).Create(ctx, id, session.Device{IP: c.IP, UserAgent: c.UserAgent, DeviceID: deviceID(c)})
	if err != nil {
		return SignIn{}, err
	}
	access, claims, err := s.tokens.Issue(id, sess.ID)
	if err != nil {
		return SignIn{}, err
	}
	return SignIn{AccessToken: access, AccessExpires: claims.ExpiresAt, RefreshToken: refresh, RefreshExpires: sess.ExpiresAt}, nil
}

// Refresh exchanges the refresh cookie for a new access token and a rotated refresh token.
func (s *Service) Refresh(ctx context.Context, refreshToken string, _ Client) (SignIn, error) {
	if refreshToken == "" {
		return SignIn{}, ErrSessionEnded
	}
	sess, next, err := s.sessions.Refresh(ctx, refreshToken)
	if errors.Is(err, identity.ErrSuspended) {
		return SignIn{}, identity.ErrSuspended
	}
	if err != nil {
		return SignIn{}, err
	}
	access, claims, err := s.tokens.Issue(sess.UserID, sess.ID)
	if err != nil {
		return SignIn{}, err
	}
	return SignIn{AccessToken: access, AccessExpires: claims.ExpiresAt, RefreshToken: next, RefreshExpires: sess.ExpiresAt}, nil
}

// Logout ends the session the access token belongs to. An expired or invalid token ends
// nothing (its signature cannot vouch for the session it names); the API clears the cookies
// either way, and with the refresh cookie gone the session can no longer be resumed.
func (s *Service) Logout(ctx context.Context, accessToken string) error {
	claims, err := s.tokens.Verify(accessToken)
	if err != nil {
		if _, _, ok := domainerr.KindOf(err); ok {
			return nil
		}
		return err
	}
	return s.sessions.RevokeOwn(ctx, claims.UserID, claims.SessionID, reasonLogout)
}

// Sessions lists the actor's active sessions, marking the current one.
func (s *Service) Sessions(ctx context.Context, a Actor) ([]Session, error) {
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return nil, ErrNotSignedIn
	}
	list, err := s.sessions.List(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(list))
	for _, ss := range list {
		out = append(out, Session{ID: ss.ID.String(), CreatedAt: ss.CreatedAt, LastSeenAt: ss.LastSeenAt,
			IP: ss.IP, UserAgent: ss.UserAgent, Current: ss.ID.String() == a.SessionID})
	}
	return out, nil
}

// EndSession signs one of the actor's sessions out. Another user's session is not found.
func (s *Service) EndSession(ctx context.Context, a Actor, sessionID string) error {
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return ErrNotSignedIn
	}
	sid, err := uuid.Parse(sessionID)
	if err != nil {
		return ErrSessionNotFound
	}
	if err := s.sessions.RevokeOwn(ctx, uid, sid, reasonEndedByUser); errors.Is(err, session.ErrNotFound) {
		return ErrSessionNotFound
	} else if err != nil {
		return err
	}
	return nil
}

// EndOtherSessions signs out everywhere but here.
func (s *Service) EndOtherSessions(ctx context.Context, a Actor) error {
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return ErrNotSignedIn
	}
	sid, _ := uuid.Parse(a.SessionID)
	_, err = s.sessions.RevokeAll(ctx, uid, sid, reasonEndedByUser)
	return err
}

// deviceID names a browser in session rows and new-device events without revealing its cookie:
// the first bytes of the cookie's hash, or "" when it has none.
func deviceID(c Client) string {
	if c.DeviceToken == "" {
		return ""
	}
	return hashID(c.DeviceToken)
}

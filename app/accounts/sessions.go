package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/auth/principal"
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
// says. A suspended user gets identity.ErrSuspended (so the UI can say why); anything else that
// is not a live session is a 401. The rows are read through the session guard, which answers
// from memory while WatchSessions keeps it told of every change.
func (s *Service) Authenticate(ctx context.Context, accessToken string) (Principal, error) {
	claims, err := s.tokens.Verify(accessToken)
	if err != nil {
		return Principal{}, err
	}
	p, err := s.guard.Check(ctx, claims.UserID, claims.SessionID)
	if errors.Is(err, principal.ErrClosed) {
		return Principal{}, ErrSessionEnded
	}
	if err != nil {
		return Principal{}, err
	}
	out := Principal{UserID: claims.UserID.String(), Role: p.Role, SessionID: claims.SessionID.String()}
	if act := claims.Impersonator; act != nil {
		// A view-as-user session lives only while the admin's own session does and they are
		// still an admin: signing out or losing the role ends it too.
		admin, err := s.guard.Check(ctx, act.UserID, act.SessionID)
		if err != nil {
			if _, _, classified := domainerr.KindOf(err); classified {
				return Principal{}, ErrSessionEnded
			}
			return Principal{}, err
		}
		if admin.Role != identity.RoleAdmin {
			return Principal{}, ErrSessionEnded
		}
		out.Impersonator = &Impersonator{UserID: act.UserID.String(), Role: admin.Role, SessionID: act.SessionID.String(), Until: claims.ExpiresAt}
	}
	return out, nil
}

// WatchSessions lets Authenticate answer from memory until ctx ends: it listens for changes to
// principals and sessions made by any process, and writes session activity in batches. Every
// process that serves requests runs it; without it every request reads the rows.
func (s *Service) WatchSessions(ctx context.Context) error { return s.guard.Run(ctx) }

// SessionCacheTrusted reports whether Authenticate answers from memory at the moment.
func (s *Service) SessionCacheTrusted() bool { return s.guard.Trusted() }

// SyncSessions returns once every change to principals and sessions committed before the call,
// by any process, has reached this process's session guard.
func (s *Service) SyncSessions(ctx context.Context) error { return s.guard.Sync(ctx) }

// settleSessions is called after a flow changed principal or session rows and before it answers:
// once this process's guard has heard of the change, the caller's next request cannot pass on
// what the guard remembered (revocation is immediate). It waits only while the guard remembers
// anything, and gives up when ctx ends, which means the caller is gone.
func (s *Service) settleSessions(ctx context.Context) {
	if err := s.guard.Sync(ctx); err != nil {
		s.log.DebugContext(ctx, "accounts: caller left before the session guard settled", "err", err)
	}
}

// endSessions signs a user out everywhere but except (uuid.Nil: everywhere), with the flow's
// other writes; the flow waits for its guard to hear of it before answering.
func (u *unit) endSessions(ctx context.Context, userID, except uuid.UUID, reason string) error {
	u.authChanged = true
	u.write(u.s.sessions.RevokeAllStatement(userID, except, reason))
	return nil
}

// startSession creates a session, with the flow's other writes, for a user who has proved who
// they are, and issues its access token: a sign-in whose events fail to commit leaves no
// session behind.
func (u *unit) startSession(ctx context.Context, userID string, c Client) (SignIn, error) {
	s := u.s
	id, err := uuid.Parse(userID)
	if err != nil {
		return SignIn{}, err
	}
	sess, refresh, sts := s.sessions.CreateStatements(id, session.Device{IP: c.IP, UserAgent: c.UserAgent, DeviceID: deviceID(c)})
	u.write(sts...)
	access, claims, err := s.tokens.Issue(id, sess.ID)
	if err != nil {
		return SignIn{}, err
	}
	return SignIn{AccessToken: access, AccessExpires: claims.ExpiresAt, RefreshToken: refresh, RefreshExpires: sess.ExpiresAt}, nil
}

// trustDevice remembers the browser the flow signs in from, with the flow's other writes, and
// returns the token of its cookie.
func (u *unit) trustDevice(userID uuid.UUID, c Client) string {
	token, sts := u.s.devices.TrustStatements(userID, session.DeviceLabel(c.UserAgent))
	u.write(sts...)
	return token
}

// Refresh exchanges the refresh cookie for a new access token and a rotated refresh token.
func (s *Service) Refresh(ctx context.Context, refreshToken string, _ Client) (SignIn, error) {
	if refreshToken == "" {
		return SignIn{}, ErrSessionEnded
	}
	sess, next, err := s.sessions.Refresh(ctx, refreshToken)
	if errors.Is(err, session.ErrReused) {
		s.settleSessions(ctx) // the session family was revoked
	}
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
	if act := claims.Impersonator; act != nil {
		// Signing out of a view-as-user session signs the admin out: the browser forgets both.
		a := Actor{UserID: claims.UserID.String(), SessionID: claims.SessionID.String(),
			Impersonator: &Impersonator{UserID: act.UserID.String(), Role: identity.Role(act.Role), SessionID: act.SessionID.String()}}
		if _, err := s.endImpersonation(ctx, a, impersonationLoggedOut); err != nil {
			return err
		}
		if err := s.sessions.RevokeOwn(ctx, act.UserID, act.SessionID, reasonLogout); err != nil && !errors.Is(err, session.ErrNotFound) {
			return err
		}
		s.settleSessions(ctx)
		return nil
	}
	if err := s.sessions.RevokeOwn(ctx, claims.UserID, claims.SessionID, reasonLogout); err != nil {
		return err
	}
	s.settleSessions(ctx)
	return nil
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
	s.settleSessions(ctx)
	return nil
}

// EndOtherSessions signs out everywhere but here.
func (s *Service) EndOtherSessions(ctx context.Context, a Actor) error {
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return ErrNotSignedIn
	}
	sid, _ := uuid.Parse(a.SessionID)
	if _, err = s.sessions.RevokeAll(ctx, uid, sid, reasonEndedByUser); err != nil {
		return err
	}
	s.settleSessions(ctx)
	return nil
}

// deviceID names a browser in session rows and new-device events without revealing its cookie:
// the first bytes of the cookie's hash, or "" when it has none.
func deviceID(c Client) string {
	if c.DeviceToken == "" {
		return ""
	}
	return hashID(c.DeviceToken)
}

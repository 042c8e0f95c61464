package accounts

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/platform/auth/session"
	"clearvest/platform/auth/token"
)

// ImpersonationLifetime is how long a view-as-user session lasts; it cannot be refreshed.
const ImpersonationLifetime = session.ImpersonationLifetime

// Impersonator is the admin behind a view-as-user session.
type Impersonator struct {
	UserID    string
	Role      identity.Role
	SessionID string
	// Until is when the view-as-user session ends by itself.
	Until time.Time
}

// Reasons an ImpersonationEnded event records.
const (
	impersonationExited    = "exit"
	impersonationLoggedOut = "logout"
	reasonImpersonationEnd = "impersonation_ended"
)

var (
	// ErrNotImpersonating answers exit-impersonation from a session of one's own (also after the
	// view ran out and the refresh brought the admin's own session back).
	ErrNotImpersonating = domainerr.Coded(domainerr.Conflict, "not_impersonating", "You are not viewing the site as another user.")
	// ErrImpersonating answers a view-as-user request made from a view-as-user session.
	ErrImpersonating = domainerr.New(domainerr.Conflict, "You are already viewing the site as a user. Please exit first.")
)

// Impersonation is a started view-as-user session: its access token (there is no refresh
// token) and whom it shows.
type Impersonation struct {
	User      User
	Token     string
	ExpiresAt time.Time
	Position  int64
}

// Impersonate starts a view-as-user session of targetID for admin a: the session belongs to the
// user (every read answers as for them) but carries the admin, ends after ImpersonationLifetime,
// and is recorded on the user's stream with the admin as actor, in the same transaction.
func (s *Service) Impersonate(ctx context.Context, a Actor, targetID string) (Impersonation, error) {
	if a.Impersonator != nil {
		return Impersonation{}, ErrImpersonating
	}
	adminID, err := uuid.Parse(a.UserID)
	if err != nil {
		return Impersonation{}, ErrNotSignedIn
	}
	adminSID, err := uuid.Parse(a.SessionID)
	if err != nil {
		return Impersonation{}, ErrNotSignedIn
	}
	id, err := uuid.Parse(strings.TrimSpace(targetID))
	if err != nil {
		return Impersonation{}, ErrUserNotFound
	}
	var out Impersonation
	pos, err := s.submitUser(ctx, metaFor(a), id.String(), func(u *unit, user loaded) error {
		if !user.Registered() {
			return ErrUserNotFound
		}
		sid, now := uuid.Must(uuid.NewV7()), s.clock.Now()
		if err := user.StartImpersonation(a.UserID, a.Role, sid.String(), now.Add(ImpersonationLifetime)); err != nil {
			return err
		}
		dev := session.Device{IP: a.Client.IP, UserAgent: a.Client.UserAgent, DeviceID: deviceID(a.Client)}
		sess, st := session.CreateImpersonationStatement(sid, id, adminID, adminSID, now, dev)
		u.write(st)
		act := token.Impersonator{UserID: adminID, Role: string(a.Role), SessionID: adminSID}
		tok, claims, err := s.tokens.IssueImpersonation(id, sess.ID, act, sess.ExpiresAt)
		if err != nil {
			return err
		}
		out = Impersonation{User: view(user), Token: tok, ExpiresAt: claims.ExpiresAt}
		return nil
	})
	if err != nil {
		return Impersonation{}, err
	}
	out.Position = pos
	return out, nil
}

// ExitImpersonation ends the caller's view-as-user session and, when the admin's own session is
// still live, returns a new access token for it (back without signing in again); otherwise
// back is false and the admin must sign in.
func (s *Service) ExitImpersonation(ctx context.Context, a Actor) (back SignIn, ok bool, pos int64, err error) {
	if a.Impersonator == nil {
		return SignIn{}, false, 0, ErrNotImpersonating
	}
	pos, err = s.endImpersonation(ctx, a, impersonationExited)
	if err != nil {
		return SignIn{}, false, 0, err
	}
	adminID, err1 := uuid.Parse(a.Impersonator.UserID)
	adminSID, err2 := uuid.Parse(a.Impersonator.SessionID)
	if err1 != nil || err2 != nil {
		return SignIn{}, false, pos, nil
	}
	p, err := s.guard.Check(ctx, adminID, adminSID)
	if err != nil {
		if _, _, classified := domainerr.KindOf(err); classified {
			return SignIn{}, false, pos, nil
		}
		return SignIn{}, false, pos, err
	}
	if p.Role != identity.RoleAdmin {
		return SignIn{}, false, pos, nil
	}
	access, claims, err := s.tokens.Issue(adminID, adminSID)
	if err != nil {
		return SignIn{}, false, pos, err
	}
	return SignIn{AccessToken: access, AccessExpires: claims.ExpiresAt}, true, pos, nil
}

// endImpersonation revokes the view-as-user session and records its end, in one round trip.
func (s *Service) endImpersonation(ctx context.Context, a Actor, reason string) (int64, error) {
	sid, err := uuid.Parse(a.SessionID)
	if err != nil {
		return 0, ErrNotSignedIn
	}
	return s.submitUser(ctx, impersonatorMeta(a), a.UserID, func(u *unit, user loaded) error {
		if err := user.EndImpersonation(a.Impersonator.UserID, a.SessionID, reason); err != nil {
			return err
		}
		u.authChanged = true
		u.write(s.sessions.RevokeStatement(sid, reasonImpersonationEnd))
		return nil
	})
}

// RecordImpersonatedView records that the admin behind a's view-as-user session read path. Each
// distinct path is recorded once per session (this process remembers which), so a page that
// polls costs one event, not one per request.
func (s *Service) RecordImpersonatedView(ctx context.Context, a Actor, path string) (int64, error) {
	if a.Impersonator == nil {
		return 0, nil
	}
	if !s.views.first(a.SessionID, path) {
		return 0, nil
	}
	pos, err := s.submitUser(ctx, impersonatorMeta(a), a.UserID, func(u *unit, user loaded) error {
		return user.RecordImpersonatedView(a.Impersonator.UserID, a.SessionID, path)
	})
	if err != nil {
		s.views.forget(a.SessionID, path)
	}
	return pos, err
}

// impersonatorMeta is the metadata of what happens in a view-as-user session: the admin acts,
// at the keyboard.
func impersonatorMeta(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.Impersonator.UserID, ActorRole: string(a.Impersonator.Role),
		ImpersonatorID: a.Impersonator.UserID, ClientIP: a.Client.IP}
}

// maxViewSessions bounds the sessions whose recorded views are remembered; a full memory starts
// over (a view is then recorded again, never lost).
const maxViewSessions = 10_000

// viewedPaths remembers the paths recorded per view-as-user session.
type viewedPaths struct {
	mu sync.Mutex
	m  map[string]map[string]bool
}

// first reports whether path was not yet recorded for sessionID, and marks it.
func (v *viewedPaths) first(sessionID, path string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxViewSessions {
		v.m = map[string]map[string]bool{}
	}
	seen := v.m[sessionID]
	if seen == nil {
		seen = map[string]bool{}
		v.m[sessionID] = seen
	}
	if seen[path] {
		return false
	}
	seen[path] = true
	return true
}

func (v *viewedPaths) forget(sessionID, path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.m[sessionID], path)
}

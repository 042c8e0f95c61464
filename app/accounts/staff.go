package accounts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"clearvest/domain/identity"
	"clearvest/platform/auth/session"
	"clearvest/projections/securitylog"
	"clearvest/projections/users"
)

// maxListedUsers bounds the staff user list; search narrows it.
const maxListedUsers = 500

// ListUsers returns users for staff, newest first, optionally only those whose name or e-mail
// contains search. Closed accounts are left out: nothing personal is left to show.
func (s *Service) ListUsers(ctx context.Context, search string) ([]User, error) {
	list, _, err := users.List(ctx, s.pool, users.ListOptions{Search: search, Limit: maxListedUsers})
	if err != nil {
		return nil, err
	}
	out := make([]User, 0, len(list))
	for _, u := range list {
		out = append(out, listed(u))
	}
	return out, nil
}

// staffCommand loads a target user, lets decide change it, appends, and keeps the principal row
// in step, in one transaction. extra runs after, in the same transaction (ending sessions).
func (s *Service) staffCommand(ctx context.Context, a Actor, targetID string, decide func(*identity.User) error, extra func(u *unit, id uuid.UUID) error) (int64, error) {
	id, err := uuid.Parse(strings.TrimSpace(targetID))
	if err != nil {
		return 0, ErrUserNotFound
	}
	return s.onUser(ctx, metaFor(a), id.String(), func(u *unit, user loaded) error {
		if !user.Registered() {
			return ErrUserNotFound
		}
		if err := decide(user.User); err != nil {
			return err
		}
		if err := u.appendUser(ctx, user.User); err != nil {
			return err
		}
		if err := u.syncPrincipal(ctx, user.User); err != nil {
			return err
		}
		if extra != nil {
			return extra(u, id)
		}
		return nil
	})
}

// SetRole gives a user a role. On a suspended user it also lifts the suspension, as the
// original admin screen used one role menu for both.
func (s *Service) SetRole(ctx context.Context, a Actor, targetID, role string) (int64, error) {
	r, err := identity.ParseRole(strings.TrimSpace(role))
	if err != nil {
		return 0, err
	}
	return s.staffCommand(ctx, a, targetID, func(u *identity.User) error {
		if u.Status() == identity.StatusSuspended {
			if a.UserID == u.ID() {
				return identity.ErrOwnRole
			}
			if err := u.Reinstate(); err != nil {
				return err
			}
		}
		return u.ChangeRole(a.UserID, r)
	}, nil)
}

// Suspend blocks a user from signing in and ends their sessions at once.
func (s *Service) Suspend(ctx context.Context, a Actor, targetID, reason string) (int64, error) {
	return s.staffCommand(ctx, a, targetID, func(u *identity.User) error {
		return u.Suspend(a.UserID, reason)
	}, func(u *unit, id uuid.UUID) error {
		return u.endSessions(ctx, id, uuid.Nil, reasonSuspended)
	})
}

// Reinstate lifts a suspension.
func (s *Service) Reinstate(ctx context.Context, a Actor, targetID string) (int64, error) {
	return s.staffCommand(ctx, a, targetID, func(u *identity.User) error { return u.Reinstate() }, nil)
}

// Close closes an account: user.closed, sessions and trusted browsers ended, password and
// e-mail claim removed, and then the user's personal-data key destroyed, which erases the
// personal fields of every event of theirs (crypto-shredding). The money history stays.
//
// Erasure happens after the commit (the key store is not part of the transaction). Should it
// fail, closing again repeats only the erasure.
func (s *Service) Close(ctx context.Context, a Actor, targetID string) (int64, error) {
	var photo, email string
	var alreadyClosed bool
	pos, err := s.staffCommand(ctx, a, targetID, func(u *identity.User) error {
		if u.Status() == identity.StatusClosed {
			alreadyClosed = true
			return nil
		}
		photo, email = u.Profile().Photo, u.Email()
		return u.Close(a.UserID)
	}, func(u *unit, id uuid.UUID) error {
		if alreadyClosed {
			return nil
		}
		if err := u.endSessions(ctx, id, uuid.Nil, reasonClosed); err != nil {
			return err
		}
		if err := session.NewDevices(u.tx, s.clock).ForgetAll(ctx, id); err != nil {
			return err
		}
		if err := s.credentials.Delete(ctx, u.tx, id); err != nil {
			return err
		}
		// The address is personal data too, and freeing it lets its owner sign up again.
		return s.emails.Release(ctx, u.tx, email, id)
	})
	if err != nil {
		// The aggregate refuses commands to a closed account; the erasure may still be due.
		if !errors.Is(err, identity.ErrClosed) {
			return 0, err
		}
	}
	if s.pii != nil {
		if err := s.pii.Erase(ctx, strings.TrimSpace(targetID)); err != nil {
			return pos, fmt.Errorf("accounts: the account is closed but erasing its personal data failed (close it again to retry): %w", err)
		}
	}
	s.deletePhoto(ctx, photo)
	return pos, nil
}

// SecurityLog returns what happened to the actor's account, newest first: the read model's
// entries and the account's recent sign-ins.
func (s *Service) SecurityLog(ctx context.Context, a Actor) ([]LogEntry, error) {
	entries, err := securitylog.ForUser(ctx, s.pool, a.UserID, 100)
	if err != nil {
		return nil, err
	}
	out := make([]LogEntry, 0, len(entries)+20)
	for _, e := range entries {
		out = append(out, LogEntry{ID: fmt.Sprintf("e%d", e.Position), At: e.At, Kind: e.Kind,
			Description: describe(e.Kind, e.Detail, e.UserAgent), IP: e.IP, UserAgent: e.UserAgent})
	}
	signIns, err := s.recentSignIns(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	out = append(out, signIns...)
	slices.SortStableFunc(out, func(x, y LogEntry) int { return y.At.Compare(x.At) })
	return out, nil
}

// recentSignIns lists the account's sign-ins (sessions, ended ones included) of the last 30
// days, which the session store keeps.
func (s *Service) recentSignIns(ctx context.Context, userID string) ([]LogEntry, error) {
	id, err := uuid.Parse(userID)
	if err != nil {
		return nil, ErrNotSignedIn
	}
	rows, err := s.pool.Query(ctx, `SELECT id, created_at, ip, user_agent FROM sessions
		WHERE user_id = $1 ORDER BY created_at DESC LIMIT 50`, id)
	if err != nil {
		return nil, fmt.Errorf("accounts: sign-ins: %w", err)
	}
	defer rows.Close()
	var out []LogEntry
	for rows.Next() {
		var sid uuid.UUID
		var e LogEntry
		if err := rows.Scan(&sid, &e.At, &e.IP, &e.UserAgent); err != nil {
			return nil, fmt.Errorf("accounts: sign-ins: %w", err)
		}
		e.ID, e.Kind, e.At = "s"+sid.String(), "signed_in", e.At.UTC()
		e.Description = "Signed in on " + session.DeviceLabel(e.UserAgent)
		out = append(out, e)
	}
	return out, rows.Err()
}

func describe(kind, detail, userAgent string) string {
	withDetail := func(base string) string {
		if detail == "" {
			return base
		}
		return base + ": " + detail
	}
	switch kind {
	case securitylog.KindRegistered:
		return "Account created"
	case securitylog.KindEmailVerified:
		return "E-mail address verified"
	case securitylog.KindPasswordChanged:
		if detail == "reset" {
			return "Password reset with an e-mailed link"
		}
		return "Password changed"
	case securitylog.KindNewDeviceSignIn:
		return "Sign-in from a new device: " + session.DeviceLabel(userAgent)
	case securitylog.KindTwoFactorEnabled:
		return "Two-factor authentication turned on"
	case securitylog.KindTwoFactorDisabled:
		return "Two-factor authentication turned off"
	case securitylog.KindStaffAccess:
		return withDetail("Staff opened your account")
	case securitylog.KindRoleChanged:
		return withDetail("Role changed")
	case securitylog.KindSuspended:
		return withDetail("Account suspended")
	case securitylog.KindReinstated:
		return "Account reinstated"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

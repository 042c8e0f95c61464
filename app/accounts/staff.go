package accounts

import (
	"clearvest/platform/auth"
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/principal"
	"clearvest/platform/auth/ratelimit"
	"clearvest/platform/auth/session"
	"clearvest/platform/auth/totp"
	"clearvest/platform/idempotency"
	"clearvest/platform/mail"
	"clearvest/projections/keyset"
	"clearvest/projections/securitylog"
	"clearvest/projections/users"
)

// maxListedUsers bounds the staff user list; search narrows it.
const maxListedUsers = 500

// ListUsers returns users for staff, newest first, optionally only those whose name or e-mail
// contains search. Closed accounts are left out: nothing personal is left to show.
func (s *Service) ListUsers(ctx context.Context, search string) ([]User, error) {
	list, _, err := users.List(ctx, pgread.On(ctx, s.pool), users.ListOptions{Search: search, Limit: maxListedUsers})
	if err != nil {
		return nil, err
	}
	out := make([]User, 0, len(list))
	for _, u := range list {
		out = append(out, listed(u))
	}
	return out, nil
}

// ErrBadUserFilter refuses a staff user list filter that names no role, status or identity-check
// status.
var ErrBadUserFilter = domainerr.New(domainerr.Invalid, "That filter is not one the user list knows. Please choose from the list.")

// UserCounts are the staff user list's headline figures, closed accounts not counted.
type UserCounts struct{ Verified, Suspended, Total int }

// StaffUsersPage returns a page of the staff user list: users matching f, newest first, after
// the cursor ("" from the start), limit at a time (nil: keyset.DefaultLimit), with the counts of
// all users.
func (s *Service) StaffUsersPage(ctx context.Context, f users.Filter, cursor string, limit *int) (keyset.Page[User], UserCounts, error) {
	f.Search = strings.TrimSpace(f.Search)
	if f.Role != "" {
		if r, err := identity.ParseRole(f.Role); err != nil || string(r) != f.Role {
			return keyset.Page[User]{}, UserCounts{}, ErrBadUserFilter
		}
	}
	if !slices.Contains([]string{"", string(identity.StatusActive), string(identity.StatusSuspended)}, f.Status) {
		return keyset.Page[User]{}, UserCounts{}, ErrBadUserFilter
	}
	if !slices.Contains([]string{"", string(kyc.StatusNotSubmitted), string(kyc.StatusPending), string(kyc.StatusApproved), string(kyc.StatusRejected)}, f.KYCStatus) {
		return keyset.Page[User]{}, UserCounts{}, ErrBadUserFilter
	}
	page, err := keyset.Read(cursor, limit, func(after *keyset.Cursor, n int) ([]users.User, int, bool, error) {
		return users.StaffPage(ctx, pgread.On(ctx, s.pool), f, after, n)
	}, func(u users.User) keyset.Cursor { return keyset.Cursor{At: u.CreatedAt, ID: u.ID} })
	if err != nil {
		return keyset.Page[User]{}, UserCounts{}, err
	}
	var c UserCounts
	if c.Verified, c.Suspended, c.Total, err = users.Counts(ctx, pgread.On(ctx, s.pool)); err != nil {
		return keyset.Page[User]{}, UserCounts{}, err
	}
	out := keyset.Page[User]{Items: make([]User, 0, len(page.Items)), Total: page.Total, NextCursor: page.NextCursor}
	for _, u := range page.Items {
		out.Items = append(out.Items, listed(u))
	}
	return out, c, nil
}

// staffCommand loads a target user, lets decide change it, and keeps the principal row in step,
// in one round trip. extra adds its writes after (ending sessions).
func (s *Service) staffCommand(ctx context.Context, a Actor, targetID string, decide func(*identity.User) error, extra func(u *unit, id uuid.UUID) error) (int64, error) {
	id, err := uuid.Parse(strings.TrimSpace(targetID))
	if err != nil {
		return 0, ErrUserNotFound
	}
	return s.submitUser(ctx, metaFor(a), id.String(), func(u *unit, user loaded) error {
		if !user.Registered() {
			return ErrUserNotFound
		}
		if err := decide(user.User); err != nil {
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

// Close closes an account and erases the personal data of its owner (docs/identity.md,
// "Closing an account"). An account that still holds money is refused first (closeRefusal). In
// one round trip with user.closed: sessions (with their addresses and browsers), trusted browsers, one-time codes, the authenticator secret, the password, the
// e-mail claim, the linked Google account, rate-limit counters that name the account, and every
// message to the address in the mail outbox are deleted, and the user's personal-data key is
// destroyed, which erases the personal fields of every event of theirs (crypto-shredding). The
// money history stays. The photo file goes after the commit, then what Deps.OnClosed deletes
// (identity documents), and the read models blank the account when they apply user.closed.
//
// targetID may be any spelling of the id that uuid.Parse accepts; the canonical one is used
// throughout. Closing a closed account again repeats the deletions, which finishes the erasure
// of an account closed before one of them existed.
func (s *Service) Close(ctx context.Context, a Actor, targetID string) (int64, error) {
	id, err := uuid.Parse(strings.TrimSpace(targetID))
	if err != nil {
		return 0, ErrUserNotFound
	}
	if err := s.closeRefusal(ctx, id.String()); err != nil {
		return 0, err
	}
	var photo, email string
	// Closing a closed account again raises no event; its deletions are still written.
	pos, err := s.staffCommand(ctx, a, id.String(), func(u *identity.User) error {
		if u.Status() == identity.StatusClosed {
			return nil
		}
		photo, email = u.Profile().Photo, u.Email()
		return u.Close(a.UserID)
	}, func(u *unit, id uuid.UUID) error {
		return u.erase(ctx, id, email)
	})
	if err != nil {
		return 0, err
	}
	if s.pii != nil {
		// The key is gone with the commit; this makes the process's own cache agree at once.
		if err := s.pii.Erase(ctx, id.String()); err != nil {
			s.log.WarnContext(ctx, "accounts: the closed account's key is erased; marking it in this process failed", "err", err)
		}
	}
	// The runner's cache holds the stream decoded, personal fields in plaintext.
	s.commands.Forget(userStream(id.String()))
	s.deletePhoto(ctx, photo)
	if s.onClosed != nil {
		if err := s.onClosed(context.WithoutCancel(ctx), id.String()); err != nil {
			s.log.ErrorContext(ctx, "accounts: the account is closed; deleting what other capabilities keep about it failed", "user", id.String(), "err", err)
		}
	}
	return pos, nil
}

// closeRefusal is the check every path that closes an account runs first: Deps.CloseCheck (an
// account that still holds money is refused, listing it). It runs before the closing command,
// on connections of its own, so the command never waits for a second connection while it
// holds one. An account already closed is not checked again: closing it again only finishes
// its erasure, which must stay possible for an account closed before the check existed.
func (s *Service) closeRefusal(ctx context.Context, userID string) error {
	if s.closeCheck == nil {
		return nil
	}
	user, err := s.loadUser(ctx, userID)
	if err != nil {
		return err
	}
	if !user.Registered() || user.Status() == identity.StatusClosed {
		return nil // the command refuses an unknown user with its own 404
	}
	return s.closeCheck(ctx, userID)
}

// erase deletes, with the closing command's event, every row outside the log that holds the
// user's personal data or lets anyone act as them, and destroys their personal-data key. email
// is "" when it can no longer be read (an account closed before): what is found by the address
// alone is then left.
func (u *unit) erase(ctx context.Context, id uuid.UUID, email string) error {
	s := u.s
	u.authChanged = true // the deleted sessions must stop working in this process's cache too
	// Freeing the address lets its owner sign up again, as a new account: keeping any trace of
	// it to refuse that would keep personal data of someone who asked to be forgotten.
	sts := []auth.Statement{
		session.DeleteAllStatement(id),
		session.ForgetAllStatement(id),
		otp.ForgetStatement(id),
		totp.ForgetStatement(id),
		principal.DeleteCredentialStatement(id),
		principal.ReleaseAllStatement(id),
		{SQL: `DELETE FROM google_links WHERE user_id = $1`, Args: []any{id}},
		{SQL: `DELETE FROM referral_codes WHERE user_id = $1`, Args: []any{id}},
	}
	// Answers kept for repeated requests may hold the profile and sign-in tokens.
	sql, args := idempotency.ForgetStatement(id)
	sts = append(sts, auth.Statement{SQL: sql, Args: args})
	// Counters are keyed by the address typed at sign-in and by the user id.
	keys := append(ratelimit.AccountKeys(id.String()), ruleTOTP.key(id.String()))
	if email != "" && email != eventstore.ErasedValue {
		keys = append(keys, ratelimit.AccountKeys(email)...)
		sql, args, err := mail.ForgetRecipientStatement(email)
		if err != nil {
			return err
		}
		sts = append(sts, auth.Statement{SQL: sql, Args: args})
	}
	sts = append(sts, ratelimit.ForgetStatement(keys...))
	if s.pii != nil {
		sql, args, err := s.pii.EraseStatement(id.String())
		if err != nil {
			return err
		}
		sts = append(sts, auth.Statement{SQL: sql, Args: args})
	}
	u.write(sts...)
	return nil
}

// SecurityLog returns what happened to the actor's account, newest first: the read model's
// entries and the account's recent sign-ins.
func (s *Service) SecurityLog(ctx context.Context, a Actor) ([]LogEntry, error) {
	entries, err := securitylog.ForUser(ctx, pgread.On(ctx, s.pool), a.UserID, 100)
	if err != nil {
		return nil, err
	}
	out := make([]LogEntry, 0, len(entries)+20)
	names := map[string]string{}
	for _, e := range entries {
		desc := describe(e.Kind, e.Detail, e.UserAgent)
		if e.ActorID != "" {
			desc = s.withStaffName(ctx, desc, e.ActorID, names)
		}
		entry := LogEntry{ID: fmt.Sprintf("e%d", e.Position), At: e.At, Kind: e.Kind,
			Description: desc, IP: e.IP, UserAgent: e.UserAgent}
		if e.Kind == securitylog.KindStaffViewed {
			entry.StaffRole = e.Detail
		}
		out = append(out, entry)
	}
	signIns, err := s.recentSignIns(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	out = append(out, signIns...)
	slices.SortStableFunc(out, func(x, y LogEntry) int { return y.At.Compare(x.At) })
	return out, nil
}

// withStaffName names the staff member an entry is about, so the user knows who looked at or
// decided on their documents; a closed staff account has no name left to show.
func (s *Service) withStaffName(ctx context.Context, desc, staffID string, names map[string]string) string {
	name, ok := names[staffID]
	if !ok {
		if u, err := users.Get(ctx, pgread.On(ctx, s.pool), staffID); err == nil {
			name = u.Name
		}
		names[staffID] = name
	}
	if name == "" {
		return desc
	}
	return desc + " (" + name + ")"
}

// recentSignIns lists the account's sign-ins (sessions, ended ones included) of the last 30
// days, which the session store keeps.
func (s *Service) recentSignIns(ctx context.Context, userID string) ([]LogEntry, error) {
	id, err := uuid.Parse(userID)
	if err != nil {
		return nil, ErrNotSignedIn
	}
	rows, err := s.pool.Query(ctx, `SELECT id, created_at, ip, user_agent FROM sessions
		WHERE user_id = $1 AND impersonator_id IS NULL ORDER BY created_at DESC LIMIT 50`, id)
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
	case securitylog.KindPasskeyAdded:
		return "Passkey added"
	case securitylog.KindPasskeyRemoved:
		return "Passkey removed"
	case securitylog.KindStaffAccess:
		return withDetail("Staff opened your account")
	case securitylog.KindRoleChanged:
		return withDetail("Role changed")
	case securitylog.KindSuspended:
		return withDetail("Account suspended")
	case securitylog.KindReinstated:
		return "Account reinstated"
	case securitylog.KindKYCSubmitted:
		return "Identity documents sent for review"
	case securitylog.KindKYCApproved:
		return "Identity documents approved"
	case securitylog.KindKYCRejected:
		return "Identity documents rejected"
	case securitylog.KindStaffViewed:
		if detail == "" {
			return "A staff member viewed your account"
		}
		return "A staff member (" + detail + ") viewed your account"
	case securitylog.KindKYCDocumentViewed:
		return "Identity document (" + detail + ") viewed by staff"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

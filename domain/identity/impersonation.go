package identity

import (
	"strings"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
)

// Event type names of viewing the site as a user (docs/staff.md, "Viewing as a user").
const (
	TypeImpersonationStarted = "user.impersonation_started"
	TypeImpersonationEnded   = "user.impersonation_ended"
	TypeImpersonatedViewed   = "user.impersonated_viewed"
)

// ImpersonationStarted records that an admin began viewing the site as the user. The user's
// security log shows it with the staff member's role, never their name.
type ImpersonationStarted struct {
	StaffID   string    `json:"staffId"`
	StaffRole Role      `json:"staffRole"`
	SessionID string    `json:"sessionId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// ImpersonationEnded records that the view-as-user session ended: the admin left it ("exit"),
// or signed out ("logout").
type ImpersonationEnded struct {
	StaffID   string `json:"staffId"`
	SessionID string `json:"sessionId"`
	Reason    string `json:"reason"`
}

// ImpersonatedViewed records what the admin read while viewing as the user: each distinct
// page of the API once per view-as-user session.
type ImpersonatedViewed struct {
	StaffID   string `json:"staffId"`
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
}

func (ImpersonationStarted) EventName() string { return TypeImpersonationStarted }
func (ImpersonationEnded) EventName() string   { return TypeImpersonationEnded }
func (ImpersonatedViewed) EventName() string   { return TypeImpersonatedViewed }

// Refusals of viewing as a user.
var (
	ErrImpersonateSelf   = domainerr.New(domainerr.RuleBroken, "You cannot view the site as yourself.")
	ErrImpersonateAdmin  = domainerr.New(domainerr.RuleBroken, "You cannot view the site as another admin.")
	ErrImpersonateClosed = domainerr.New(domainerr.RuleBroken, "This account is closed; there is nothing to view.")
	// ErrImpersonateSuspended: a suspended account has no session that may act, a view included.
	ErrImpersonateSuspended = domainerr.New(domainerr.RuleBroken, "This account is suspended; reinstate it to view the site as this user.")
	ErrImpersonateStaff     = domainerr.New(domainerr.Forbidden, "Only an admin can view the site as a user.")
)

// StartImpersonation records that admin staffID begins a view-as-user session sessionID on
// this account, which ends by itself at expiresAt. Nobody views as themselves, as another admin,
// or as a closed or suspended account.
func (u *User) StartImpersonation(staffID string, staffRole Role, sessionID string, expiresAt time.Time) error {
	if !u.registered {
		return ErrNotRegistered
	}
	switch u.status {
	case StatusClosed:
		return ErrImpersonateClosed
	case StatusSuspended:
		return ErrImpersonateSuspended
	}
	if err := validateID(staffID, ErrInvalidStaffID); err != nil {
		return err
	}
	switch {
	case staffRole != RoleAdmin:
		return ErrImpersonateStaff
	case staffID == u.id:
		return ErrImpersonateSelf
	case u.role == RoleAdmin:
		return ErrImpersonateAdmin
	}
	aggregate.Raise(u, ImpersonationStarted{StaffID: staffID, StaffRole: staffRole, SessionID: sessionID, ExpiresAt: expiresAt.UTC()})
	return nil
}

// EndImpersonation records that the view-as-user session ended, for reason.
func (u *User) EndImpersonation(staffID, sessionID, reason string) error {
	if !u.registered {
		return ErrNotRegistered
	}
	aggregate.Raise(u, ImpersonationEnded{StaffID: staffID, SessionID: sessionID, Reason: strings.TrimSpace(reason)})
	return nil
}

// RecordImpersonatedView records that the admin read path while viewing as the user.
func (u *User) RecordImpersonatedView(staffID, sessionID, path string) error {
	if !u.registered {
		return ErrNotRegistered
	}
	aggregate.Raise(u, ImpersonatedViewed{StaffID: staffID, SessionID: sessionID, Path: path})
	return nil
}

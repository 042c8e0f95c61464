package identity

import (
	"time"

	"clearvest/domain/aggregate"
)

// StreamCategory is the category of user streams: a user's events live in "user-<userID>".
// The id part is also the data subject whose key seals the fields tagged pii:"true".
const StreamCategory = "user"

// Event type names. They are stored with every event and must never change.
const (
	TypeRegistered        = "user.registered"
	TypeEmailVerified     = "user.email_verified"
	TypeProfileUpdated    = "user.profile_updated"
	TypeRoleChanged       = "user.role_changed"
	TypeSuspended         = "user.suspended"
	TypeReinstated        = "user.reinstated"
	TypePasswordChanged   = "user.password_changed"
	TypeSignedInNewDevice = "user.signed_in_new_device"
	TypeTwoFactorEnabled  = "user.two_factor_enabled"
	TypeTwoFactorDisabled = "user.two_factor_disabled"
	TypeStaffAccessed     = "user.staff_accessed"
	TypeClosed            = "user.closed"
	TypeTermsAccepted     = "user.terms_accepted"
	TypeLanguageChanged   = "user.language_changed"
)

// Registered starts a user's stream. ReferredBy is the referrer's user id, or "".
type Registered struct {
	UserID       string `json:"userId"`
	Name         string `json:"name" pii:"true"`
	Email        string `json:"email" pii:"true"`
	Phone        string `json:"phone" pii:"true"`
	Country      string `json:"country"`
	ReferralCode string `json:"referralCode"`
	ReferredBy   string `json:"referredBy"`
	Role         Role   `json:"role"`
}

// EmailVerified records that the user proved they own their e-mail address.
type EmailVerified struct{}

// ProfileUpdated carries the whole profile after the change, not a diff, so a reader needs no
// earlier event to know the current profile.
type ProfileUpdated struct {
	Name    string `json:"name" pii:"true"`
	Phone   string `json:"phone" pii:"true"`
	Bio     string `json:"bio" pii:"true"`
	Country string `json:"country"`
	Photo   string `json:"photo" pii:"true"`
}

// RoleChanged records a new role; who changed it is in the event metadata.
type RoleChanged struct {
	From Role `json:"from"`
	To   Role `json:"to"`
}

// Suspended blocks sign-in until the user is reinstated.
type Suspended struct {
	Reason string `json:"reason"`
}

// Reinstated lifts a suspension.
type Reinstated struct{}

// Password change channels.
const (
	ViaChange = "change" // the user changed it while signed in, knowing the old one
	ViaReset  = "reset"  // through an e-mailed reset link
)

// PasswordChanged records that the password changed, never the password or its hash: the
// credential itself lives outside the log, where it can be replaced and forgotten.
type PasswordChanged struct {
	Via string `json:"via"`
	// At is when it changed; events recorded before it was kept have none.
	At time.Time `json:"at,omitzero"`
}

// SignedInNewDevice records a sign-in from a browser or device not seen before.
type SignedInNewDevice struct {
	DeviceID  string `json:"deviceId"`
	IP        string `json:"ip" pii:"true"`
	UserAgent string `json:"userAgent" pii:"true"`
}

// TwoFactorEnabled records that sign-in now needs an authenticator code, and when (events
// recorded before the time was kept have none).
type TwoFactorEnabled struct {
	At time.Time `json:"at,omitzero"`
}

// TwoFactorDisabled records that sign-in no longer needs an authenticator code, and when.
type TwoFactorDisabled struct {
	At time.Time `json:"at,omitzero"`
}

// StaffAccessed records that staff opened the account (impersonation), so the user can see it
// in their security log.
type StaffAccessed struct {
	StaffID string `json:"staffId"`
	Reason  string `json:"reason"`
}

// Closed ends the account. The user's personal data key is destroyed alongside (outside the
// aggregate), the money history stays.
type Closed struct{}

// TermsAccepted records that the person agreed to the terms of use and the privacy policy, and
// which versions of the two documents they were shown. It is recorded with the registration.
type TermsAccepted struct {
	TermsVersion   string `json:"termsVersion"`
	PrivacyVersion string `json:"privacyVersion"`
}

// LanguageChanged records the language the user reads the site in ("en", "de"); the e-mails
// they get are written in it. A user without this event reads English.
type LanguageChanged struct {
	Language string `json:"language"`
}

func (Registered) EventName() string        { return TypeRegistered }
func (EmailVerified) EventName() string     { return TypeEmailVerified }
func (ProfileUpdated) EventName() string    { return TypeProfileUpdated }
func (RoleChanged) EventName() string       { return TypeRoleChanged }
func (Suspended) EventName() string         { return TypeSuspended }
func (Reinstated) EventName() string        { return TypeReinstated }
func (PasswordChanged) EventName() string   { return TypePasswordChanged }
func (SignedInNewDevice) EventName() string { return TypeSignedInNewDevice }
func (TwoFactorEnabled) EventName() string  { return TypeTwoFactorEnabled }
func (TwoFactorDisabled) EventName() string { return TypeTwoFactorDisabled }
func (StaffAccessed) EventName() string     { return TypeStaffAccessed }
func (Closed) EventName() string            { return TypeClosed }
func (TermsAccepted) EventName() string     { return TypeTermsAccepted }
func (LanguageChanged) EventName() string   { return TypeLanguageChanged }

// Events returns a zero value of every event type of the aggregate.
func Events() []aggregate.Event {
	return []aggregate.Event{
		Registered{}, EmailVerified{}, ProfileUpdated{}, RoleChanged{}, Suspended{}, Reinstated{},
		PasswordChanged{}, SignedInNewDevice{}, TwoFactorEnabled{}, TwoFactorDisabled{},
		StaffAccessed{}, Closed{}, TermsAccepted{}, LanguageChanged{},
		PasskeyAdded{}, PasskeyUsed{}, PasskeyRemoved{},
		ImpersonationStarted{}, ImpersonationEnded{}, ImpersonatedViewed{},
	}
}

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it. It is an
// interface so that the domain stays free of the event store.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every event type at its current schema version (all 1 so far).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

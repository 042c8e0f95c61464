// Package identity is the user aggregate: who a person is to Clearvest, what they may do, and
// whether they may come in. Credentials, sessions and codes live outside the log (package auth);
// this aggregate holds the facts about them that belong in history.
//
// Rules:
//   - A user registers once, with a valid name and e-mail, an optional valid phone and country, a
//     referral code of their own and, optionally, the id of another user who referred them.
//     Self-registration makes a subscriber; only start-up tooling passes another role.
//   - An e-mail address is verified once.
//   - A profile holds a name (required, at most 80 characters), a phone, a bio (at most 500
//     characters), a country (two-letter code) and a photo on our own origin. The e-mail address
//     is not part of the profile and cannot be edited there.
//   - Roles are subscriber, author and admin. Nobody changes their own role, and an admin cannot
//     suspend themselves: there must always be a way back in.
//   - A suspended user cannot sign in until reinstated.
//   - A closed account accepts no further commands. An admin cannot close their own account.
//   - Two-factor authentication is switched on and off explicitly; switching to the state it is
//     already in is refused, so the user is never told "enabled" by mistake.
//   - A password change is recorded as a fact (how it happened, and when), never the password or
//     its hash.
//   - For SecurityCooldown after a change to how the account signs in (its password, its
//     two-factor setting), withdrawals are paused: whoever made the change may not be the owner,
//     and the owner needs time to read the e-mail about it and react.
//
// Who issued a command (actor id, role, IP, impersonator) goes into the event metadata; the
// aggregate only needs the actor's id where a rule depends on it.
//
// Personal fields of the events are tagged pii:"true": the event store seals them with the user's
// own key, so closing an account and destroying that key erases them from history.
package identity

import (
	"strings"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/textcheck"
)

// Role is what a user may do (docs/product-rules.md, "Roles").
type Role string

const (
	RoleSubscriber Role = "subscriber"
	RoleAuthor     Role = "author"
	RoleAdmin      Role = "admin"
)

// Status is whether a user may come in.
type Status string

const (
	StatusActive    Status = "active"
	StatusSuspended Status = "suspended"
	StatusClosed    Status = "closed"
)

// IsStaff reports whether the role may see other users' data and work the queues.
func (r Role) IsStaff() bool { return r == RoleAuthor || r == RoleAdmin }

// Valid reports whether s is one of the three statuses.
func (s Status) Valid() bool {
	return s == StatusActive || s == StatusSuspended || s == StatusClosed
}

func fieldError(field, message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = field
	return e
}

// Errors. Their messages are shown to the user as they are.
var (
	ErrNotRegistered     = domainerr.New(domainerr.NotFound, "User not found")
	ErrAlreadyRegistered = domainerr.New(domainerr.Conflict, "This account is already registered")
	ErrAlreadyVerified   = domainerr.New(domainerr.Conflict, "Email is already verified")
	ErrOwnRole           = domainerr.New(domainerr.RuleBroken, "You cannot change your own role")
	ErrOwnSuspension     = domainerr.New(domainerr.RuleBroken, "You cannot suspend your own account")
	ErrOwnClosure        = domainerr.New(domainerr.RuleBroken, "You cannot close your own admin account")
	ErrOwnStaffAccess    = domainerr.New(domainerr.RuleBroken, "You cannot open your own account as staff")
	ErrAlreadySuspended  = domainerr.New(domainerr.Conflict, "This account is already suspended")
	ErrNotSuspended      = domainerr.New(domainerr.Conflict, "This account is not suspended")
	// ErrSuspended answers every request and sign-in of a suspended user. The message must
	// contain "suspended": the UI opens its "Account Suspended" dialog on that word.
	ErrSuspended               = domainerr.Coded(domainerr.Forbidden, "suspended", "Your account has been suspended. Please contact support.")
	ErrClosed                  = domainerr.New(domainerr.RuleBroken, "This account is closed")
	ErrTwoFactorAlreadyEnabled = domainerr.New(domainerr.Conflict, "Two-factor authentication is already enabled")
	ErrTwoFactorNotEnabled     = domainerr.New(domainerr.Conflict, "Two-factor authentication is not enabled")

	ErrInvalidEmail        = fieldError("email", "Please enter a valid email")
	ErrInvalidPhone        = fieldError("phone", "Please enter a valid Phone Number")
	ErrNameRequired        = fieldError("name", "Please enter your name")
	ErrNameTooLong         = fieldError("name", "Name must be at most 80 characters")
	ErrInvalidName         = fieldError("name", "Please enter a valid name")
	ErrBioTooLong          = fieldError("bio", "Bio must be at most 500 characters")
	ErrInvalidBio          = fieldError("bio", "Please enter a valid bio")
	ErrInvalidCountry      = fieldError("country", "Please select a valid country")
	ErrInvalidPhoto        = fieldError("photo", "Please upload a valid photo")
	ErrInvalidRole         = fieldError("role", "Please select a role")
	ErrInvalidReason       = fieldError("reason", "Reason must be at most 500 characters")
	ErrNameInvisible       = ErrInvalidName.WithMessage(textcheck.Message("Name"))
	ErrBioInvisible        = ErrInvalidBio.WithMessage(textcheck.Message("Bio"))
	ErrReasonInvisible     = ErrInvalidReason.WithMessage(textcheck.Message("Reason"))
	ErrInvalidReferralCode = fieldError("referralCode", "Invalid referral code")
	ErrSelfReferral        = fieldError("referralCode", "You cannot refer yourself")
	ErrInvalidUserID       = fieldError("id", "Invalid user id")
	ErrInvalidDeviceID     = fieldError("deviceId", "Invalid device id")
	ErrInvalidStaffID      = fieldError("staffId", "Invalid staff id")
	ErrInvalidVia          = fieldError("via", "Invalid password change")
	ErrTermsNotAccepted    = fieldError("acceptTerms", "Please accept the Terms and the Privacy Policy to create an account")
	ErrInvalidLanguage     = fieldError("language", "Please choose a language we offer")
	ErrAlreadyAccepted     = domainerr.New(domainerr.Conflict, "The terms are already accepted")
)

// Languages the site and its e-mails are written in; the first is the default.
var Languages = []string{"en", "de"}

// DefaultLanguage is what a user reads until they choose another.
const DefaultLanguage = "en"

// ValidLanguage reports whether lang is one of Languages.
func ValidLanguage(lang string) bool {
	for _, l := range Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// Profile is the part of a user they edit themselves.
type Profile struct {
	Name    string
	Phone   string
	Bio     string
	Country string
	Photo   string
}

// normalize trims what people type around their input; validation then sees what is stored.
func (p Profile) normalize() Profile {
	return Profile{
		Name:    strings.TrimSpace(p.Name),
		Phone:   NormalizePhone(p.Phone),
		Bio:     strings.TrimSpace(p.Bio),
		Country: strings.ToUpper(strings.TrimSpace(p.Country)),
		Photo:   strings.TrimSpace(p.Photo),
	}
}

func (p Profile) validate() error {
	if err := ValidateName(p.Name); err != nil {
		return err
	}
	if p.Phone != "" {
		if err := ValidatePhone(p.Phone); err != nil {
			return err
		}
	}
	if err := ValidateBio(p.Bio); err != nil {
		return err
	}
	if p.Country != "" {
		if err := ValidateCountry(p.Country); err != nil {
			return err
		}
	}
	return ValidatePhoto(p.Photo)
}

// User is the aggregate. Create it with New and either Register or load its history.
type User struct {
	aggregate.Root
	id           string
	registered   bool
	email        string
	profile      Profile
	role         Role
	status       Status
	verified     bool
	twoFactor    bool
	referralCode string
	referredBy   string
	language     string
	acceptedTerm TermsAccepted
	// securityChange is the latest change to how the account signs in, at securityChangedAt.
	securityChange    SecurityChange
	securityChangedAt time.Time
	passkeys          []Passkey
}

// New returns an empty user, ready to Register or to load history into.
func New() *User { return &User{} }

// RegisterParams is what a registration needs. The caller makes the id and a unique referral
// code, and resolves a referral code typed by the user into the referrer's id. Phone and country
// are optional here: the API requires them of people signing up, start-up tooling does not.
type RegisterParams struct {
	UserID       string
	Name         string
	Email        string
	Phone        string
	Country      string
	ReferralCode string
	ReferredBy   string
	Role         Role // "" means subscriber
}

// Register starts the user's history.
func (u *User) Register(p RegisterParams) error {
	if u.registered {
		return ErrAlreadyRegistered
	}
	if err := validateID(p.UserID, ErrInvalidUserID); err != nil {
		return err
	}
	profile := Profile{Name: p.Name, Phone: p.Phone, Country: p.Country}.normalize()
	email := strings.TrimSpace(p.Email)
	if err := ValidateName(profile.Name); err != nil {
		return err
	}
	if err := ValidateEmail(email); err != nil {
		return err
	}
	if err := profile.validate(); err != nil {
		return err
	}
	if err := validateReferralCode(p.ReferralCode); err != nil {
		return err
	}
	if p.ReferredBy != "" {
		if p.ReferredBy == p.UserID {
			return ErrSelfReferral
		}
		if err := validateID(p.ReferredBy, ErrInvalidReferralCode); err != nil {
			return err
		}
	}
	role := p.Role
	if role == "" {
		role = RoleSubscriber
	}
	if _, err := ParseRole(string(role)); err != nil {
		return err
	}
	aggregate.Raise(u, Registered{
		UserID: p.UserID, Name: profile.Name, Email: email, Phone: profile.Phone, Country: profile.Country,
		ReferralCode: p.ReferralCode, ReferredBy: p.ReferredBy, Role: role,
	})
	return nil
}

// VerifyEmail records that the user confirmed their e-mail address.
func (u *User) VerifyEmail() error {
	if err := u.open(); err != nil {
		return err
	}
	if u.verified {
		return ErrAlreadyVerified
	}
	aggregate.Raise(u, EmailVerified{})
	return nil
}

// UpdateProfile replaces the profile with p. To change some fields only, start from Profile().
// An update that changes nothing records nothing.
func (u *User) UpdateProfile(p Profile) error {
	if err := u.open(); err != nil {
		return err
	}
	p = p.normalize()
	if err := p.validate(); err != nil {
		return err
	}
	if p == u.profile {
		return nil
	}
	aggregate.Raise(u, ProfileUpdated{Name: p.Name, Phone: p.Phone, Bio: p.Bio, Country: p.Country, Photo: p.Photo})
	return nil
}

// ChangeRole gives the user another role on behalf of actorID (an admin; the API checks that).
// Asking for the role the user already has records nothing.
func (u *User) ChangeRole(actorID string, to Role) error {
	if err := u.open(); err != nil {
		return err
	}
	if _, err := ParseRole(string(to)); err != nil {
		return err
	}
	if actorID == u.id {
		return ErrOwnRole
	}
	if to == u.role {
		return nil
	}
	aggregate.Raise(u, RoleChanged{From: u.role, To: to})
	return nil
}

// Suspend blocks the user from signing in, on behalf of actorID. The reason is optional.
func (u *User) Suspend(actorID, reason string) error {
	if err := u.open(); err != nil {
		return err
	}
	if actorID == u.id {
		return ErrOwnSuspension
	}
	if u.status == StatusSuspended {
		return ErrAlreadySuspended
	}
	reason = strings.TrimSpace(reason)
	if err := validateReason(reason); err != nil {
		return err
	}
	aggregate.Raise(u, Suspended{Reason: reason})
	return nil
}

// Reinstate lets a suspended user sign in again.
func (u *User) Reinstate() error {
	if err := u.open(); err != nil {
		return err
	}
	if u.status != StatusSuspended {
		return ErrNotSuspended
	}
	aggregate.Raise(u, Reinstated{})
	return nil
}

// RecordPasswordChange records that the password was changed at at, via ViaChange or ViaReset.
func (u *User) RecordPasswordChange(via string, at time.Time) error {
	if err := u.open(); err != nil {
		return err
	}
	if via != ViaChange && via != ViaReset {
		return ErrInvalidVia
	}
	aggregate.Raise(u, PasswordChanged{Via: via, At: at.UTC()})
	return nil
}

// RecordNewDevice records a sign-in from a device not seen before. It is refused for a user
// who may not sign in; over-long user agents are cut.
func (u *User) RecordNewDevice(deviceID, ip, userAgent string) error {
	if err := u.CanSignIn(); err != nil {
		return err
	}
	if err := validateID(deviceID, ErrInvalidDeviceID); err != nil {
		return err
	}
	aggregate.Raise(u, SignedInNewDevice{
		DeviceID: deviceID, IP: strings.TrimSpace(ip), UserAgent: truncate(strings.TrimSpace(userAgent), maxUserAgent),
	})
	return nil
}

// EnableTwoFactor records that sign-in needs an authenticator code from at on.
func (u *User) EnableTwoFactor(at time.Time) error {
	if err := u.open(); err != nil {
		return err
	}
	if u.twoFactor {
		return ErrTwoFactorAlreadyEnabled
	}
	aggregate.Raise(u, TwoFactorEnabled{At: at.UTC()})
	return nil
}

// DisableTwoFactor records that sign-in no longer needs an authenticator code from at on.
func (u *User) DisableTwoFactor(at time.Time) error {
	if err := u.open(); err != nil {
		return err
	}
	if !u.twoFactor {
		return ErrTwoFactorNotEnabled
	}
	aggregate.Raise(u, TwoFactorDisabled{At: at.UTC()})
	return nil
}

// RecordStaffAccess records that staff member staffID opened the account, so the user sees it.
func (u *User) RecordStaffAccess(staffID, reason string) error {
	if err := u.open(); err != nil {
		return err
	}
	if err := validateID(staffID, ErrInvalidStaffID); err != nil {
		return err
	}
	if staffID == u.id {
		return ErrOwnStaffAccess
	}
	reason = strings.TrimSpace(reason)
	if err := validateReason(reason); err != nil {
		return err
	}
	aggregate.Raise(u, StaffAccessed{StaffID: staffID, Reason: reason})
	return nil
}

// Close ends the account on behalf of actorID (the user themselves, or an admin). Erasing the
// personal data key and refusing closure while money is held are the caller's part.
func (u *User) Close(actorID string) error {
	if err := u.open(); err != nil {
		return err
	}
	if actorID == u.id && u.role == RoleAdmin {
		return ErrOwnClosure
	}
	aggregate.Raise(u, Closed{})
	return nil
}

// CanSignIn reports why the user may not sign in, or nil.
func (u *User) CanSignIn() error {
	if err := u.open(); err != nil {
		return err
	}
	if u.status == StatusSuspended {
		return ErrSuspended
	}
	return nil
}

// open refuses commands to a user who does not exist or whose account is closed.
func (u *User) open() error {
	switch {
	case !u.registered:
		return ErrNotRegistered
	case u.status == StatusClosed:
		return ErrClosed
	}
	return nil
}

// ID is the user's id ("" before registration).
func (u *User) ID() string { return u.id }

// Registered reports whether the user exists.
func (u *User) Registered() bool { return u.registered }

// Email is the address as the user typed it (trimmed); compare with EmailKey.
func (u *User) Email() string { return u.email }

// Profile is the current profile.
func (u *User) Profile() Profile { return u.profile }

// Role is the current role.
func (u *User) Role() Role { return u.role }

// Language is the language the user reads in: the last one they chose, else DefaultLanguage.
func (u *User) Language() string {
	if u.language == "" {
		return DefaultLanguage
	}
	return u.language
}

// AcceptedTerms is the versions of the terms and the privacy policy the user agreed to, or
// zero for an account made without (operator tooling, accounts older than the consent).
func (u *User) AcceptedTerms() TermsAccepted { return u.acceptedTerm }

// AcceptTerms records the person's agreement to the given versions of the terms of use and the
// privacy policy. Both versions are required: an agreement to an unnamed document proves nothing.
func (u *User) AcceptTerms(termsVersion, privacyVersion string) error {
	if err := u.open(); err != nil {
		return err
	}
	termsVersion, privacyVersion = strings.TrimSpace(termsVersion), strings.TrimSpace(privacyVersion)
	if termsVersion == "" || privacyVersion == "" {
		return ErrTermsNotAccepted
	}
	if u.acceptedTerm.TermsVersion == termsVersion && u.acceptedTerm.PrivacyVersion == privacyVersion {
		return ErrAlreadyAccepted
	}
	aggregate.Raise(u, TermsAccepted{TermsVersion: termsVersion, PrivacyVersion: privacyVersion})
	return nil
}

// SetLanguage records the language the user reads in. Choosing the current one records nothing.
func (u *User) SetLanguage(lang string) error {
	if err := u.open(); err != nil {
		return err
	}
	if !ValidLanguage(lang) {
		return ErrInvalidLanguage
	}
	if lang == u.Language() {
		return nil
	}
	aggregate.Raise(u, LanguageChanged{Language: lang})
	return nil
}

// Status is whether the user is active, suspended or closed.
func (u *User) Status() Status { return u.status }

// EmailVerified reports whether the e-mail address was verified.
func (u *User) EmailVerified() bool { return u.verified }

// TwoFactorEnabled reports whether sign-in needs an authenticator code.
func (u *User) TwoFactorEnabled() bool { return u.twoFactor }

// ReferralCode is the user's own code to share.
func (u *User) ReferralCode() string { return u.referralCode }

// ReferredBy is the id of the user who referred this one, or "".
func (u *User) ReferredBy() string { return u.referredBy }

// Apply implements aggregate.Aggregate.
func (u *User) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case Registered:
		u.id, u.registered, u.status = e.UserID, true, StatusActive
		u.email, u.role = e.Email, e.Role
		u.profile = Profile{Name: e.Name, Phone: e.Phone, Country: e.Country}
		u.referralCode, u.referredBy = e.ReferralCode, e.ReferredBy
	case EmailVerified:
		u.verified = true
	case ProfileUpdated:
		u.profile = Profile{Name: e.Name, Phone: e.Phone, Bio: e.Bio, Country: e.Country, Photo: e.Photo}
	case RoleChanged:
		u.role = e.To
	case Suspended:
		u.status = StatusSuspended
	case Reinstated:
		u.status = StatusActive
	case PasswordChanged:
		u.securityChanged(ChangedPassword, e.At)
	case TwoFactorEnabled:
		u.twoFactor = true
		u.securityChanged(ChangedTwoFactorOn, e.At)
	case TwoFactorDisabled:
		u.twoFactor = false
		u.securityChanged(ChangedTwoFactorOff, e.At)
	case Closed:
		u.status = StatusClosed
	case TermsAccepted:
		u.acceptedTerm = e
	case LanguageChanged:
		u.language = e.Language
	case PasskeyAdded, PasskeyUsed, PasskeyRemoved:
		u.applyPasskey(e)
	}
}

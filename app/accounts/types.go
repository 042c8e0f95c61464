package accounts

import (
	"strings"

	"time"

	"clearvest/domain/identity"
)

// Principal is who a valid access token speaks for, as the write side knows them right now.
type Principal struct {
	UserID    string
	Role      identity.Role
	SessionID string
	// Impersonator is the admin holding a view-as-user session, nil for the user's own.
	Impersonator *Impersonator
}

// Actor is the signed-in user issuing a command, with what the audit trail records about the
// request (event metadata).
type Actor struct {
	UserID    string
	Role      identity.Role
	SessionID string
	Client    Client
	// Impersonator is the admin holding a view-as-user session, nil for the user's own.
	Impersonator *Impersonator
}

// Client describes the browser or program a request came from.
type Client struct {
	IP        string
	UserAgent string
	// DeviceToken is the trusted-device cookie the browser sent, if any.
	DeviceToken string
	// PendingLogin is the token of the sign-in waiting for its e-mailed code that the browser
	// (cookie) or API client (request body) sent, if any.
	PendingLogin string
	// Origin is the request's Origin header: in development, the site a passkey ceremony runs
	// at (production uses the public URL's).
	Origin string
}

// User is the API's view of a user (the specification's field names are the API layer's
// concern). Money fields are decimal strings.
type User struct {
	ID                  string
	Name                string
	Email               string
	Phone               string
	Country             string
	Bio                 string
	Photo               string
	Role                string // subscriber, author or admin (the role held, even while suspended)
	Status              string // active, suspended or closed
	Verified            bool
	KYCStatus           string
	Balance             string
	InvestmentBalance   string
	TotalMaturityAmount string
	Fees                string
	HasFees             bool
	ReferralCode        string
	TwoFactorEnabled    bool
	CreatedAt           time.Time
}

// SignIn is the outcome of a successful sign-in or refresh: the user, and the secrets the
// browser keeps in cookies (the API client only the access token).
type SignIn struct {
	User           User
	AccessToken    string
	AccessExpires  time.Time
	RefreshToken   string
	RefreshExpires time.Time
	// DeviceToken, when set, is a new trusted-device secret to store in the device cookie.
	DeviceToken string
	// Position is the global position of the last event the sign-in appended (0 if none).
	Position int64
}

// Session is one of a user's active sign-ins.
type Session struct {
	ID         string
	CreatedAt  time.Time
	LastSeenAt time.Time
	IP         string
	UserAgent  string
	Current    bool
}

// LogEntry is one line of a user's security log.
type LogEntry struct {
	ID          string
	At          time.Time
	Kind        string
	Description string
	IP          string
	UserAgent   string
	// StaffRole is the role of the staff member a staff_viewed entry is about.
	StaffRole string
}

// RegisterInput is what a person signing up sends.
type RegisterInput struct {
	Name, Email, Password, ConfirmPassword, Phone, Country, ReferralCode string
	// Terms is what the person agreed to by ticking the consent box; without both versions
	// nothing is created.
	Terms Consent
	// Language is the language the person reads the site in ("" is English).
	Language string
}

// Consent is the versions of the terms of use and the privacy policy a person agreed to.
type Consent struct {
	TermsVersion, PrivacyVersion string
}

// given reports whether the person agreed to named versions of both documents.
func (c Consent) given() bool {
	return strings.TrimSpace(c.TermsVersion) != "" && strings.TrimSpace(c.PrivacyVersion) != ""
}

// LoginInput is what a person signing in with a password sends.
type LoginInput struct {
	Email, Password, TOTPCode string
}

// ProfileInput holds the profile fields to change; nil leaves a field as it is.
type ProfileInput struct {
	Name, Phone, Bio, Country, Photo *string
}

// GoogleInput is a Google ID token and, to link an existing account, its password or the code
// e-mailed for linking.
type GoogleInput struct {
	Credential, Password, Code, TOTPCode string
	// Terms and Language come from the start of the flow: a Google account new to us creates
	// an account only with the person's consent.
	Terms    Consent
	Language string
	// Nonce must be the token's nonce: the redirect flow binds its token to the browser that
	// started it.
	Nonce string
}

// CreateUserInput creates an account from operator tooling (admin create, the demo seed).
type CreateUserInput struct {
	Name, Email, Password, Role, Country string
	// Verified marks the e-mail as verified at once (the operator vouches for it).
	Verified bool
}

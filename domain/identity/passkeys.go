package identity

import (
	"strings"
	"time"
	"unicode/utf8"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/textcheck"
)

// Passkey event type names. They are stored with every event and must never change.
const (
	TypePasskeyAdded   = "user.passkey_added"
	TypePasskeyUsed    = "user.passkey_used"
	TypePasskeyRemoved = "user.passkey_removed"
)

// MaxPasskeys is how many passkeys one account may hold.
const MaxPasskeys = 20

// MaxPasskeyName is the longest name a passkey may have, in characters.
const MaxPasskeyName = 60

// PasskeyAdded records a passkey (a WebAuthn public-key credential) the user registered: what a
// later sign-in is checked against. Nothing in it is secret: the private key never leaves the
// user's authenticator. The name is the user's own words for it ("Work laptop").
type PasskeyAdded struct {
	CredentialID string    `json:"credentialId"` // base64url, no padding
	PublicKey    []byte    `json:"publicKey"`    // COSE key
	SignCount    uint32    `json:"signCount"`
	Transports   []string  `json:"transports,omitempty"`
	Flags        uint8     `json:"flags"` // user present/verified, backup eligible/state, as the authenticator said
	AAGUID       []byte    `json:"aaguid,omitempty"`
	Attestation  string    `json:"attestation,omitempty"`
	Name         string    `json:"name" pii:"true"`
	At           time.Time `json:"at"`
}

// PasskeyUsed records a sign-in or confirmation with a passkey and the signature counter the
// authenticator reported, which the next use must exceed (unless the authenticator keeps none).
type PasskeyUsed struct {
	CredentialID string    `json:"credentialId"`
	SignCount    uint32    `json:"signCount"`
	At           time.Time `json:"at"`
}

// PasskeyRemoved records that a passkey no longer signs in.
type PasskeyRemoved struct {
	CredentialID string    `json:"credentialId"`
	At           time.Time `json:"at"`
}

func (PasskeyAdded) EventName() string   { return TypePasskeyAdded }
func (PasskeyUsed) EventName() string    { return TypePasskeyUsed }
func (PasskeyRemoved) EventName() string { return TypePasskeyRemoved }

// Passkey is a passkey of the user as the aggregate knows it.
type Passkey struct {
	CredentialID string
	PublicKey    []byte
	SignCount    uint32
	Transports   []string
	Flags        uint8
	AAGUID       []byte
	Attestation  string
	Name         string
	CreatedAt    time.Time
	LastUsedAt   time.Time // zero until first used
}

// Passkey refusals.
var (
	ErrPasskeyNameRequired  = fieldError("name", "Please give the passkey a name")
	ErrPasskeyNameTooLong   = fieldError("name", "The name must be at most 60 characters")
	ErrPasskeyNameInvisible = ErrPasskeyNameRequired.WithMessage(textcheck.Message("Name"))
	ErrPasskeyExists        = domainerr.New(domainerr.Conflict, "This passkey is already registered")
	ErrPasskeyLimit         = domainerr.New(domainerr.RuleBroken, "You have as many passkeys as an account may hold; please remove one first")
	ErrPasskeyNotFound      = domainerr.New(domainerr.NotFound, "Passkey not found")
	// ErrPasskeyCounter: the authenticator's signature counter did not advance, which is what a
	// copied (cloned) authenticator shows. The use is refused and nothing is recorded.
	ErrPasskeyCounter = domainerr.Coded(domainerr.Forbidden, "passkey_counter",
		"This passkey could not be verified. If it was copied to another device, remove it and add it again.")
)

// NormalizePasskeyName trims a passkey's name and checks it.
func NormalizePasskeyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", ErrPasskeyNameRequired
	case utf8.RuneCountInString(name) > MaxPasskeyName:
		return "", ErrPasskeyNameTooLong
	case !textcheck.SingleLine(name):
		return "", ErrPasskeyNameInvisible
	}
	return name, nil
}

// AddPasskey records a new passkey, once its registration ceremony was verified.
func (u *User) AddPasskey(p Passkey, at time.Time) error {
	if err := u.open(); err != nil {
		return err
	}
	name, err := NormalizePasskeyName(p.Name)
	if err != nil {
		return err
	}
	if p.CredentialID == "" || len(p.PublicKey) == 0 {
		return domainerr.New(domainerr.Invalid, "The passkey is incomplete")
	}
	if _, ok := u.PasskeyByID(p.CredentialID); ok {
		return ErrPasskeyExists
	}
	if len(u.passkeys) >= MaxPasskeys {
		return ErrPasskeyLimit
	}
	aggregate.Raise(u, PasskeyAdded{
		CredentialID: p.CredentialID, PublicKey: p.PublicKey, SignCount: p.SignCount, Transports: p.Transports,
		Flags: p.Flags, AAGUID: p.AAGUID, Attestation: p.Attestation, Name: name, At: at.UTC(),
	})
	return nil
}

// UsePasskey records a verified use of a passkey with the counter the authenticator reported.
// A counter that did not advance is refused (ErrPasskeyCounter), unless the authenticator keeps
// none (both zero), as many platform authenticators do.
func (u *User) UsePasskey(credentialID string, signCount uint32, at time.Time) error {
	if err := u.open(); err != nil {
		return err
	}
	p, ok := u.PasskeyByID(credentialID)
	if !ok {
		return ErrPasskeyNotFound
	}
	if (signCount != 0 || p.SignCount != 0) && signCount <= p.SignCount {
		return ErrPasskeyCounter
	}
	aggregate.Raise(u, PasskeyUsed{CredentialID: credentialID, SignCount: signCount, At: at.UTC()})
	return nil
}

// RemovePasskey records that a passkey no longer signs in.
func (u *User) RemovePasskey(credentialID string, at time.Time) error {
	if err := u.open(); err != nil {
		return err
	}
	if _, ok := u.PasskeyByID(credentialID); !ok {
		return ErrPasskeyNotFound
	}
	aggregate.Raise(u, PasskeyRemoved{CredentialID: credentialID, At: at.UTC()})
	return nil
}

// Passkeys are the user's passkeys, oldest first.
func (u *User) Passkeys() []Passkey {
	out := make([]Passkey, len(u.passkeys))
	copy(out, u.passkeys)
	return out
}

// HasPasskey reports whether the user has at least one passkey.
func (u *User) HasPasskey() bool { return len(u.passkeys) > 0 }

// HasSecondFactor reports whether signing in as the user needs more than a password: an
// authenticator app or a passkey.
func (u *User) HasSecondFactor() bool { return u.twoFactor || len(u.passkeys) > 0 }

// PasskeyByID returns one of the user's passkeys.
func (u *User) PasskeyByID(credentialID string) (Passkey, bool) {
	for _, p := range u.passkeys {
		if p.CredentialID == credentialID {
			return p, true
		}
	}
	return Passkey{}, false
}

func (u *User) applyPasskey(e aggregate.Event) {
	switch e := e.(type) {
	case PasskeyAdded:
		u.passkeys = append(u.passkeys, Passkey{
			CredentialID: e.CredentialID, PublicKey: e.PublicKey, SignCount: e.SignCount, Transports: e.Transports,
			Flags: e.Flags, AAGUID: e.AAGUID, Attestation: e.Attestation, Name: e.Name, CreatedAt: e.At,
		})
	case PasskeyUsed:
		for i := range u.passkeys {
			if u.passkeys[i].CredentialID == e.CredentialID {
				u.passkeys[i].SignCount, u.passkeys[i].LastUsedAt = e.SignCount, e.At
			}
		}
	case PasskeyRemoved:
		kept := u.passkeys[:0:0]
		for _, p := range u.passkeys {
			if p.CredentialID != e.CredentialID {
				kept = append(kept, p)
			}
		}
		u.passkeys = kept
	}
}

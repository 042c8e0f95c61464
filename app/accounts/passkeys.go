package accounts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/auth/passkey"
)

// Passkeys (WebAuthn credentials) are kept on the user's stream (identity.PasskeyAdded and the
// events after it): the public key, the credential id, the signature counter, the transports,
// the name the person gave it. The ceremonies' challenges live in passkey_challenges between
// their two requests, single-use, five minutes, bound to the session that began them.
//
// Every ceremony requires user verification (a fingerprint, a face, a device PIN), so a passkey
// is two factors in one: the device (possession) and what unlocks it. That is why a sign-in with
// one needs no e-mailed code and no authenticator code, and why it confirms a step-up.

// PasskeyView is a passkey as its owner sees it.
type PasskeyView struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time
}

// Ceremony is what the browser needs to run a ceremony: the options for
// navigator.credentials.create or .get (JSON, binary fields base64url) and the challenge's id.
type Ceremony struct {
	ChallengeID string
	Options     json.RawMessage
}

// PasskeyAnswer is the browser's answer to a ceremony: the challenge's id and the
// PublicKeyCredential in its JSON form.
type PasskeyAnswer struct {
	ChallengeID string
	Credential  []byte
}

// rulePasskeyIP bounds passkey ceremonies per client address: a person needs a handful.
var rulePasskeyIP = rule{"passkey-ip", 30, 15 * time.Minute, true}

// Passkey refusals.
var (
	ErrPasskeyChallenge = domainerr.Coded(domainerr.Invalid, "passkey_challenge",
		"That passkey request has expired or was already used. Please try again.")
	ErrPasskeyRejected = domainerr.Coded(domainerr.Invalid, "passkey_rejected",
		"That passkey could not be verified. Please try again.")
	ErrPasskeyUnknown = domainerr.Coded(domainerr.Invalid, "passkey_unknown",
		"This passkey does not belong to an account here. Please sign in with your e-mail address.")
	ErrPasskeyHostName = domainerr.New(domainerr.RuleBroken,
		"Passkeys need the site's name in the address bar, not an IP address (open it at http://localhost instead).")
	ErrPasskeyNone = domainerr.New(domainerr.RuleBroken, "Your account has no passkey yet.")
)

// webauthnUser is a user as the WebAuthn library sees them. The user handle is the user's id
// (16 bytes): a passkey names its account by it in a sign-in without an e-mail address.
type webauthnUser struct{ u loaded }

func (w webauthnUser) WebAuthnID() []byte {
	id, _ := uuid.Parse(w.u.ID())
	return id[:]
}
func (w webauthnUser) WebAuthnName() string { return w.u.Email() }
func (w webauthnUser) WebAuthnDisplayName() string {
	if n := w.u.Profile().Name; n != "" {
		return n
	}
	return w.u.Email()
}
func (w webauthnUser) WebAuthnCredentials() []webauthn.Credential {
	var out []webauthn.Credential
	for _, p := range w.u.Passkeys() {
		id, err := base64.RawURLEncoding.DecodeString(p.CredentialID)
		if err != nil {
			continue
		}
		transports := make([]protocol.AuthenticatorTransport, len(p.Transports))
		for i, t := range p.Transports {
			transports[i] = protocol.AuthenticatorTransport(t)
		}
		out = append(out, webauthn.Credential{
			ID: id, PublicKey: p.PublicKey, Transport: transports, AttestationType: p.Attestation,
			Flags:         webauthn.CredentialFlagsFromMsgpByte(p.Flags),
			Authenticator: webauthn.Authenticator{AAGUID: p.AAGUID, SignCount: p.SignCount},
		})
	}
	return out
}

// relyingParty is the site passkeys belong to: the public URL's host and origin. Development
// runs the ceremony at the origin the browser is on (the CSRF check already holds it to the
// request's own host), so that a server reached at http://localhost:PORT works whatever its
// public URL says. An IP address cannot be a relying party.
func (s *Service) relyingParty(requestOrigin string) (rpID, origin string, err error) {
	raw := s.cfg.PublicURL
	if !s.cfg.Production && requestOrigin != "" {
		raw = requestOrigin
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", "", ErrPasskeyHostName
	}
	if net.ParseIP(u.Hostname()) != nil {
		return "", "", ErrPasskeyHostName
	}
	return u.Hostname(), u.Scheme + "://" + u.Host, nil
}

func (s *Service) relyingPartyFor(rpID, origin string) (*webauthn.WebAuthn, error) {
	return webauthn.New(&webauthn.Config{
		RPID: rpID, RPDisplayName: "Clearvest", RPOrigins: []string{origin},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: passkey.ChallengeLife, TimeoutUVD: passkey.ChallengeLife},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: passkey.ChallengeLife, TimeoutUVD: passkey.ChallengeLife},
		},
	})
}

// begin runs the first half of a ceremony and keeps its challenge.
func (s *Service) begin(ctx context.Context, c Client, purpose string, userID, sessionID uuid.UUID,
	run func(wa *webauthn.WebAuthn) (any, *webauthn.SessionData, error)) (Ceremony, error) {
	if err := s.limit(ctx, rulePasskeyIP, c.IP); err != nil {
		return Ceremony{}, err
	}
	rpID, origin, err := s.relyingParty(c.Origin)
	if err != nil {
		return Ceremony{}, err
	}
	wa, err := s.relyingPartyFor(rpID, origin)
	if err != nil {
		return Ceremony{}, err
	}
	options, data, err := run(wa)
	if err != nil {
		return Ceremony{}, err
	}
	rawOptions, err := json.Marshal(options)
	if err != nil {
		return Ceremony{}, err
	}
	rawData, err := json.Marshal(data)
	if err != nil {
		return Ceremony{}, err
	}
	id, err := s.challenges.Put(ctx, passkey.Challenge{
		Purpose: purpose, UserID: userID, SessionID: sessionID, RPID: rpID, Origin: origin, Data: rawData,
	})
	if err != nil {
		return Ceremony{}, err
	}
	return Ceremony{ChallengeID: id, Options: rawOptions}, nil
}

// take returns the ceremony's challenge, used up whatever happens next, with the relying party
// it was made for.
func (s *Service) take(ctx context.Context, c Client, id, purpose string, userID, sessionID uuid.UUID) (*webauthn.WebAuthn, webauthn.SessionData, error) {
	if err := s.limit(ctx, rulePasskeyIP, c.IP); err != nil {
		return nil, webauthn.SessionData{}, err
	}
	ch, err := s.challenges.Take(ctx, id, purpose, userID, sessionID)
	if errors.Is(err, passkey.ErrChallenge) {
		return nil, webauthn.SessionData{}, ErrPasskeyChallenge
	} else if err != nil {
		return nil, webauthn.SessionData{}, err
	}
	var data webauthn.SessionData
	if err := json.Unmarshal(ch.Data, &data); err != nil {
		return nil, webauthn.SessionData{}, err
	}
	wa, err := s.relyingPartyFor(ch.RPID, ch.Origin)
	return wa, data, err
}

// actorIDs are the caller's user and session ids.
func actorIDs(a Actor) (uuid.UUID, uuid.UUID, error) {
	uid, err := uuid.Parse(a.UserID)
	if err != nil {
		return uuid.Nil, uuid.Nil, ErrNotSignedIn
	}
	sid, err := uuid.Parse(a.SessionID)
	if err != nil {
		return uuid.Nil, uuid.Nil, ErrNotSignedIn
	}
	return uid, sid, nil
}

// Passkeys lists the caller's passkeys, oldest first.
func (s *Service) Passkeys(ctx context.Context, a Actor) ([]PasskeyView, error) {
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	if !user.Registered() {
		return nil, ErrUserNotFound
	}
	keys := user.Passkeys()
	out := make([]PasskeyView, len(keys))
	for i, p := range keys {
		out[i] = PasskeyView{ID: p.CredentialID, Name: p.Name, CreatedAt: p.CreatedAt, LastUsedAt: p.LastUsedAt}
	}
	return out, nil
}

// BeginPasskeyRegistration starts adding a passkey to the caller's account: a discoverable
// credential (it names its account at sign-in), with user verification, none of the caller's
// existing passkeys again.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, a Actor) (Ceremony, error) {
	uid, sid, err := actorIDs(a)
	if err != nil {
		return Ceremony{}, err
	}
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return Ceremony{}, err
	}
	if !user.Registered() || user.Status() == identity.StatusClosed {
		return Ceremony{}, ErrUserNotFound
	}
	if len(user.Passkeys()) >= identity.MaxPasskeys {
		return Ceremony{}, identity.ErrPasskeyLimit
	}
	wu := webauthnUser{user}
	return s.begin(ctx, a.Client, passkey.PurposeRegister, uid, sid, func(wa *webauthn.WebAuthn) (any, *webauthn.SessionData, error) {
		creation, data, err := wa.BeginRegistration(wu,
			webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
				ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
				UserVerification: protocol.VerificationRequired,
			}),
			webauthn.WithConveyancePreference(protocol.PreferNoAttestation),
			webauthn.WithExclusions(webauthn.Credentials(wu.WebAuthnCredentials()).CredentialDescriptors()),
		)
		if err != nil {
			return nil, nil, err
		}
		return creation.Response, data, nil
	})
}

// FinishPasskeyRegistration verifies the authenticator's answer and records the passkey under
// the name given.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, a Actor, name string, in PasskeyAnswer) (PasskeyView, int64, error) {
	uid, sid, err := actorIDs(a)
	if err != nil {
		return PasskeyView{}, 0, err
	}
	name, err = identity.NormalizePasskeyName(name)
	if err != nil {
		return PasskeyView{}, 0, err
	}
	wa, data, err := s.take(ctx, a.Client, in.ChallengeID, passkey.PurposeRegister, uid, sid)
	if err != nil {
		return PasskeyView{}, 0, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(in.Credential)
	if err != nil {
		return PasskeyView{}, 0, ErrPasskeyRejected
	}
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return PasskeyView{}, 0, err
	}
	cred, err := wa.CreateCredential(webauthnUser{user}, data, parsed)
	if err != nil {
		s.log.InfoContext(ctx, "accounts: passkey registration refused", "err", err)
		return PasskeyView{}, 0, ErrPasskeyRejected
	}
	transports := make([]string, len(cred.Transport))
	for i, t := range cred.Transport {
		transports[i] = string(t)
	}
	now := s.clock.Now()
	key := identity.Passkey{
		CredentialID: base64.RawURLEncoding.EncodeToString(cred.ID), PublicKey: cred.PublicKey,
		SignCount: cred.Authenticator.SignCount, Transports: transports, Flags: cred.Flags.MsgpByte(),
		AAGUID: cred.Authenticator.AAGUID, Attestation: cred.AttestationType, Name: name,
	}
	pos, err := s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		return user.AddPasskey(key, now)
	})
	if err != nil {
		return PasskeyView{}, 0, err
	}
	return PasskeyView{ID: key.CredentialID, Name: name, CreatedAt: now.UTC()}, pos, nil
}

// RemovePasskey removes one of the caller's passkeys. The API asks for a fresh step-up first.
func (s *Service) RemovePasskey(ctx context.Context, a Actor, credentialID string) (int64, error) {
	return s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		return user.RemovePasskey(credentialID, s.clock.Now())
	})
}

// BeginPasskeyLogin starts a sign-in with a passkey and no e-mail address: the browser offers
// the passkeys it holds for this site, and the one chosen names its account.
func (s *Service) BeginPasskeyLogin(ctx context.Context, c Client) (Ceremony, error) {
	return s.begin(ctx, c, passkey.PurposeLogin, uuid.Nil, uuid.Nil, func(wa *webauthn.WebAuthn) (any, *webauthn.SessionData, error) {
		assertion, data, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
		if err != nil {
			return nil, nil, err
		}
		return assertion.Response, data, nil
	})
}

// LoginWithPasskey finishes a sign-in with a passkey. The passkey with its user verification is
// a strong sign-in on its own, so neither an e-mailed code nor an authenticator code follows; a
// browser not seen before is still recorded, trusted and announced by e-mail, as after any
// complete sign-in. The use is recorded with the authenticator's counter, in the sign-in's
// transaction; a counter that did not advance refuses the sign-in.
func (s *Service) LoginWithPasskey(ctx context.Context, in PasskeyAnswer, c Client) (SignIn, error) {
	wa, data, err := s.take(ctx, c, in.ChallengeID, passkey.PurposeLogin, uuid.Nil, uuid.Nil)
	if err != nil {
		return SignIn{}, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(in.Credential)
	if err != nil {
		return SignIn{}, ErrPasskeyRejected
	}
	var found loaded
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		uid, err := uuid.FromBytes(userHandle)
		if err != nil {
			return nil, ErrPasskeyUnknown
		}
		user, err := s.activeUser(ctx, uid, ErrPasskeyUnknown)
		if err != nil {
			return nil, err
		}
		if _, ok := user.PasskeyByID(base64.RawURLEncoding.EncodeToString(rawID)); !ok {
			return nil, ErrPasskeyUnknown
		}
		found = user
		return webauthnUser{user}, nil
	}
	_, cred, err := wa.ValidatePasskeyLogin(handler, data, parsed)
	if err != nil {
		for _, known := range []error{identity.ErrSuspended, ErrPasskeyUnknown} {
			if errors.Is(err, known) {
				return SignIn{}, known
			}
		}
		if _, _, classified := domainerr.KindOf(err); classified && !isProtocolError(err) {
			return SignIn{}, err
		}
		s.log.InfoContext(ctx, "accounts: passkey sign-in refused", "err", err)
		return SignIn{}, ErrPasskeyRejected
	}
	if cred.Authenticator.CloneWarning {
		return SignIn{}, identity.ErrPasskeyCounter
	}
	uid := uuid.MustParse(found.ID())
	trusted, err := s.devices.IsTrusted(ctx, uid, c.DeviceToken)
	if err != nil {
		return SignIn{}, err
	}
	credentialID := base64.RawURLEncoding.EncodeToString(cred.ID)
	now := s.clock.Now()
	out, err := s.signIn(ctx, found, c, !trusted, func(fresh loaded) error {
		return fresh.UsePasskey(credentialID, cred.Authenticator.SignCount, now)
	}, nil)
	if err != nil {
		return SignIn{}, err
	}
	s.loginSucceeded(ctx, found.ID())
	return out, nil
}

func isProtocolError(err error) bool {
	var pe *protocol.Error
	return errors.As(err, &pe)
}

// BeginPasskeyStepUp starts confirming it's the person with one of their passkeys.
func (s *Service) BeginPasskeyStepUp(ctx context.Context, a Actor) (Ceremony, error) {
	uid, sid, err := actorIDs(a)
	if err != nil {
		return Ceremony{}, err
	}
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return Ceremony{}, err
	}
	if !user.Registered() {
		return Ceremony{}, ErrUserNotFound
	}
	if !user.HasPasskey() {
		return Ceremony{}, ErrPasskeyNone
	}
	return s.begin(ctx, a.Client, passkey.PurposeStepUp, uid, sid, func(wa *webauthn.WebAuthn) (any, *webauthn.SessionData, error) {
		assertion, data, err := wa.BeginLogin(webauthnUser{user}, webauthn.WithUserVerification(protocol.VerificationRequired))
		if err != nil {
			return nil, nil, err
		}
		return assertion.Response, data, nil
	})
}

// stepUpWithPasskey checks a step-up's passkey answer and records the passkey's use.
func (s *Service) stepUpWithPasskey(ctx context.Context, a Actor, in PasskeyAnswer) error {
	uid, sid, err := actorIDs(a)
	if err != nil {
		return err
	}
	wa, data, err := s.take(ctx, a.Client, in.ChallengeID, passkey.PurposeStepUp, uid, sid)
	if err != nil {
		return err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(in.Credential)
	if err != nil {
		return ErrPasskeyRejected
	}
	user, err := s.loadUser(ctx, a.UserID)
	if err != nil {
		return err
	}
	cred, err := wa.ValidateLogin(webauthnUser{user}, data, parsed)
	if err != nil {
		s.log.InfoContext(ctx, "accounts: passkey step-up refused", "err", err)
		s.loginFailed(ctx, a.UserID)
		return ErrPasskeyRejected
	}
	if cred.Authenticator.CloneWarning {
		return identity.ErrPasskeyCounter
	}
	credentialID := base64.RawURLEncoding.EncodeToString(cred.ID)
	now := s.clock.Now()
	_, err = s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		return user.UsePasskey(credentialID, cred.Authenticator.SignCount, now)
	})
	return err
}

// HasSecondFactor reports whether the user can prove more than their password: an
// authenticator app or a passkey. Staff decisions in production need one.
func (s *Service) HasSecondFactor(ctx context.Context, userID string) (bool, error) {
	user, err := s.loadUser(ctx, userID)
	if err != nil {
		return false, err
	}
	return user.HasSecondFactor(), nil
}

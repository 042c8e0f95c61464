// Package passkeytest is a software authenticator for tests: it creates an ECDSA P-256 passkey
// with "none" attestation and signs assertions, answering the options a server's ceremony
// returned as a browser would (the PublicKeyCredential in its JSON form).
package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
)

var b64 = base64.RawURLEncoding

// Authenticator holds one passkey. Counter is the signature counter its next assertion
// reports, plus one; a test may set it back to act as a copied authenticator.
type Authenticator struct {
	Key        *ecdsa.PrivateKey
	ID         []byte
	UserHandle []byte
	Counter    uint32
	// Origin is where the "browser" runs the ceremony, e.g. http://localhost:8080.
	Origin string
}

// New returns an authenticator with a fresh key, for the browser at origin.
func New(origin string) (*Authenticator, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	return &Authenticator{Key: key, ID: id, Origin: origin}, nil
}

// CredentialID is the passkey's id as the server names it (base64url).
func (a *Authenticator) CredentialID() string { return b64.EncodeToString(a.ID) }

type creationOptions struct {
	Challenge string `json:"challenge"`
	RP        struct {
		ID string `json:"id"`
	} `json:"rp"`
	User struct {
		ID string `json:"id"`
	} `json:"user"`
}

type requestOptions struct {
	Challenge string `json:"challenge"`
	RPID      string `json:"rpId"`
}

// Create answers navigator.credentials.create with the server's options (publicKey).
func (a *Authenticator) Create(options map[string]any) (map[string]any, error) {
	var o creationOptions
	if err := remarshal(options, &o); err != nil {
		return nil, err
	}
	uh, err := b64.DecodeString(o.User.ID)
	if err != nil {
		return nil, fmt.Errorf("passkeytest: user id: %w", err)
	}
	a.UserHandle = uh
	cd, err := a.clientData("webauthn.create", o.Challenge)
	if err != nil {
		return nil, err
	}
	x, y := make([]byte, 32), make([]byte, 32)
	a.Key.PublicKey.X.FillBytes(x)
	a.Key.PublicKey.Y.FillBytes(y)
	cose, err := webauthncbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
	if err != nil {
		return nil, err
	}
	auth := a.authData(o.RP.ID, 0x45, a.Counter) // user present, user verified, attested data
	auth = append(auth, make([]byte, 16)...)     // AAGUID
	auth = binary.BigEndian.AppendUint16(auth, uint16(len(a.ID)))
	auth = append(auth, a.ID...)
	auth = append(auth, cose...)
	att, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": auth})
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"id": a.CredentialID(), "rawId": a.CredentialID(), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON": b64.EncodeToString(cd), "attestationObject": b64.EncodeToString(att),
			"transports": []string{"internal"},
		},
	}, nil
}

// Get answers navigator.credentials.get with the server's options (publicKey); each answer
// advances the counter.
func (a *Authenticator) Get(options map[string]any) (map[string]any, error) {
	var o requestOptions
	if err := remarshal(options, &o); err != nil {
		return nil, err
	}
	cd, err := a.clientData("webauthn.get", o.Challenge)
	if err != nil {
		return nil, err
	}
	a.Counter++
	auth := a.authData(o.RPID, 0x05, a.Counter) // user present, user verified
	digest := sha256.Sum256(cd)
	msg := sha256.Sum256(append(append([]byte{}, auth...), digest[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.Key, msg[:])
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"id": a.CredentialID(), "rawId": a.CredentialID(), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(auth),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(a.UserHandle),
		},
	}, nil
}

func (a *Authenticator) clientData(typ, challenge string) ([]byte, error) {
	return json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.Origin, "crossOrigin": false})
}

func (a *Authenticator) authData(rpID string, flags byte, counter uint32) []byte {
	h := sha256.Sum256([]byte(rpID))
	out := append([]byte{}, h[:]...)
	out = append(out, flags)
	return binary.BigEndian.AppendUint32(out, counter)
}

func remarshal(in any, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

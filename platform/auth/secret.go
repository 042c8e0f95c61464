package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// SecretSize is the length of the application secret (CLEARVEST_SECRET_KEY, decoded).
const SecretSize = 32

// DeriveKey derives a 32-byte key for one purpose from the application secret with
// HKDF-SHA256. Each use gets its own info string, so a key leaked or misused in one place (say,
// a token signing key) says nothing about the others, and one secret in the configuration is
// enough for all of them.
func DeriveKey(secret []byte, info string) ([]byte, error) {
	if len(secret) < SecretSize {
		return nil, fmt.Errorf("auth: the secret key has %d bytes, want at least %d", len(secret), SecretSize)
	}
	return hkdf.Key(sha256.New, secret, nil, info, 32)
}

// KeyID names a derived key without revealing it: the first 8 bytes of its SHA-256, in hex.
// Keys are 256-bit random values, so the hash cannot be inverted.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:8])
}

// NewToken returns 32 random bytes, base64url-encoded without padding (43 characters): the
// form of every opaque bearer secret we hand out (refresh tokens, device cookies, links).
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is how an opaque token is stored. A plain SHA-256 is enough because the token has 256
// bits of entropy: unlike a password, there is no dictionary to try, so a slow hash would only
// cost every request time without slowing an attacker down.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// Sealer encrypts small secrets at rest (TOTP seeds) with AES-256-GCM under a key derived from
// the application secret. It seals with the current secret and opens with any secret it was
// given, so the application secret can be rotated without losing what was sealed before; Reseal
// brings a value sealed with a previous secret over to the current one, after which the previous
// secret can be dropped.
//
// A sealed value is: version byte, the 4-byte id of the key (the start of its SHA-256), nonce,
// ciphertext.
type Sealer struct {
	current cipher.AEAD
	currID  [4]byte
	byID    map[[4]byte]cipher.AEAD
	ids     [][]byte // every configured key's id, current first
}

// sealVersion is the first byte of every sealed value, so the format can change later.
const sealVersion = 1

// ErrUnseal means a sealed value could not be opened: corrupt, sealed for another record (the
// additional data differs), or sealed with a secret that is no longer configured.
var ErrUnseal = errors.New("auth: cannot open sealed value")

// NewSealer derives one key per secret for info. The first secret is the current one.
func NewSealer(info string, current []byte, previous ...[]byte) (*Sealer, error) {
	s := &Sealer{byID: map[[4]byte]cipher.AEAD{}}
	for i, secret := range append([][]byte{current}, previous...) {
		key, err := DeriveKey(secret, info)
		if err != nil {
			return nil, err
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(key)
		id := [4]byte(sum[:4])
		if i == 0 {
			s.current, s.currID = aead, id
		}
		if _, dup := s.byID[id]; !dup {
			s.byID[id] = aead
			s.ids = append(s.ids, id[:])
		}
	}
	return s, nil
}

// KeyIDs returns the ids of the configured secrets' keys, current first, as they appear in
// sealed values (bytes 1 to 4), so that a table can be searched for values no configured secret
// opens.
func (s *Sealer) KeyIDs() [][]byte { return s.ids }

// SealedWithCurrent reports whether sealed names the current secret's key: Reseal would not
// change it.
func (s *Sealer) SealedWithCurrent(sealed []byte) bool {
	return len(sealed) > 5 && sealed[0] == sealVersion && [4]byte(sealed[1:5]) == s.currID
}

// Reseal opens sealed with whichever configured secret sealed it and seals it again with the
// current one. A value already sealed with the current secret is returned unchanged.
func (s *Sealer) Reseal(sealed, aad []byte) ([]byte, error) {
	if s.SealedWithCurrent(sealed) {
		return sealed, nil
	}
	plain, err := s.Open(sealed, aad)
	if err != nil {
		return nil, err
	}
	return s.Seal(plain, aad), nil
}

// Seal encrypts plaintext. aad binds the result to its record (e.g. the user id), so a sealed
// value copied into another user's row does not open there.
func (s *Sealer) Seal(plaintext, aad []byte) []byte {
	nonce := make([]byte, s.current.NonceSize())
	_, _ = rand.Read(nonce)
	out := make([]byte, 0, 1+len(s.currID)+len(nonce)+len(plaintext)+s.current.Overhead())
	out = append(out, sealVersion)
	out = append(out, s.currID[:]...)
	out = append(out, nonce...)
	return s.current.Seal(out, nonce, plaintext, aad)
}

// Open decrypts what Seal produced, with whichever configured secret sealed it.
func (s *Sealer) Open(sealed, aad []byte) ([]byte, error) {
	const header = 1 + 4
	if len(sealed) < header || sealed[0] != sealVersion {
		return nil, ErrUnseal
	}
	aead, ok := s.byID[[4]byte(sealed[1:header])]
	if !ok || len(sealed) < header+aead.NonceSize()+aead.Overhead() {
		return nil, ErrUnseal
	}
	nonce := sealed[header : header+aead.NonceSize()]
	plain, err := aead.Open(nil, nonce, sealed[header+aead.NonceSize():], aad)
	if err != nil {
		return nil, ErrUnseal
	}
	return plain, nil
}

// Package password hashes, verifies and vets passwords.
//
// Hashes are argon2id with the OWASP minimum (m=19 MiB, t=2, p=1), stored as PHC strings so the
// parameters travel with each hash and can be raised later: NeedsRehash tells the login flow to
// re-hash with the current ones while it still holds the plaintext.
package password

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are the argon2id cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen uint32
	KeyLen  uint32
}

// DefaultParams are OWASP's minimum for argon2id. They cost about 19 MiB and a few tens of
// milliseconds per hash: slow for an attacker with a stolen table, cheap enough for a login.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Limits on parameters read back from a stored hash. A corrupted or planted row must not make a
// login allocate gigabytes or spin for minutes.
const (
	maxMemory  = 256 * 1024
	maxTime    = 16
	maxThreads = 16
	maxKeyLen  = 64
	maxSaltLen = 64
)

// ErrMalformedHash means a stored hash is not an argon2id PHC string we can check. It is an
// internal error: the row is damaged, not the user's password wrong.
var ErrMalformedHash = errors.New("password: malformed argon2id hash")

// Hasher hashes and verifies passwords with a cap on how many run at once. Each hash holds its
// memory cost for its whole run, so without the cap a flood of login attempts would exhaust the
// machine's memory; with it, excess requests queue (and give up when their context ends).
type Hasher struct {
	params Params
	slots  chan struct{}
}

// NewHasher returns a hasher with params that runs at most concurrency hashes at once;
// concurrency <= 0 means twice GOMAXPROCS (argon2 is CPU-bound, so more would only add memory).
func NewHasher(params Params, concurrency int) *Hasher {
	if concurrency <= 0 {
		concurrency = 2 * runtime.GOMAXPROCS(0)
	}
	return &Hasher{params: params, slots: make(chan struct{}, concurrency)}
}

// Params returns the parameters new hashes use.
func (h *Hasher) Params() Params { return h.params }

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Hasher) release() { <-h.slots }

// Hash returns the PHC string of password under fresh random salt.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	_, _ = rand.Read(salt)
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, h.params.Time, h.params.Memory, h.params.Threads, h.params.KeyLen)
	h.release()
	return encode(h.params, salt, key), nil
}

// Verify reports whether password matches the stored hash. A wrong password is (false, nil);
// an error means the hash could not be checked or the context ended while waiting.
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (bool, error) {
	p, salt, want, err := decode(encoded)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	h.release()
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// DummyVerify spends what Verify spends, for a login whose account does not exist (or has no
// password). Without it, "no such user" would answer in microseconds and "wrong password" in
// tens of milliseconds, telling an attacker which e-mail addresses are registered.
func (h *Hasher) DummyVerify(ctx context.Context, password string) error {
	// The salt is fixed and the result thrown away: only the cost matters.
	if err := h.acquire(ctx); err != nil {
		return err
	}
	_ = argon2.IDKey([]byte(password), make([]byte, h.params.SaltLen), h.params.Time, h.params.Memory, h.params.Threads, h.params.KeyLen)
	h.release()
	return nil
}

// NeedsRehash reports whether a stored hash should be replaced by one with the current
// parameters (or is not one we can read at all).
func (h *Hasher) NeedsRehash(encoded string) bool {
	p, salt, _, err := decode(encoded)
	if err != nil {
		return true
	}
	return p.Memory != h.params.Memory || p.Time != h.params.Time || p.Threads != h.params.Threads ||
		p.KeyLen != h.params.KeyLen || uint32(len(salt)) != h.params.SaltLen
}

// encode writes the PHC string format: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>, with
// unpadded standard base64, as the reference implementation and other libraries do.
func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

func decode(encoded string) (Params, []byte, []byte, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return Params{}, nil, nil, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return Params{}, nil, nil, ErrMalformedHash
	}
	var p Params
	var m, t, threads uint64
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &threads); err != nil || n != 3 ||
		m < 8 || m > maxMemory || t < 1 || t > maxTime || threads < 1 || threads > maxThreads ||
		fmt.Sprintf("m=%d,t=%d,p=%d", m, t, threads) != parts[3] {
		return Params{}, nil, nil, ErrMalformedHash
	}
	p.Memory, p.Time, p.Threads = uint32(m), uint32(t), uint8(threads)
	salt, err := base64.RawStdEncoding.Strict().DecodeString(parts[4])
	if err != nil || len(salt) < 8 || len(salt) > maxSaltLen {
		return Params{}, nil, nil, ErrMalformedHash
	}
	key, err := base64.RawStdEncoding.Strict().DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > maxKeyLen {
		return Params{}, nil, nil, ErrMalformedHash
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}

// Package pii encrypts personal fields of events with one key per data subject, so that a person's
// data can be erased from an append-only log by destroying their key (crypto-shredding, docs/product-rules.md).
//
// Each subject (a user id) gets a random 256-bit data key on the first Seal. Keys live in the
// pii_keys table sealed with a key-encryption key (KEK) derived from CLEARVEST_SECRET_KEY, so a
// copy of the database alone reads nothing. Keys sealed with a previous secret still open
// (WithPreviousSecrets), and Rotate seals them all with the current one (keyring.go). Fields are
// sealed with AES-256-GCM and stored as "pii:v1:<base64(nonce|ciphertext)>". Erase destroys the
// key: every field sealed with it then decodes as eventstore.ErasedValue, and the events, with
// the money history they carry, stay. Subjects are user ids in canonical form (Subject).
//
// A Cipher is an eventstore.FieldCipher; install it with Registry.SetCipher.
package pii

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the pii_keys table.
var Migrations = pgmigrate.MustFromFS("pii", migrationFS, "migrations")

// kekInfo binds the derived key to this one use of the secret: the same secret feeds other
// derivations (access tokens), and those keys must be unrelated.
const kekInfo = "clearvest pii kek v1"

// fieldPrefix marks the field format; a later format gets a new version, and old values stay
// readable by the code that knows this one.
const fieldPrefix = eventstore.SealedPrefix + "v1:"

const (
	dataKeySize      = 32
	defaultCacheTTL  = 5 * time.Minute
	defaultTimeout   = 10 * time.Second
	defaultCacheSize = 100_000
)

var (
	// ErrNoKey means a sealed field names a subject that never had a key here: the database is
	// not the one the events were written with, or it lost rows. It is never read as erased.
	ErrNoKey = errors.New("pii: no data key for this subject")
	// ErrWrongSecret means a data key cannot be unsealed: CLEARVEST_SECRET_KEY is not the one the
	// keys were made with.
	ErrWrongSecret = errors.New("pii: cannot unseal a data key: CLEARVEST_SECRET_KEY differs from the one the keys were made with")
	// ErrBadSubject means the subject is not a user id. Subjects are UUIDs, and every entry point
	// reduces them to the one canonical spelling (lower case, hyphenated), so that "{…}",
	// upper-case or urn:uuid: forms of an id reach the same key instead of making or erasing
	// another one.
	ErrBadSubject = errors.New("pii: a data subject must be a user id (a UUID)")
)

// Subject returns the canonical form of a data subject's id, or ErrBadSubject.
func Subject(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", fmt.Errorf("%w: %.80q", ErrBadSubject, id)
	}
	return u.String(), nil
}

// Cipher seals and opens personal fields. It is safe for concurrent use.
type Cipher struct {
	pool      *pgxpool.Pool
	kek       *keyring
	previous  [][]byte // previous secrets, until New has made the keyring
	cacheTTL  time.Duration
	timeout   time.Duration
	cacheSize int
	now       func() time.Time

	mu    sync.Mutex
	cache map[string]cachedKey
}

type cachedKey struct {
	aead   cipher.AEAD // nil when erased
	erased bool
	until  time.Time
}

var _ eventstore.FieldCipher = (*Cipher)(nil)

// Option configures a Cipher.
type Option func(*Cipher)

// WithCacheTTL sets how long a data key is kept in memory (default 5 minutes). It bounds how long
// another process may go on reading a subject after Erase: erasure in this process is immediate,
// but other processes learn of it only when their cached key expires.
func WithCacheTTL(d time.Duration) Option { return func(c *Cipher) { c.cacheTTL = d } }

// WithTimeout bounds each key lookup (default 10s). FieldCipher has no context parameter, because
// the codec it plugs into has none, so the bound is set here.
func WithTimeout(d time.Duration) Option { return func(c *Cipher) { c.timeout = d } }

// WithPreviousSecrets lets the cipher open data keys sealed with earlier values of
// CLEARVEST_SECRET_KEY (CLEARVEST_SECRET_KEY_PREVIOUS); new keys are sealed with the current
// one, and Rotate seals the old ones again.
func WithPreviousSecrets(secrets ...[]byte) Option {
	return func(c *Cipher) { c.previous = append(c.previous, secrets...) }
}

// New returns a cipher whose keys live in pool's pii_keys table (Migrations) and are sealed with
// a key derived from secret, the decoded CLEARVEST_SECRET_KEY.
func New(pool *pgxpool.Pool, secret []byte, opts ...Option) (*Cipher, error) {
	c := &Cipher{
		pool: pool, cacheTTL: defaultCacheTTL, timeout: defaultTimeout,
		cacheSize: defaultCacheSize, now: time.Now, cache: map[string]cachedKey{},
	}
	for _, o := range opts {
		o(c)
	}
	kek, err := newKeyring(secret, c.previous...)
	if err != nil {
		return nil, err
	}
	c.kek, c.previous = kek, nil
	return c, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("pii: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("pii: %w", err)
	}
	return aead, nil
}

// Seal encrypts plaintext with subject's data key, creating the key on first use, as text that
// fits a JSON field. It fails with eventstore.ErrErased for an erased subject: new personal data
// must not outlive an erasure.
func (c *Cipher) Seal(subject, plaintext string) (string, error) {
	out, err := c.SealBytes(subject, []byte(plaintext))
	if err != nil {
		return "", err
	}
	return fieldPrefix + base64.StdEncoding.EncodeToString(out), nil
}

// Open decrypts a value made by Seal. It fails with eventstore.ErrErased when the subject's key
// was destroyed, and with another error for a missing key, a wrong secret or a damaged value.
func (c *Cipher) Open(subject, sealed string) (string, error) {
	enc, ok := strings.CutPrefix(sealed, fieldPrefix)
	if !ok {
		return "", fmt.Errorf("pii: unknown sealed field format %.10q", sealed)
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", fmt.Errorf("pii: sealed field of %q is not base64: %w", subject, err)
	}
	plain, err := c.OpenBytes(subject, raw)
	return string(plain), err
}

// SealBytes is Seal without the text encoding: the nonce and the ciphertext as bytes, for values
// kept in binary columns (snapshots' states), where base64 cost a third more space and time.
func (c *Cipher) SealBytes(subject string, plaintext []byte) ([]byte, error) {
	subject, err := Subject(subject)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	aead, err := c.key(ctx, subject, true)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("pii: nonce: %w", err)
	}
	// The subject is authenticated with the value, so a field copied into another subject's
	// event does not open there.
	return aead.Seal(nonce, nonce, plaintext, []byte(subject)), nil
}

// OpenBytes decrypts a value made by SealBytes, failing as Open does.
func (c *Cipher) OpenBytes(subject string, sealed []byte) ([]byte, error) {
	subject, err := Subject(subject)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	aead, err := c.key(ctx, subject, false)
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("pii: sealed field of %q is truncated", subject)
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(subject))
	if err != nil {
		return nil, fmt.Errorf("pii: sealed field of %q does not open with its key: %w", subject, err)
	}
	return plain, nil
}

// Erase destroys subject's data key, so everything sealed for the subject reads as erased from
// now on, in this process at once and in others when their cache expires (WithCacheTTL). Erasing
// a subject that has no key yet still leaves the tombstone, so no key can be made later. Erase is
// idempotent.
func (c *Cipher) Erase(ctx context.Context, subject string) error {
	subject, err := Subject(subject)
	if err != nil {
		return err
	}
	if _, err := c.pool.Exec(ctx, eraseSQL, subject); err != nil {
		return fmt.Errorf("pii: erase %q: %w", subject, err)
	}
	c.remember(subject, cachedKey{erased: true})
	return nil
}

// EraseStatement is Erase as a statement and its arguments, for the command that closes an
// account, so that the key is destroyed with its event in one round trip; Erase after its
// commit makes this process forget the key.
func (c *Cipher) EraseStatement(subject string) (string, []any, error) {
	subject, err := Subject(subject)
	if err != nil {
		return "", nil, err
	}
	return eraseSQL, []any{subject}, nil
}

// KeyGoneConstraint is what the violation of ClaimStatement's statement names when the key was
// swept or erased before the subject's first events committed.
const KeyGoneConstraint = "pii_key_gone"

// ClaimStatement records, with a subject's first events, that the subject's key is in use (the
// statement of migration 0002, for a registration that sends its events and its other writes
// in one round trip). Keys are made before that round trip (Seal works on its own connection),
// so until it commits a key has no stream and looks like an orphan to Tidy. The claim refreshes
// the key's created_at: a sweep that reaches the row while the round trip runs waits for it,
// then sees a fresh key and leaves it; a sweep that came first makes the claim fail with a
// check violation of KeyGoneConstraint, and the events are not stored sealed with a key that
// is gone.
func (c *Cipher) ClaimStatement(subject string) (string, []any, error) {
	subject, err := Subject(subject)
	if err != nil {
		return "", nil, err
	}
	return `SELECT pii_claim_key($1)`, []any{subject}, nil
}

// Discard deletes subject's key when no stream has the subject as its id: the failure path of
// a registration whose events did not commit. Keys in use and tombstones are left alone.
func (c *Cipher) Discard(ctx context.Context, subject string) error {
	subject, err := Subject(subject)
	if err != nil {
		return err
	}
	if _, err := c.pool.Exec(ctx, `DELETE FROM pii_keys k WHERE k.subject_id = $1 AND k.key_sealed IS NOT NULL AND `+noStream, subject); err != nil {
		return fmt.Errorf("pii: discard the key of %q: %w", subject, err)
	}
	c.forget(subject)
	return nil
}

// noStream holds for a pii_keys row k whose subject is the id of no stream (<category>-<id>) of
// the event store: nothing was ever sealed with its key.
const noStream = `NOT EXISTS (SELECT 1 FROM streams s WHERE substr(s.stream_id, strpos(s.stream_id, '-') + 1) = k.subject_id)`

// Tidied is what Tidy did.
type Tidied struct {
	// Orphans is how many keys without any stream it deleted.
	Orphans int64
	// Respelled is how many tombstones under a non-canonical spelling of an id it moved to the
	// canonical one, erasing the key that an erasure under that spelling had missed.
	Respelled int
}

// Tidy repairs and trims the key table; it is safe to run at any time, from several processes.
//
// It deletes keys older than orphanAge that belong to no stream: keys made for a registration
// whose events never committed (the process died, or the failure path could not Discard). A
// registration in flight keeps its key through ClaimStatement, and orphanAge should be far longer than
// any registration takes. It also finishes erasures made before ids were canonicalised: a
// tombstone under "{id}", an upper-case or urn:uuid: spelling erased nothing, so the key of the
// canonical id is erased now and the stray tombstone removed.
func (c *Cipher) Tidy(ctx context.Context, orphanAge time.Duration) (Tidied, error) {
	var out Tidied
	rows, err := c.pool.Query(ctx, `SELECT subject_id FROM pii_keys WHERE key_sealed IS NULL AND subject_id !~ $1`, canonicalPattern)
	if err != nil {
		return out, fmt.Errorf("pii: tidy: %w", err)
	}
	stray, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return out, fmt.Errorf("pii: tidy: %w", err)
	}
	for _, s := range stray {
		id, err := Subject(s)
		if err != nil {
			continue // not an id at all: nobody's key, and a tombstone harms nothing
		}
		err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, eraseSQL, id); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `DELETE FROM pii_keys WHERE subject_id = $1`, s)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("pii: tidy: finish the erasure of %q: %w", s, err)
		}
		c.remember(id, cachedKey{erased: true})
		out.Respelled++
	}
	tag, err := c.pool.Exec(ctx, `DELETE FROM pii_keys k WHERE k.key_sealed IS NOT NULL AND k.created_at < now() - make_interval(secs => $1) AND `+noStream,
		orphanAge.Seconds())
	if err != nil {
		return out, fmt.Errorf("pii: tidy: delete orphan keys: %w", err)
	}
	out.Orphans = tag.RowsAffected()
	return out, nil
}

// canonicalPattern matches the canonical spelling of a UUID (Subject's output).
const canonicalPattern = `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`

func (c *Cipher) forget(subject string) {
	c.mu.Lock()
	delete(c.cache, subject)
	c.mu.Unlock()
}

// eraseSQL destroys a subject's key and leaves the tombstone.
const eraseSQL = `INSERT INTO pii_keys (subject_id, key_sealed, erased_at) VALUES ($1, NULL, now())
	ON CONFLICT (subject_id) DO UPDATE SET key_sealed = NULL, erased_at = coalesce(pii_keys.erased_at, now())`

// key returns subject's data key, from the cache or the table, creating it when create is set.
func (c *Cipher) key(ctx context.Context, subject string, create bool) (cipher.AEAD, error) {
	subject, err := Subject(subject)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	k, ok := c.cache[subject]
	c.mu.Unlock()
	switch {
	case ok && k.erased:
		// Erasure is final, so knowing it never goes stale.
		return nil, eventstore.ErrErased
	case ok && c.now().Before(k.until):
		return k.aead, nil
	}

	sealed, found, err := c.load(ctx, subject)
	if err != nil {
		return nil, err
	}
	if !found && create {
		if err := c.create(ctx, subject); err != nil {
			return nil, err
		}
		// Read back rather than use the key just made: a concurrent Seal in another process may
		// have won the insert, and everyone must use the stored key.
		if sealed, found, err = c.load(ctx, subject); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, fmt.Errorf("%w %q", ErrNoKey, subject)
	}
	if sealed == nil {
		c.remember(subject, cachedKey{erased: true})
		return nil, eventstore.ErrErased
	}
	aead, err := c.unsealKey(subject, sealed)
	if err != nil {
		return nil, err
	}
	c.remember(subject, cachedKey{aead: aead, until: c.now().Add(c.cacheTTL)})
	return aead, nil
}

// load returns the sealed key (nil when erased) and whether the subject has a row at all.
func (c *Cipher) load(ctx context.Context, subject string) ([]byte, bool, error) {
	var sealed []byte
	err := c.pool.QueryRow(ctx, `SELECT key_sealed FROM pii_keys WHERE subject_id = $1`, subject).Scan(&sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("pii: load key of %q: %w", subject, err)
	}
	return sealed, true, nil
}

func (c *Cipher) create(ctx context.Context, subject string) error {
	key := make([]byte, dataKeySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("pii: new key: %w", err)
	}
	if _, err := c.pool.Exec(ctx, `INSERT INTO pii_keys (subject_id, key_sealed) VALUES ($1, $2) ON CONFLICT (subject_id) DO NOTHING`,
		subject, c.kek.wrap(subject, key)); err != nil {
		return fmt.Errorf("pii: store key of %q: %w", subject, err)
	}
	return nil
}

func (c *Cipher) unsealKey(subject string, sealed []byte) (cipher.AEAD, error) {
	key, err := c.kek.unwrap(subject, sealed)
	if err != nil {
		return nil, err
	}
	return newAEAD(key)
}

// keyAAD binds a sealed key to its row: a key copied onto another subject's row does not unseal.
func keyAAD(subject string) []byte { return []byte("clearvest pii key:" + subject) }

func (c *Cipher) remember(subject string, k cachedKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cache[subject]; !ok && len(c.cache) >= c.cacheSize {
		// Any entry will do: a missed key costs one query, and a bound keeps a rebuild over
		// millions of users from holding every key in memory.
		for s := range c.cache {
			delete(c.cache, s)
			break
		}
	}
	c.cache[subject] = k
}

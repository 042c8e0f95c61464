package pii_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/pii"
)

// storeV1Key writes a data key the way keys were stored before secrets could rotate (format 1:
// nonce and ciphertext, no record of the secret), and returns a value sealed with it as Seal
// would have.
func storeV1Key(t *testing.T, pool *pgxpool.Pool, secret []byte, subject, plain string) string {
	t.Helper()
	kek, err := hkdf.Key(sha256.New, secret, nil, "clearvest pii kek v1", 32)
	if err != nil {
		t.Fatal(err)
	}
	aead := gcm(t, kek)
	key := make([]byte, 32)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(key)
	_, _ = rand.Read(nonce)
	sealed := aead.Seal(append([]byte{1}, nonce...), nonce, key, []byte("clearvest pii key:"+subject))
	if _, err := pool.Exec(context.Background(), `INSERT INTO pii_keys (subject_id, key_sealed) VALUES ($1, $2)`, subject, sealed); err != nil {
		t.Fatal(err)
	}
	// A field sealed with that key, in Seal's format, read back through the cipher below.
	field := gcm(t, key)
	fn := make([]byte, field.NonceSize())
	_, _ = rand.Read(fn)
	return "pii:v1:" + base64.StdEncoding.EncodeToString(field.Seal(fn, fn, []byte(plain), []byte(subject)))
}

func gcm(t *testing.T, key []byte) cipher.AEAD {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return aead
}

// TestRotation changes the secret from A to B: with A as a previous secret everything still
// opens, Rotate seals every key with B, and then B alone opens everything.
func TestRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	secretA, secretB := bytes.Repeat([]byte{0xA}, 32), bytes.Repeat([]byte{0xB}, 32)
	const (
		s1, s2, s3 = "0191f3a0-0000-7000-8000-0000000000f1", "0191f3a0-0000-7000-8000-0000000000f2", "0191f3a0-0000-7000-8000-0000000000f3"
		s4, gone   = "0191f3a0-0000-7000-8000-0000000000f4", "0191f3a0-0000-7000-8000-0000000000f5"
	)
	underA := newCipher(t, pool, secretA)
	sealed := map[string]string{}
	for _, s := range []string{s1, s2} {
		v, err := underA.Seal(s, "data of "+s)
		if err != nil {
			t.Fatal(err)
		}
		sealed[s] = v
	}
	sealed[s3] = storeV1Key(t, pool, secretA, s3, "data of "+s3)
	if err := underA.Erase(ctx, gone); err != nil {
		t.Fatal(err)
	}

	// B alone: refused at start, and nothing opens.
	onlyB := newCipher(t, pool, secretB)
	if err := onlyB.CheckSecret(ctx); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("CheckSecret with only the new secret = %v, want ErrWrongSecret", err)
	}
	if _, err := onlyB.Open(s1, sealed[s1]); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("Open with only the new secret = %v, want ErrWrongSecret", err)
	}

	// B with A as previous: everything opens, new keys are sealed with B.
	rotating := newCipher(t, pool, secretB, pii.WithPreviousSecrets(secretA))
	if err := rotating.CheckSecret(ctx); err != nil {
		t.Fatalf("CheckSecret with the previous secret configured: %v", err)
	}
	v4, err := rotating.Seal(s4, "data of "+s4)
	if err != nil {
		t.Fatal(err)
	}
	sealed[s4] = v4
	for s, v := range sealed {
		if got, err := rotating.Open(s, v); err != nil || got != "data of "+s {
			t.Errorf("Open(%s) during rotation = %q, %v", s, got, err)
		}
	}

	got, err := rotating.Rotate(ctx)
	if err != nil || got != (pii.Rotated{Resealed: 3, Current: 1}) {
		t.Fatalf("Rotate = %+v, %v; want 3 keys resealed (one of the old format) and 1 current", got, err)
	}
	if got, err := rotating.Rotate(ctx); err != nil || got != (pii.Rotated{Current: 4}) {
		t.Errorf("a second Rotate = %+v, %v; want nothing to do", got, err)
	}

	// B alone now opens everything; A alone opens nothing any more.
	onlyB = newCipher(t, pool, secretB)
	if err := onlyB.CheckSecret(ctx); err != nil {
		t.Errorf("CheckSecret after Rotate with only the new secret: %v", err)
	}
	for s, v := range sealed {
		if got, err := onlyB.Open(s, v); err != nil || got != "data of "+s {
			t.Errorf("Open(%s) after Rotate = %q, %v", s, got, err)
		}
	}
	if _, err := newCipher(t, pool, secretB).Open(gone, "pii:v1:AAAA"); !errors.Is(err, eventstore.ErrErased) {
		t.Errorf("an erased subject after Rotate: %v, want ErrErased", err)
	}
	if err := newCipher(t, pool, secretA).CheckSecret(ctx); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("CheckSecret with only the old secret after Rotate = %v, want ErrWrongSecret", err)
	}
	// Rotating without the secret a key needs stops with ErrWrongSecret.
	if _, err := newCipher(t, pool, bytes.Repeat([]byte{0xC}, 32)).Rotate(ctx); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("Rotate with an unrelated secret = %v, want ErrWrongSecret", err)
	}
}

// TestLegacyKeysOpen: keys stored before secrets could rotate open with the secret they were
// made with, and CheckSecret tries them.
func TestLegacyKeysOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	const s = "0191f3a0-0000-7000-8000-0000000000f9"
	v := storeV1Key(t, pool, secret, s, "ada@example.com")
	c := newCipher(t, pool, secret)
	if err := c.CheckSecret(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Open(s, v); err != nil || got != "ada@example.com" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if err := newCipher(t, pool, bytes.Repeat([]byte{8}, 32)).CheckSecret(ctx); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("CheckSecret with another secret = %v, want ErrWrongSecret", err)
	}
}

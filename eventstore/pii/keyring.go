package pii

import (
	"context"
	"crypto/cipher"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"clearvest/platform/auth"
)

// Data keys are sealed with a key-encryption key (KEK) derived from the application secret
// (CLEARVEST_SECRET_KEY). Two formats exist, told apart by the first byte of key_sealed:
//
//	1  nonce | ciphertext               sealed with the KEK of some secret, which is not recorded
//	2  an auth.Sealer value             version | id of the KEK | nonce | ciphertext
//
// New keys are written in format 2 with the current secret's KEK. Format 1 is what keys were
// before secrets could rotate; it still opens with any configured secret, and Rotate rewrites
// it. Recording the KEK's id is what lets CheckSecret tell, without trying every key, that a
// secret still needed was removed from the configuration.
const (
	keyFormatV1 byte = 1
	keyFormatV2 byte = 2
)

// keyring holds the KEKs of the current secret and the previous ones.
type keyring struct {
	sealer *auth.Sealer  // format 2
	v1     []cipher.AEAD // format 1: one AEAD per secret, current first
}

func newKeyring(current []byte, previous ...[]byte) (*keyring, error) {
	k := &keyring{}
	var err error
	if k.sealer, err = auth.NewSealer(kekInfo, current, previous...); err != nil {
		return nil, fmt.Errorf("pii: %w", err)
	}
	for _, secret := range append([][]byte{current}, previous...) {
		kek, err := auth.DeriveKey(secret, kekInfo)
		if err != nil {
			return nil, fmt.Errorf("pii: %w", err)
		}
		aead, err := newAEAD(kek)
		if err != nil {
			return nil, err
		}
		k.v1 = append(k.v1, aead)
	}
	return k, nil
}

// wrap seals a data key for subject with the current secret.
func (k *keyring) wrap(subject string, key []byte) []byte {
	return append([]byte{keyFormatV2}, k.sealer.Seal(key, keyAAD(subject))...)
}

// unwrap opens a sealed data key with whichever configured secret sealed it.
func (k *keyring) unwrap(subject string, sealed []byte) ([]byte, error) {
	switch {
	case len(sealed) > 0 && sealed[0] == keyFormatV2:
		key, err := k.sealer.Open(sealed[1:], keyAAD(subject))
		if err != nil {
			return nil, fmt.Errorf("%w (subject %q)", ErrWrongSecret, subject)
		}
		return key, nil
	case len(sealed) > 0 && sealed[0] == keyFormatV1:
		for _, aead := range k.v1 {
			n := aead.NonceSize()
			if len(sealed) < 1+n+aead.Overhead() {
				break
			}
			if key, err := aead.Open(nil, sealed[1:1+n], sealed[1+n:], keyAAD(subject)); err == nil {
				return key, nil
			}
		}
		return nil, fmt.Errorf("%w (subject %q)", ErrWrongSecret, subject)
	}
	return nil, fmt.Errorf("pii: the data key of %q has an unknown format", subject)
}

// current reports whether a sealed data key is sealed with the current secret already.
func (k *keyring) current(sealed []byte) bool {
	return len(sealed) > 0 && sealed[0] == keyFormatV2 && k.sealer.SealedWithCurrent(sealed[1:])
}

// CheckSecret makes start-up fail with ErrWrongSecret, instead of the first read of someone's
// personal data later, when a secret that stored keys need is not configured: when
// CLEARVEST_SECRET_KEY was changed without keeping the old value in
// CLEARVEST_SECRET_KEY_PREVIOUS, or the old value was removed before Rotate ran. An empty table
// passes.
func (c *Cipher) CheckSecret(ctx context.Context) error {
	var unknown int
	if err := c.pool.QueryRow(ctx, `SELECT count(*) FROM pii_keys
		WHERE key_sealed IS NOT NULL AND get_byte(key_sealed, 0) = $1 AND substring(key_sealed FROM 3 FOR 4) <> ALL($2::bytea[])`,
		int(keyFormatV2), c.kek.sealer.KeyIDs()).Scan(&unknown); err != nil {
		return fmt.Errorf("pii: check secret: %w", err)
	}
	if unknown > 0 {
		return fmt.Errorf("%w: %d data keys are sealed with a secret key that is not configured; put the old key in CLEARVEST_SECRET_KEY_PREVIOUS until `clearvest keys rotate` has run",
			ErrWrongSecret, unknown)
	}
	// Keys of format 1 do not say which secret sealed them: one is tried with every secret.
	var subject string
	var sealed []byte
	err := c.pool.QueryRow(ctx, `SELECT subject_id, key_sealed FROM pii_keys
		WHERE key_sealed IS NOT NULL AND get_byte(key_sealed, 0) <> $1 LIMIT 1`, int(keyFormatV2)).Scan(&subject, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pii: check secret: %w", err)
	}
	_, err = c.kek.unwrap(subject, sealed)
	return err
}

// Rotated is what Rotate did.
type Rotated struct {
	Resealed int // data keys sealed again with the current secret
	Current  int // data keys that were sealed with it already
}

// rotateBatch bounds the rows one query of Rotate reads.
const rotateBatch = 1000

// Rotate seals every data key with the current secret, opening it with whichever configured
// secret sealed it. Afterwards no key needs a previous secret, and it can be removed from the
// configuration. Rotate may run while other processes use the keys (a key is the same key
// whatever seals it, and each row is replaced only if it did not change meanwhile, so an erasure
// that comes in between stays) and may run again: keys already current are left alone. A key
// that no configured secret opens stops it with ErrWrongSecret; pages done so far stay done.
func (c *Cipher) Rotate(ctx context.Context) (Rotated, error) {
	var out Rotated
	for after := ""; ; {
		rows, err := c.pool.Query(ctx, `SELECT subject_id, key_sealed FROM pii_keys
			WHERE key_sealed IS NOT NULL AND subject_id > $1 ORDER BY subject_id LIMIT $2`, after, rotateBatch)
		if err != nil {
			return out, fmt.Errorf("pii: rotate: %w", err)
		}
		type row struct {
			subject string
			sealed  []byte
		}
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.subject, &x.sealed)
		})
		if err != nil {
			return out, fmt.Errorf("pii: rotate: %w", err)
		}
		var subjects []string
		var old, next [][]byte
		for _, r := range batch {
			after = r.subject
			if c.kek.current(r.sealed) {
				out.Current++
				continue
			}
			key, err := c.kek.unwrap(r.subject, r.sealed)
			if err != nil {
				return out, err
			}
			subjects, old, next = append(subjects, r.subject), append(old, r.sealed), append(next, c.kek.wrap(r.subject, key))
		}
		if len(subjects) > 0 {
			// One statement per page: the compare with the old value keeps a row that changed
			// since it was read (erased, or rotated by another run) as it now is.
			tag, err := c.pool.Exec(ctx, `UPDATE pii_keys k SET key_sealed = u.next
				FROM unnest($1::text[], $2::bytea[], $3::bytea[]) AS u(subject_id, old, next)
				WHERE k.subject_id = u.subject_id AND k.key_sealed = u.old`, subjects, old, next)
			if err != nil {
				return out, fmt.Errorf("pii: rotate: %w", err)
			}
			out.Resealed += int(tag.RowsAffected())
		}
		if len(batch) < rotateBatch {
			return out, nil
		}
	}
}

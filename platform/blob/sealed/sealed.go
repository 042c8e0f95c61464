// Package sealed keeps files encrypted at rest in a blob.Store, each under a random key of its
// own that is wrapped by the key of the person the file is about (the data subject). Destroying
// that person's key, as closing an account does, makes every file of theirs unreadable without
// touching the files: crypto-shredding, the same erasure the event store's personal fields get.
//
// Content is streamed both ways: a 10 MiB identity document never sits whole in memory, only one
// 64 KiB package of it at a time.
//
// # File format (version 1)
//
//	magic     "CVSF" (4 bytes)
//	version   1 (1 byte)
//	length    of the wrapped key, big-endian (2 bytes, at most 4096)
//	wrapped   Keys.Seal(subject, base64(file key)), the file key being 32 random bytes
//	body      DARE 2.0 stream (github.com/minio/sio), AES-256-GCM only: packages of 64 KiB of
//	          plaintext, each with a sequence number and the last with a final flag, so a
//	          package that is altered, reordered, dropped or cut off fails authentication
//
// The body's plaintext is one marker byte (0x01) followed by the content. sio writes nothing for
// empty input, and a file cut back to its header would then pass for an empty one; with the
// marker every body ends in a final package, so that truncation is detected as well.
//
// The body is encrypted not with the file key itself but with
// HKDF-SHA256(file key, info = "clearvest sealed v1", 0, blob key, 0, wrapped key). sio has no
// associated data, so this is how the blob key is bound to the content: a file copied or renamed
// under another key derives another key and fails authentication. The subject is bound by the
// wrapping: Keys must authenticate the subject with the wrapped key (pii.Cipher uses it as
// AES-GCM associated data), so a file presented as another person's does not open.
package sealed

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/minio/sio"

	"clearvest/platform/blob"
)

// Keys wraps per-file keys under a data subject's key; *pii.Cipher satisfies it.
//
// Open must fail for a value sealed for another subject. Errors are passed on wrapped, so
// eventstore.ErrErased from a pii.Cipher still matches with errors.Is.
type Keys interface {
	Seal(subject, plaintext string) (string, error)
	Open(subject, sealed string) (string, error)
}

// ErrCorrupt means a stored file fails authentication: it was altered, cut short, is not a
// sealed file, or was copied from another key.
var ErrCorrupt = errors.New("sealed: file is damaged or not authentic")

const (
	magic         = "CVSF"
	version       = 1
	fileKeySize   = 32
	maxWrappedLen = 4096
	// marker precedes the content inside the encrypted body (see the package comment).
	marker  = 0x01
	kdfInfo = "clearvest sealed v1"
)

// Store encrypts files on their way into a blob.Store and decrypts them on their way out.
type Store struct {
	store blob.Store
	keys  Keys
}

// New returns a store that keeps its files in store, their keys wrapped by keys.
func New(store blob.Store, keys Keys) *Store {
	return &Store{store: store, keys: keys}
}

// Written describes the plaintext that Put stored.
type Written struct {
	Size   int64
	SHA256 string // hex
}

// Put encrypts r into key, streaming; if r fails, nothing is stored (blob.Store.Put's guarantee).
// It fails with the error of Keys.Seal for a subject whose key was destroyed, before reading r.
func (s *Store) Put(ctx context.Context, key, subject string, r io.Reader) (Written, error) {
	fileKey := make([]byte, fileKeySize)
	if _, err := rand.Read(fileKey); err != nil {
		return Written{}, fmt.Errorf("sealed: file key: %w", err)
	}
	wrapped, err := s.keys.Seal(subject, base64.StdEncoding.EncodeToString(fileKey))
	if err != nil {
		return Written{}, fmt.Errorf("sealed: wrap the key of %s: %w", key, err)
	}
	if len(wrapped) > maxWrappedLen {
		return Written{}, fmt.Errorf("sealed: wrapped key of %d bytes exceeds %d", len(wrapped), maxWrappedLen)
	}
	bodyKey, err := deriveKey(fileKey, key, wrapped)
	if err != nil {
		return Written{}, err
	}
	counted := &digest{h: sha256.New()}
	enc, err := sio.EncryptReader(io.MultiReader(bytes.NewReader([]byte{marker}), io.TeeReader(r, counted)), sioConfig(bodyKey))
	if err != nil {
		return Written{}, fmt.Errorf("sealed: %w", err)
	}
	if err := s.store.Put(ctx, key, io.MultiReader(bytes.NewReader(header(wrapped)), enc)); err != nil {
		return Written{}, err
	}
	return Written{Size: counted.n, SHA256: hex.EncodeToString(counted.h.Sum(nil))}, nil
}

// Open returns the decrypted content, streamed; blob.ErrNotFound for a missing key; the error of
// Keys.Open (eventstore.ErrErased from a pii.Cipher) when the subject's key was destroyed;
// ErrCorrupt when authentication fails. The first package is authenticated before Open returns,
// so a file of another key or subject fails here; damage further in fails the Read that reaches
// it, before any of that package's bytes are returned.
func (s *Store) Open(ctx context.Context, key, subject string) (io.ReadCloser, error) {
	f, _, err := s.store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	rc, err := s.open(f, key, subject)
	if err != nil {
		f.Close()
		return nil, err
	}
	return rc, nil
}

func (s *Store) open(f io.ReadCloser, key, subject string) (io.ReadCloser, error) {
	// The header is read through a small buffer rather than in several reads of a few bytes,
	// which on S3 would each be a read of the response body; the buffer then feeds sio.
	br := bufio.NewReaderSize(f, 4096)
	var fixed [len(magic) + 1 + 2]byte
	if _, err := io.ReadFull(br, fixed[:]); err != nil {
		return nil, corrupt(key, "header", err)
	}
	if string(fixed[:len(magic)]) != magic {
		return nil, corrupt(key, "header", errors.New("not a sealed file"))
	}
	if fixed[len(magic)] != version {
		return nil, corrupt(key, "header", fmt.Errorf("unknown version %d", fixed[len(magic)]))
	}
	n := binary.BigEndian.Uint16(fixed[len(magic)+1:])
	if n == 0 || n > maxWrappedLen {
		return nil, corrupt(key, "header", fmt.Errorf("wrapped key length %d", n))
	}
	wrapped := make([]byte, n)
	if _, err := io.ReadFull(br, wrapped); err != nil {
		return nil, corrupt(key, "header", err)
	}
	encoded, err := s.keys.Open(subject, string(wrapped))
	if err != nil {
		return nil, fmt.Errorf("sealed: unwrap the key of %s: %w", key, err)
	}
	fileKey, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(fileKey) != fileKeySize {
		return nil, corrupt(key, "file key", errors.New("not a 32-byte key"))
	}
	bodyKey, err := deriveKey(fileKey, key, string(wrapped))
	if err != nil {
		return nil, err
	}
	dec, err := sio.DecryptReader(br, sioConfig(bodyKey))
	if err != nil {
		return nil, fmt.Errorf("sealed: %w", err)
	}
	r := &reader{dec: dec, closer: f, key: key}
	var first [1]byte
	if _, err := io.ReadFull(r, first[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = corrupt(key, "body", errors.New("no content"))
		}
		return nil, err
	}
	if first[0] != marker {
		return nil, corrupt(key, "body", errors.New("bad marker"))
	}
	return r, nil
}

// Delete removes key; deleting a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	return s.store.Delete(ctx, key)
}

func header(wrapped string) []byte {
	h := make([]byte, 0, len(magic)+3+len(wrapped))
	h = append(h, magic...)
	h = append(h, version)
	h = binary.BigEndian.AppendUint16(h, uint16(len(wrapped)))
	return append(h, wrapped...)
}

// deriveKey binds the body to its blob key and to the exact wrapped key in the header.
func deriveKey(fileKey []byte, key, wrapped string) ([]byte, error) {
	k, err := hkdf.Key(sha256.New, fileKey, nil, kdfInfo+"\x00"+key+"\x00"+wrapped, 32)
	if err != nil {
		return nil, fmt.Errorf("sealed: derive key: %w", err)
	}
	return k, nil
}

// sioConfig allows DARE 2.0 with AES-256-GCM only, on reading too: a file claiming an older
// version or another cipher is refused rather than negotiated down.
func sioConfig(key []byte) sio.Config {
	return sio.Config{
		MinVersion:   sio.Version20,
		MaxVersion:   sio.Version20,
		CipherSuites: []byte{sio.AES_256_GCM},
		Key:          key,
	}
}

func corrupt(key, part string, err error) error {
	return fmt.Errorf("%w: %s: %s: %v", ErrCorrupt, key, part, err)
}

// reader decrypts, turning sio's authentication failures into ErrCorrupt. Errors of the
// underlying store (a dropped connection to S3) pass through as they are: they say nothing
// about the file.
type reader struct {
	dec    io.Reader
	closer io.Closer
	key    string
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.dec.Read(p)
	var sioErr sio.Error
	if errors.As(err, &sioErr) {
		err = corrupt(r.key, "body", sioErr)
	}
	return n, err
}

func (r *reader) Close() error { return r.closer.Close() }

// digest counts and hashes the plaintext as it streams past.
type digest struct {
	h hash.Hash
	n int64
}

func (d *digest) Write(p []byte) (int, error) {
	d.n += int64(len(p))
	return d.h.Write(p)
}

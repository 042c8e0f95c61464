package sealed_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"clearvest/platform/blob"
	"clearvest/platform/blob/sealed"
)

// Tests here use memKeys, an in-memory stand-in for pii.Cipher: the architecture keeps platform
// packages, tests included, from importing the event store. The same store with the real
// cipher on PostgreSQL, erasure included, is tested in eventstore/pii.

const (
	ada   = "0191f3a0-0000-7000-8000-0000000000a1"
	grace = "0191f3a0-0000-7000-8000-0000000000a2"
)

var errErased = errors.New("memkeys: subject erased")

// memKeys wraps with one AES-GCM key per subject, authenticating the subject as associated data
// as pii.Cipher does.
type memKeys struct {
	mu     sync.Mutex
	keys   map[string]cipher.AEAD
	erased map[string]bool
}

func newKeys() *memKeys {
	return &memKeys{keys: map[string]cipher.AEAD{}, erased: map[string]bool{}}
}

func (k *memKeys) aead(subject string) (cipher.AEAD, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.erased[subject] {
		return nil, errErased
	}
	if a, ok := k.keys[subject]; ok {
		return a, nil
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	block, _ := aes.NewCipher(key)
	a, _ := cipher.NewGCM(block)
	k.keys[subject] = a
	return a, nil
}

func (k *memKeys) Seal(subject, plaintext string) (string, error) {
	a, err := k.aead(subject)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, a.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(a.Seal(nonce, nonce, []byte(plaintext), []byte(subject))), nil
}

func (k *memKeys) Open(subject, sealedValue string) (string, error) {
	a, err := k.aead(subject)
	if err != nil {
		return "", err
	}
	raw, err := base64.StdEncoding.DecodeString(sealedValue)
	if err != nil || len(raw) < a.NonceSize() {
		return "", errors.New("memkeys: malformed")
	}
	plain, err := a.Open(nil, raw[:a.NonceSize()], raw[a.NonceSize():], []byte(subject))
	if err != nil {
		return "", fmt.Errorf("memkeys: does not open: %w", err)
	}
	return string(plain), nil
}

func (k *memKeys) Erase(subject string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.erased[subject] = true
	delete(k.keys, subject)
}

// backend is a blob store with a way to read what it holds, bypassing the encryption.
type backend struct {
	name  string
	store blob.Store
	// raw returns the stored object as the storage holds it.
	raw func(t *testing.T, key string) []byte
	// overwrite replaces the stored object by b.
	overwrite func(t *testing.T, key string, b []byte)
}

func diskBackend(t *testing.T) backend {
	dir := t.TempDir()
	d, err := blob.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	return backend{
		name:  "disk",
		store: d,
		// The file itself, as anyone with access to the disk or a backup of it would read it.
		raw: func(t *testing.T, key string) []byte {
			t.Helper()
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		overwrite: func(t *testing.T, key string, b []byte) {
			t.Helper()
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(key)), b, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
}

// s3Backend is blob.S3 on gofakes3's in-memory S3, over TLS as a deployment would be.
func s3Backend(t *testing.T) backend {
	mem := s3mem.New()
	if err := mem.CreateBucket("kyc"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(gofakes3.New(mem).Server())
	t.Cleanup(srv.Close)
	s, err := blob.NewS3(blob.S3Config{
		Endpoint: srv.URL, Bucket: "kyc", AccessKey: "AKIDTEST", SecretKey: "test-secret",
		Transport: srv.Client().Transport,
	})
	if err != nil {
		t.Fatal(err)
	}
	return backend{
		name:  "s3",
		store: s,
		// A plain read of the object through the blob store: what the bucket holds.
		raw: func(t *testing.T, key string) []byte {
			t.Helper()
			f, _, err := s.Open(t.Context(), key)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		overwrite: func(t *testing.T, key string, b []byte) {
			t.Helper()
			if err := s.Put(t.Context(), key, bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
		},
	}
}

var backends = []func(*testing.T) backend{diskBackend, s3Backend}

// document returns n bytes that look like an identity document: a JPEG header, then a
// repetitive text, the worst case for a cipher that leaks patterns.
func document(n int) []byte {
	var b bytes.Buffer
	b.WriteString("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "PASSPORT Ada Lovelace, born 1815-12-10, number GB%09d. ", i)
	}
	return b.Bytes()[:n]
}

func put(t *testing.T, s *sealed.Store, key, subject string, content []byte) sealed.Written {
	t.Helper()
	w, err := s.Put(t.Context(), key, subject, bytes.NewReader(content))
	if err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
	return w
}

// read opens and reads key, returning the first error of either.
func read(t *testing.T, s *sealed.Store, key, subject string) ([]byte, error) {
	t.Helper()
	f, err := s.Open(t.Context(), key, subject)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// headerLen is the length of a stored file's header: magic, version, length and wrapped key.
func headerLen(stored []byte) int {
	return 7 + int(binary.BigEndian.Uint16(stored[5:7]))
}

func hexSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, newBackend := range backends {
		b := newBackend(t)
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := sealed.New(b.store, newKeys())
			for _, size := range []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 10 << 20} {
				content := document(size)
				key := fmt.Sprintf("kyc/%d.jpg", size)
				w := put(t, s, key, ada, content)
				if w.Size != int64(size) || w.SHA256 != hexSHA(content) {
					t.Errorf("size %d: Written = %+v, want the plaintext's size and SHA-256 %s", size, w, hexSHA(content))
				}
				got, err := read(t, s, key, ada)
				if err != nil {
					t.Fatalf("size %d: %v", size, err)
				}
				if !bytes.Equal(got, content) {
					t.Fatalf("size %d: read %d bytes that differ from the %d written", size, len(got), len(content))
				}
			}
		})
	}
}

func TestStoredBytesRevealNothing(t *testing.T) {
	t.Parallel()
	for _, newBackend := range backends {
		b := newBackend(t)
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := sealed.New(b.store, newKeys())
			// Several 64 KiB packages, so that repetition across packages would show too.
			content := document(300 << 10)
			put(t, s, "kyc/passport.jpg", ada, content)
			stored := b.raw(t, "kyc/passport.jpg")
			if hexSHA(stored) == hexSHA(content) {
				t.Fatal("the stored object is the plaintext")
			}
			const window = 32
			seen := make(map[[window]byte]bool, len(stored))
			for i := 0; i+window <= len(stored); i++ {
				seen[[window]byte(stored[i:i+window])] = true
			}
			for i := 0; i+window <= len(content); i++ {
				if seen[[window]byte(content[i:i+window])] {
					t.Fatalf("the stored object contains plaintext bytes %d..%d: %q", i, i+window, content[i:i+window])
				}
			}
			// Overhead: the header, plus 32 bytes per 64 KiB package.
			if extra := len(stored) - len(content); extra < 0 || extra > 400 {
				t.Errorf("stored %d bytes for %d of content", len(stored), len(content))
			}
		})
	}
}

func TestErasedSubjectCannotRead(t *testing.T) {
	t.Parallel()
	keys := newKeys()
	s := sealed.New(diskBackend(t).store, keys)
	put(t, s, "kyc/passport.jpg", ada, document(1000))
	keys.Erase(ada)
	if _, err := s.Open(t.Context(), "kyc/passport.jpg", ada); !errors.Is(err, errErased) {
		t.Fatalf("Open after erasure = %v, want the key store's erasure error", err)
	}
	// New personal data must not outlive the erasure either.
	if _, err := s.Put(t.Context(), "kyc/new.jpg", ada, bytes.NewReader(document(10))); !errors.Is(err, errErased) {
		t.Fatalf("Put after erasure = %v, want the key store's erasure error", err)
	}
	if _, err := s.Open(t.Context(), "kyc/new.jpg", ada); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("a Put refused for an erased subject stored something: Open = %v", err)
	}
}

func TestMissingKey(t *testing.T) {
	t.Parallel()
	for _, newBackend := range backends {
		b := newBackend(t)
		s := sealed.New(b.store, newKeys())
		if _, err := s.Open(t.Context(), "kyc/none.jpg", ada); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("%s: Open of a missing key = %v, want blob.ErrNotFound", b.name, err)
		}
		put(t, s, "kyc/a.jpg", ada, document(10))
		if err := s.Delete(t.Context(), "kyc/a.jpg"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Open(t.Context(), "kyc/a.jpg", ada); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("%s: Open after Delete = %v, want blob.ErrNotFound", b.name, err)
		}
	}
}

func TestTamperedFileFails(t *testing.T) {
	t.Parallel()
	b := diskBackend(t)
	s := sealed.New(b.store, newKeys())
	content := document(200 << 10)
	put(t, s, "kyc/passport.jpg", ada, content)
	stored := b.raw(t, "kyc/passport.jpg")
	hl := headerLen(stored)
	for _, tt := range []struct {
		name string
		at   int
		// wantCorrupt: detected as ErrCorrupt rather than by the key store refusing the
		// wrapped key.
		wantCorrupt bool
	}{
		{"magic", 0, true},
		{"version", 4, true},
		{"wrapped key length", 6, false},
		{"wrapped key", 7 + 20, false},
		{"first package header", hl + 1, true},
		{"first package payload", hl + 100, true},
		{"second package", hl + 64<<10 + 500, true},
		{"last byte", len(stored) - 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			damaged := bytes.Clone(stored)
			damaged[tt.at] ^= 0x01
			b.overwrite(t, "kyc/tampered.jpg", damaged)
			got, err := read(t, s, "kyc/tampered.jpg", ada)
			if err == nil {
				t.Fatalf("read %d bytes of a file with byte %d flipped, want an error", len(got), tt.at)
			}
			if tt.wantCorrupt && !errors.Is(err, sealed.ErrCorrupt) {
				t.Fatalf("error = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestTruncatedFileFails(t *testing.T) {
	t.Parallel()
	b := diskBackend(t)
	s := sealed.New(b.store, newKeys())
	put(t, s, "kyc/passport.jpg", ada, document(200<<10))
	stored := b.raw(t, "kyc/passport.jpg")
	put(t, s, "kyc/empty.jpg", ada, nil)
	empty := b.raw(t, "kyc/empty.jpg")
	hl := headerLen(stored)
	const pkg = 32 + 64<<10 // one full DARE package: header, payload, tag
	for name, cut := range map[string][]byte{
		"nothing left":            stored[:0],
		"within the header":       stored[:5],
		"header only":             stored[:hl],
		"within a package":        stored[:hl+100],
		"at a package boundary":   stored[:hl+pkg],
		"last byte missing":       stored[:len(stored)-1],
		"empty file, header only": empty[:headerLen(empty)],
	} {
		t.Run(name, func(t *testing.T) {
			b.overwrite(t, "kyc/cut.jpg", cut)
			got, err := read(t, s, "kyc/cut.jpg", ada)
			if !errors.Is(err, sealed.ErrCorrupt) {
				t.Fatalf("read %d bytes of a file cut to %d bytes, error %v; want ErrCorrupt", len(got), len(cut), err)
			}
		})
	}
	// Appending is caught too: nothing may follow the final package.
	b.overwrite(t, "kyc/long.jpg", append(bytes.Clone(stored), stored[hl:hl+100]...))
	if _, err := read(t, s, "kyc/long.jpg", ada); !errors.Is(err, sealed.ErrCorrupt) {
		t.Fatalf("a file with bytes appended read with error %v, want ErrCorrupt", err)
	}
}

func TestFileOnlyOpensUnderItsKeyAndSubject(t *testing.T) {
	t.Parallel()
	b := diskBackend(t)
	s := sealed.New(b.store, newKeys())
	put(t, s, "kyc/ada-front.jpg", ada, document(1000))
	put(t, s, "kyc/grace-front.jpg", grace, document(1000))

	// Copied under another key, by anyone with access to the storage.
	b.overwrite(t, "kyc/ada-back.jpg", b.raw(t, "kyc/ada-front.jpg"))
	if _, err := s.Open(t.Context(), "kyc/ada-back.jpg", ada); !errors.Is(err, sealed.ErrCorrupt) {
		t.Errorf("a file copied under another key: Open = %v, want ErrCorrupt", err)
	}
	// Presented as another person's file.
	if _, err := s.Open(t.Context(), "kyc/ada-front.jpg", grace); err == nil {
		t.Error("Ada's file opened as Grace's")
	}
	// Another person's file moved in place of one's own.
	b.overwrite(t, "kyc/ada-front.jpg", b.raw(t, "kyc/grace-front.jpg"))
	if _, err := s.Open(t.Context(), "kyc/ada-front.jpg", ada); err == nil {
		t.Error("Grace's file opened as Ada's")
	}
}

var errReader = errors.New("client went away")

// failingReader fails every read.
type failingReader struct{}

// failAfter yields n bytes of a document, then fails.
func failAfter(n int) io.Reader {
	return io.MultiReader(bytes.NewReader(document(n)), failingReader{})
}

func (failingReader) Read([]byte) (int, error) { return 0, errReader }

func TestFailingReaderStoresNothing(t *testing.T) {
	t.Parallel()
	for _, newBackend := range backends {
		b := newBackend(t)
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := sealed.New(b.store, newKeys())
			// Past one S3 part, so the multipart upload has begun when the reader fails.
			for _, n := range []int{0, 100 << 10, blob.PartSize + 1000} {
				if _, err := s.Put(t.Context(), "kyc/new.jpg", ada, failAfter(n)); !errors.Is(err, errReader) {
					t.Fatalf("Put failing after %d bytes = %v, want the reader's error", n, err)
				}
				if _, err := s.Open(t.Context(), "kyc/new.jpg", ada); !errors.Is(err, blob.ErrNotFound) {
					t.Fatalf("after a Put that failed at %d bytes, Open = %v; want ErrNotFound", n, err)
				}
			}
			// And a replacement that fails leaves the previous file readable.
			old := document(5000)
			put(t, s, "kyc/old.jpg", ada, old)
			if _, err := s.Put(t.Context(), "kyc/old.jpg", ada, failAfter(100<<10)); !errors.Is(err, errReader) {
				t.Fatalf("Put = %v, want the reader's error", err)
			}
			if got, err := read(t, s, "kyc/old.jpg", ada); err != nil || !bytes.Equal(got, old) {
				t.Fatalf("after a failed replacement: %d bytes, %v; want the previous content", len(got), err)
			}
		})
	}
}

// stream is a non-seekable reader of n pseudo-random bytes, made as they are read, so that the
// test itself holds no copy of them.
type stream struct {
	src *mathrand.ChaCha8
	n   int64
}

func newStream(n int64) *stream {
	return &stream{src: mathrand.NewChaCha8([32]byte{1}), n: n}
}

func (s *stream) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.n {
		p = p[:s.n]
	}
	n, _ := s.src.Read(p)
	s.n -= int64(n)
	return n, nil
}

// allocated returns how many bytes f allocates on the heap. The test that calls it must not run
// in parallel with others, whose allocations would count too.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStreamsWithoutHoldingTheFile checks that a 10 MiB document passes through Put and Open in
// small pieces: everything allocated along the way adds up to far less than the document.
// TotalAlloc counts every allocation, freed or not, so the bound holds whatever the GC does.
func TestStreamsWithoutHoldingTheFile(t *testing.T) {
	const size, limit = 10 << 20, 4 << 20
	s := sealed.New(diskBackend(t).store, newKeys())
	ctx := t.Context()
	var w sealed.Written
	var err error
	putAlloc := allocated(func() { w, err = s.Put(ctx, "kyc/big.pdf", ada, newStream(size)) })
	if err != nil || w.Size != size {
		t.Fatalf("Put = %+v, %v", w, err)
	}
	var n int64
	openAlloc := allocated(func() {
		f, err2 := s.Open(ctx, "kyc/big.pdf", ada)
		if err2 != nil {
			err = err2
			return
		}
		n, err = io.Copy(io.Discard, f)
		f.Close()
	})
	if err != nil || n != size {
		t.Fatalf("read back %d bytes: %v", n, err)
	}
	t.Logf("allocated for 10 MiB: Put %d KiB, Open and read %d KiB", putAlloc>>10, openAlloc>>10)
	if putAlloc > limit || openAlloc > limit {
		t.Fatalf("allocated Put %d bytes, Open %d bytes for a %d-byte file; want under %d each", putAlloc, openAlloc, size, limit)
	}
}

// The benchmarks compare sealed Put and Open with the plain store on the same bytes, from a
// reader that is not seekable (as an upload's body is not).

const benchSize = 10 << 20

func BenchmarkSealedPut(b *testing.B) {
	d, _ := blob.NewDisk(b.TempDir())
	s := sealed.New(d, newKeys())
	b.SetBytes(benchSize)
	for b.Loop() {
		if _, err := s.Put(b.Context(), "kyc/doc.pdf", ada, newStream(benchSize)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlainPut(b *testing.B) {
	d, _ := blob.NewDisk(b.TempDir())
	b.SetBytes(benchSize)
	for b.Loop() {
		if err := d.Put(b.Context(), "kyc/doc.pdf", newStream(benchSize)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSealedOpen(b *testing.B) {
	d, _ := blob.NewDisk(b.TempDir())
	s := sealed.New(d, newKeys())
	if _, err := s.Put(b.Context(), "kyc/doc.pdf", ada, newStream(benchSize)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchSize)
	for b.Loop() {
		f, err := s.Open(b.Context(), "kyc/doc.pdf", ada)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, f); err != nil || n != benchSize {
			b.Fatal(n, err)
		}
		f.Close()
	}
}

func BenchmarkPlainOpen(b *testing.B) {
	d, _ := blob.NewDisk(b.TempDir())
	if err := d.Put(b.Context(), "kyc/doc.pdf", newStream(benchSize)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchSize)
	for b.Loop() {
		f, _, err := d.Open(b.Context(), "kyc/doc.pdf")
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, f); err != nil || n != benchSize {
			b.Fatal(n, err)
		}
		f.Close()
	}
}

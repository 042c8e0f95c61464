package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"clearvest/platform/blob"
)

// testStore is the behaviour every Store must have, run against each implementation so that
// switching a deployment from disk to S3 changes nothing the application can observe.
func testStore(t *testing.T, newStore func(t *testing.T) blob.Store) {
	t.Run("put then open", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Put(t.Context(), "photos/a.jpg", strings.NewReader("jpeg bytes")); err != nil {
			t.Fatal(err)
		}
		f, info, err := s.Open(t.Context(), "photos/a.jpg")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if got := readAll(t, f); got != "jpeg bytes" {
			t.Errorf("content = %q", got)
		}
		if info.Size != int64(len("jpeg bytes")) || info.ModTime.IsZero() {
			t.Errorf("info = %+v, want size 10 and a modification time", info)
		}
	})
	t.Run("missing key", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if _, _, err := s.Open(t.Context(), "photos/none.jpg"); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Open = %v, want ErrNotFound", err)
		}
		if err := s.Delete(t.Context(), "photos/none.jpg"); err != nil {
			t.Errorf("deleting a missing key: %v", err)
		}
	})
	t.Run("stat", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "photos/a.jpg", "jpeg bytes")
		info, err := s.Stat(t.Context(), "photos/a.jpg")
		if err != nil {
			t.Fatal(err)
		}
		if info.Size != int64(len("jpeg bytes")) || info.ModTime.IsZero() {
			t.Errorf("info = %+v, want size 10 and a modification time", info)
		}
		if _, err := s.Stat(t.Context(), "photos/none.jpg"); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Stat of a missing key = %v, want ErrNotFound", err)
		}
		if _, err := s.Stat(t.Context(), "photos"); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Stat of a key's parent = %v, want ErrNotFound", err)
		}
	})
	t.Run("stream longer than a part, of unknown length", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		const size = blob.PartSize + blob.PartSize/2
		content, want := stream(t, size)
		if err := s.Put(t.Context(), "kyc/passport.pdf", content); err != nil {
			t.Fatal(err)
		}
		f, info, err := s.Open(t.Context(), "kyc/passport.pdf")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		h := sha256.New()
		if n, err := io.Copy(h, f); err != nil || n != size {
			t.Fatalf("read %d bytes, %v; want %d", n, err, size)
		}
		if got := h.Sum(nil); !bytes.Equal(got, want) || info.Size != size {
			t.Errorf("read back SHA-256 %x (size %d), want %x (size %d)", got, info.Size, want, size)
		}
	})
	t.Run("a failing reader changes nothing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "kyc/passport.pdf", "old")
		for _, n := range []int64{0, 1000, blob.PartSize + 1000} {
			head, _ := stream(t, n)
			err := s.Put(t.Context(), "kyc/passport.pdf", io.MultiReader(head, failingReader{}))
			if !errors.Is(err, errReader) {
				t.Errorf("Put failing after %d bytes = %v, want the reader's error", n, err)
			}
			f, _, err := s.Open(t.Context(), "kyc/passport.pdf")
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, f); got != "old" {
				t.Errorf("after a Put failing after %d bytes the content is %.20q…, want the old content", n, got)
			}
			f.Close()
			if err := s.Put(t.Context(), "kyc/other.pdf", io.MultiReader(head, failingReader{})); err == nil {
				t.Errorf("Put of a new key failing after %d bytes succeeded", n)
			}
			if _, err := s.Stat(t.Context(), "kyc/other.pdf"); !errors.Is(err, blob.ErrNotFound) {
				t.Errorf("a new key failing after %d bytes: Stat = %v, want ErrNotFound", n, err)
			}
		}
	})
	t.Run("overwrite", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "photos/a.jpg", "first, longer version")
		put(t, s, "photos/a.jpg", "second")
		f, info, err := s.Open(t.Context(), "photos/a.jpg")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if got := readAll(t, f); got != "second" || info.Size != 6 {
			t.Errorf("got %q (size %d), want the second version", got, info.Size)
		}
	})
	t.Run("delete", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "photos/a.jpg", "x")
		put(t, s, "photos/b.jpg", "y")
		if err := s.Delete(t.Context(), "photos/a.jpg"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Open(t.Context(), "photos/a.jpg"); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("after delete: %v, want ErrNotFound", err)
		}
		if err := s.Delete(t.Context(), "photos/a.jpg"); err != nil {
			t.Errorf("deleting twice: %v", err)
		}
		f, _, err := s.Open(t.Context(), "photos/b.jpg")
		if err != nil {
			t.Fatalf("a neighbour was removed too: %v", err)
		}
		f.Close()
	})
	t.Run("empty content", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "empty", "")
		f, info, err := s.Open(t.Context(), "empty")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if got := readAll(t, f); got != "" || info.Size != 0 {
			t.Errorf("got %q (size %d)", got, info.Size)
		}
	})
	t.Run("seek", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "digits", "0123456789")
		f, _, err := s.Open(t.Context(), "digits")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 3)
		if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "012" {
			t.Fatalf("first read %q, %v", buf, err)
		}
		if pos, err := f.Seek(4, io.SeekStart); err != nil || pos != 4 {
			t.Fatalf("Seek = %d, %v", pos, err)
		}
		if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "456" {
			t.Fatalf("after seek %q, %v", buf, err)
		}
		if pos, err := f.Seek(-2, io.SeekEnd); err != nil || pos != 8 {
			t.Fatalf("Seek from end = %d, %v", pos, err)
		}
		if got := readAll(t, f); got != "89" {
			t.Errorf("tail = %q", got)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, f); got != "0123456789" {
			t.Errorf("rewound = %q", got)
		}
	})
	t.Run("keys with unusual characters", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		const key = "kyc/a b+c=d%e&f~é.pdf"
		put(t, s, key, "document")
		f, _, err := s.Open(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if got := readAll(t, f); got != "document" {
			t.Errorf("content = %q", got)
		}
	})
	t.Run("keys outside the store are refused", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, key := range []string{"", "../x", "/etc/passwd", "a/../../x", `a\b`, "a//b", "./a", "a/"} {
			if err := s.Put(t.Context(), key, strings.NewReader("x")); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Put(%q) = %v, want ErrInvalidKey", key, err)
			}
			if _, _, err := s.Open(t.Context(), key); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Open(%q) = %v, want ErrInvalidKey", key, err)
			}
			if _, err := s.Stat(t.Context(), key); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Stat(%q) = %v, want ErrInvalidKey", key, err)
			}
			if err := s.Delete(t.Context(), key); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Delete(%q) = %v, want ErrInvalidKey", key, err)
			}
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := s.Put(ctx, "photos/a.jpg", strings.NewReader("x")); err == nil {
			t.Error("Put with a cancelled context succeeded")
		}
	})
}

// stream returns n pseudo-random bytes from a reader that does not reveal its length, and
// their SHA-256.
func stream(t *testing.T, n int64) (io.Reader, []byte) {
	t.Helper()
	var seed [32]byte
	seed[0] = byte(n)
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(rand.NewChaCha8(seed), n)); err != nil {
		t.Fatal(err)
	}
	return io.LimitReader(rand.NewChaCha8(seed), n), h.Sum(nil)
}

var errReader = errors.New("reader failed")

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errReader }

func put(t *testing.T, s blob.Store, key, content string) {
	t.Helper()
	if err := s.Put(t.Context(), key, strings.NewReader(content)); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

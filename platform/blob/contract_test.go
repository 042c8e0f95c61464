package blob_test

import (
	"context"
	"errors"
	"io"
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

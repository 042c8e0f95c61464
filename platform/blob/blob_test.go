package blob_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clearvest/platform/blob"
)

func TestDiskRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := blob.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.Put(ctx, "photos/a.jpg", strings.NewReader("jpeg bytes")); err != nil {
		t.Fatal(err)
	}
	f, info, err := s.Open(ctx, "photos/a.jpg")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "jpeg bytes" || info.Size != int64(len(b)) {
		t.Fatalf("got %q (size %d)", b, info.Size)
	}
	st, err := os.Stat(filepath.Join(dir, "photos", "a.jpg"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stored file: %v, mode %v; want 0600", err, st.Mode())
	}
	if err := s.Delete(ctx, "photos/a.jpg"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Open(ctx, "photos/a.jpg"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("after delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "photos/a.jpg"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
}

func TestDiskContract(t *testing.T) {
	t.Parallel()
	testStore(t, func(t *testing.T) blob.Store {
		s, err := blob.NewDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

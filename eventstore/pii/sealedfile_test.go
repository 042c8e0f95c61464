package pii_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"clearvest/eventstore"
	"clearvest/platform/blob"
	"clearvest/platform/blob/sealed"
)

// Files sealed with the real cipher (platform/blob/sealed tests the format with a stand-in, as
// the architecture keeps platform tests from importing the event store): the file keys are
// wrapped by the data keys in pii_keys, so erasing a person erases their files.
func TestSealedFilesAreErasedWithTheSubject(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	disk, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := sealed.New(disk, c)
	ctx := t.Context()
	content := bytes.Repeat([]byte("%PDF-1.7 identity document of u1 "), 5000)
	for _, f := range []struct{ key, subject string }{{"kyc/u1-front.pdf", u1}, {"kyc/u2-front.pdf", u2}} {
		if _, err := files.Put(ctx, f.key, f.subject, bytes.NewReader(content)); err != nil {
			t.Fatal(err)
		}
	}

	read := func(files *sealed.Store, key, subject string) ([]byte, error) {
		f, err := files.Open(ctx, key, subject)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	// Another process with the same secret reads the file through the stored key.
	if got, err := read(sealed.New(disk, newCipher(t, pool, secret)), "kyc/u1-front.pdf", u1); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	if _, err := read(files, "kyc/u1-front.pdf", u2); err == nil {
		t.Fatal("u1's file opened as u2's")
	}

	if err := c.Erase(ctx, u1); err != nil {
		t.Fatal(err)
	}
	if _, err := read(files, "kyc/u1-front.pdf", u1); !errors.Is(err, eventstore.ErrErased) {
		t.Fatalf("Open after erasure = %v, want eventstore.ErrErased", err)
	}
	// Also in a process that never had the key in its cache.
	if _, err := read(sealed.New(disk, newCipher(t, pool, secret)), "kyc/u1-front.pdf", u1); !errors.Is(err, eventstore.ErrErased) {
		t.Fatalf("Open after erasure in a fresh process = %v, want eventstore.ErrErased", err)
	}
	if _, err := files.Put(ctx, "kyc/u1-back.pdf", u1, strings.NewReader("%PDF-1.7")); !errors.Is(err, eventstore.ErrErased) {
		t.Fatalf("Put after erasure = %v, want eventstore.ErrErased", err)
	}
	// The other person's files are untouched.
	if got, err := read(files, "kyc/u2-front.pdf", u2); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("u2's file after u1's erasure: %d bytes, %v", len(got), err)
	}
}

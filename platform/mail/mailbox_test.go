package mail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileMailboxReadsBackWhatWasSent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, err := Open("file://"+filepath.ToSlash(dir), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	want := testMessage()
	before := time.Now().Add(-time.Second)
	if err := tr.Send(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	// Things that are not messages are ignored.
	for _, name := range []string{".writing-123.tmp", "notes.txt", "escape.eml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("junk"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "20990101T000000.000000000Z-0000000000000000.eml"), 0o700); err != nil {
		t.Fatal(err)
	}

	list, err := ListFileMailbox(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("%d entries, want 1: %+v", len(list), list)
	}
	e := list[0]
	if e.To != "Zoë Example <zoe@example.com>" && e.To != `"Zoë Example" <zoe@example.com>` {
		t.Errorf("To = %q", e.To)
	}
	if e.Subject != want.Subject {
		t.Errorf("Subject = %q, want %q", e.Subject, want.Subject)
	}
	if e.Date.Before(before) || e.Date.After(time.Now().Add(time.Second)) {
		t.Errorf("Date = %v", e.Date)
	}
	if got := strings.ReplaceAll(e.Text, "\r\n", "\n"); got != want.Text {
		t.Errorf("Text = %q", got)
	}
	if got := strings.ReplaceAll(e.HTML, "\r\n", "\n"); got != want.HTML {
		t.Errorf("HTML = %q", got)
	}

	one, err := ReadFileMailbox(dir, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if one.Subject != e.Subject || one.ID != e.ID {
		t.Errorf("ReadFileMailbox = %+v", one)
	}
}

func TestFileMailboxLimitAndMissingDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, err := Open("file://"+filepath.ToSlash(dir), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := tr.Send(context.Background(), testMessage()); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := ListFileMailbox(dir, 2); err != nil || len(got) != 2 {
		t.Errorf("limit 2: %d entries, %v", len(got), err)
	}
	got, err := ListFileMailbox(filepath.Join(dir, "never-created"), 10)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("missing directory: %v, %v; want an empty, non-nil list", got, err)
	}
}

func TestFileMailboxRefusesPathTraversal(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "mail")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A perfectly shaped message outside the mailbox, reachable by "..", and a symlink to it.
	const id = "20260101T000000.000000000Z-00000000000000aa"
	outside := filepath.Join(parent, id+".eml")
	if err := os.WriteFile(outside, []byte("Subject: secret\r\nContent-Type: text/plain\r\n\r\nsecret\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const linked = "20260101T000000.000000000Z-00000000000000bb"
	if err := os.Symlink(outside, filepath.Join(dir, linked+".eml")); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"../" + id, "..%2F" + id, "/" + id, id + "/../" + id, "..", "", id + ".eml", strings.ToUpper(id),
		linked, // right shape, but leaves the directory
		"20260101T000000.000000000Z-00000000000000cc", // right shape, absent
	} {
		_, err := ReadFileMailbox(dir, bad)
		if !errors.Is(err, ErrNoSuchMessage) {
			t.Errorf("ReadFileMailbox(%q) = %v, want ErrNoSuchMessage", bad, err)
		}
	}
}

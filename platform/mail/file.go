package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	netmail "net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// fileTimeLayout is fixed-width UTC with nanoseconds, so that sorting file names sorts messages
// by the time they were written.
const fileTimeLayout = "20060102T150405.000000000Z"

// mailboxID matches the names the file transport gives its messages (without ".eml"); anything
// else in the directory, such as a temporary file mid-write, is not a message.
var mailboxID = regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{16}$`)

type fileTransport struct {
	dir  string
	from *netmail.Address
}

func newFileTransport(u *url.URL, from *netmail.Address) (*fileTransport, error) {
	dir, err := fileURLDir(u)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("mail: mail directory: %w", err)
	}
	return &fileTransport{dir: dir, from: from}, nil
}

// MailboxDir returns the directory of a file:// transport URL, and false for any other URL. The
// development mailbox uses it to find the messages the configured transport wrote.
func MailboxDir(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	dir, err := fileURLDir(u)
	return dir, err == nil
}

func fileURLDir(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("mail: %s: a file URL needs an absolute directory and three slashes, e.g. file:///var/lib/clearvest/mail", u.String())
	}
	if u.Path == "" || !filepath.IsAbs(filepath.FromSlash(u.Path)) {
		return "", fmt.Errorf("mail: %s: a file URL needs an absolute directory, e.g. file:///var/lib/clearvest/mail", u.String())
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), nil
}

// Send writes the message to a temporary file and renames it into place, so that a reader of
// the directory (the development mailbox, a test) sees each message complete or not at all.
func (t *fileTransport) Send(ctx context.Context, msg Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now().UTC()
	g, err := compose(t.from, msg, now)
	if err != nil {
		return err
	}
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	name := now.Format(fileTimeLayout) + "-" + hex.EncodeToString(suffix[:]) + ".eml"

	tmp, err := os.CreateTemp(t.dir, ".writing-*.tmp")
	if err != nil {
		return fmt.Errorf("mail: write message: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := g.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("mail: write message: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("mail: write message: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mail: write message: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(t.dir, name)); err != nil {
		return fmt.Errorf("mail: write message: %w", err)
	}
	return nil
}

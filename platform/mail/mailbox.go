package mail

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"os"
	"slices"
	"strings"
	"time"
)

// MailboxEntry is one message the file transport wrote, decoded for display.
type MailboxEntry struct {
	ID      string    `json:"id"`
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Date    time.Time `json:"date"`
	Text    string    `json:"text"`
	HTML    string    `json:"html"`
}

// ErrNoSuchMessage is returned for an ID that names no message, including every ID that is not
// shaped like one the file transport makes.
var ErrNoSuchMessage = errors.New("mail: no such message")

// DefaultMailboxLimit is how many messages ListFileMailbox returns when given no limit.
const DefaultMailboxLimit = 50

// maxMessageSize caps what the mailbox reads from one file; transactional mail is a few KiB.
const maxMessageSize = 4 << 20

// ListFileMailbox returns the newest messages in a file transport's directory, newest first,
// at most limit of them (DefaultMailboxLimit when limit <= 0). A missing directory is an empty
// mailbox: nothing has been sent yet. It is for development only; the API must not serve it in
// production, where the directory may hold other people's one-time links.
func ListFileMailbox(dir string, limit int) ([]MailboxEntry, error) {
	if limit <= 0 {
		limit = DefaultMailboxLimit
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []MailboxEntry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: read mailbox: %w", err)
	}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".eml")
		if ok && e.Type().IsRegular() && mailboxID.MatchString(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	ids = ids[:min(limit, len(ids))]

	out := make([]MailboxEntry, 0, len(ids))
	for _, id := range ids {
		m, err := ReadFileMailbox(dir, id)
		if errors.Is(err, ErrNoSuchMessage) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ReadFileMailbox returns one message by the ID ListFileMailbox gave it. The ID comes from a
// request, so it is checked against the shape of the names the transport makes, and the file is
// opened through an os.Root, which refuses to leave dir even by a symbolic link.
func ReadFileMailbox(dir, id string) (MailboxEntry, error) {
	if !mailboxID.MatchString(id) {
		return MailboxEntry{}, ErrNoSuchMessage
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return MailboxEntry{}, ErrNoSuchMessage
	}
	if err != nil {
		return MailboxEntry{}, fmt.Errorf("mail: open mailbox: %w", err)
	}
	defer root.Close()
	// Only regular files count: a symbolic link, even one that stays inside, is nothing the
	// transport wrote.
	if fi, err := root.Lstat(id + ".eml"); err != nil || !fi.Mode().IsRegular() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return MailboxEntry{}, ErrNoSuchMessage
		}
		return MailboxEntry{}, fmt.Errorf("mail: open message %s: %w", id, err)
	}
	f, err := root.Open(id + ".eml")
	if errors.Is(err, fs.ErrNotExist) {
		return MailboxEntry{}, ErrNoSuchMessage // removed meanwhile
	}
	if err != nil {
		return MailboxEntry{}, fmt.Errorf("mail: open message %s: %w", id, err)
	}
	defer f.Close()
	entry, err := parseMessage(io.LimitReader(f, maxMessageSize))
	if err != nil {
		return MailboxEntry{}, fmt.Errorf("mail: message %s: %w", id, err)
	}
	entry.ID = id
	return entry, nil
}

var headerDecoder = mime.WordDecoder{}

func parseMessage(r io.Reader) (MailboxEntry, error) {
	msg, err := netmail.ReadMessage(r)
	if err != nil {
		return MailboxEntry{}, err
	}
	var e MailboxEntry
	e.To = decodeHeader(msg.Header.Get("To"))
	e.Subject = decodeHeader(msg.Header.Get("Subject"))
	if d, err := msg.Header.Date(); err == nil {
		e.Date = d.UTC()
	}
	err = walkPart(msg.Header, msg.Body, &e)
	return e, err
}

func decodeHeader(v string) string {
	if d, err := headerDecoder.DecodeHeader(v); err == nil {
		return d
	}
	return v
}

// partHeader is what walkPart needs of a header, shared by a message and its parts.
type partHeader interface{ Get(string) string }

// walkPart collects the first text/plain and text/html bodies, descending into multipart
// containers (alternative inside mixed, as mail with attachments would have).
func walkPart(h partHeader, body io.Reader, e *MailboxEntry) error {
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		mediaType = "text/plain" // RFC 2045's default for a missing or broken header
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walkPart(p.Header, p, e); err != nil {
				return err
			}
		}
	}
	decoded, err := io.ReadAll(transferDecoder(h.Get("Content-Transfer-Encoding"), body))
	if err != nil {
		return err
	}
	// Text travels with CRLF line breaks (RFC 2046 canonical form); readers want them as written.
	text := strings.ReplaceAll(string(decoded), "\r\n", "\n")
	switch {
	case mediaType == "text/plain" && e.Text == "":
		e.Text = text
	case mediaType == "text/html" && e.HTML == "":
		e.HTML = text
	}
	return nil
}

func transferDecoder(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r) // skips the line breaks itself
	}
	return r
}

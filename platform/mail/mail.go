// Package mail sends Clearvest's transactional e-mail.
//
// Nothing in the application sends a message directly. A flow that must tell a user something
// renders a template (Templates.Render) and writes the message to the mail_outbox table with
// Enqueue, inside the same transaction as the fact that causes it: the message exists if and
// only if the fact was committed, and a unique dedupe key makes a retried command harmless. A
// Sender in every serve process then claims due rows and hands them to a Transport, retrying with
// backoff while the mail server is unreachable. Delivery is therefore at least once: a process
// that dies between handing a message over and recording it re-sends it after a lease expires,
// with the same Message-ID so mail clients can fold the duplicate.
//
// Transports are chosen by URL (CLEARVEST_MAIL_URL): smtp:// or smtps:// for a real relay, and
// file:///dir, which writes one .eml file per message and backs the development mailbox.
package mail

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	netmail "net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one e-mail to one recipient. Text is required: every message has a plain-text
// part, for clients and people that do not read HTML; HTML is its alternative.
type Message struct {
	To      string // an RFC 5322 address, "user@example.com" or "Name <user@example.com>"
	Subject string
	Text    string
	HTML    string
	// Headers are extra header fields, e.g. Message-ID. From, To, Subject, Date and the MIME
	// fields belong to the transport and cannot be set here. A Message-ID without a domain
	// ("<id>") gets the sender's domain, so the outbox can fix IDs without knowing the sender.
	Headers map[string]string
}

// Transport delivers a message. Implementations are safe for concurrent use.
type Transport interface {
	Send(ctx context.Context, msg Message) error
}

// ErrPermanent marks a failure that retrying cannot fix (the recipient does not exist, the
// message is malformed). The Sender gives such a message up at once instead of retrying it for
// hours; errors that do not wrap it are treated as temporary.
var ErrPermanent = errors.New("mail: permanent failure")

// Open returns the transport a CLEARVEST_MAIL_URL selects, sending from the given address:
//
//	smtp://user:pass@host:port   submission with STARTTLS when the server offers it (port 587 by default)
//	smtps://user:pass@host:port  implicit TLS (port 465 by default)
//	file:///absolute/dir         one .eml file per message in dir, created if missing
//
// User name and password must be percent-encoded if they contain reserved characters. Errors
// never repeat the password.
func Open(rawURL, from string) (Transport, error) {
	return open(rawURL, from, nil)
}

// open is Open with the certificate authorities to trust (nil: the system's), so that tests can
// run a TLS server with a certificate of their own.
func open(rawURL, from string, roots *x509.CertPool) (Transport, error) {
	sender, err := parseFrom(from)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("mail: the transport URL is not a valid URL (is a special character in the password not percent-encoded?)")
	}
	if len(u.Query()) > 0 || u.Fragment != "" {
		return nil, fmt.Errorf("mail: %s: query parameters and fragments are not supported", u.Redacted())
	}
	switch u.Scheme {
	case "smtp", "smtps":
		return newSMTP(u, sender, roots)
	case "file":
		return newFileTransport(u, sender)
	case "":
		return nil, errors.New("mail: the transport URL has no scheme; use smtp://user:pass@host:port, smtps://… or file:///dir")
	default:
		return nil, fmt.Errorf("mail: scheme %q is not supported; use smtp://, smtps:// or file://", u.Scheme)
	}
}

func parseFrom(from string) (*netmail.Address, error) {
	if strings.TrimSpace(from) == "" {
		return nil, errors.New("mail: no sender address; give the From address, e.g. \"Clearvest <no-reply@example.com>\"")
	}
	a, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: sender address %q: %w", from, err)
	}
	return a, nil
}

// reservedHeaders are set by the transport from the message's own fields; letting Headers set
// them too would allow, say, a second To to slip in.
var reservedHeaders = map[string]bool{
	"from": true, "to": true, "cc": true, "bcc": true, "subject": true, "date": true,
	"sender": true, "reply-to": true, "return-path": true,
	"mime-version": true, "content-type": true, "content-transfer-encoding": true,
}

// validate checks what would otherwise fail, or worse be misread, deep inside a transport. A
// line break in a header value is a header injection, so it is refused rather than cleaned.
func (m Message) validate() error {
	if _, err := netmail.ParseAddress(m.To); err != nil {
		return fmt.Errorf("%w: recipient %q: %v", ErrPermanent, m.To, err)
	}
	if strings.TrimSpace(m.Subject) == "" {
		return fmt.Errorf("%w: empty subject", ErrPermanent)
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return fmt.Errorf("%w: line break in subject", ErrPermanent)
	}
	if strings.TrimSpace(m.Text) == "" {
		return fmt.Errorf("%w: empty text body; every message needs a plain-text part", ErrPermanent)
	}
	for k, v := range m.Headers {
		if !validHeaderName(k) {
			return fmt.Errorf("%w: header name %q", ErrPermanent, k)
		}
		if reservedHeaders[strings.ToLower(k)] {
			return fmt.Errorf("%w: header %s is set from the message itself", ErrPermanent, k)
		}
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("%w: line break in header %s", ErrPermanent, k)
		}
		if strings.EqualFold(k, "Message-ID") && !messageID.MatchString(v) {
			return fmt.Errorf("%w: Message-ID %q is not <id> or <id@domain>", ErrPermanent, v)
		}
	}
	return nil
}

var messageID = regexp.MustCompile(`^<?[^<>\s@]+(@[^<>\s@]+)?>?$`)

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		// RFC 5322 field names: printable US-ASCII except the colon.
		if r < 33 || r > 126 || r == ':' {
			return false
		}
	}
	return true
}

// compose turns a Message into go-mail's representation, which both transports serialise, so
// that what lands in a .eml file is byte for byte what an SMTP relay would have received.
func compose(from *netmail.Address, m Message, now time.Time) (*gomail.Msg, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	to, _ := netmail.ParseAddress(m.To) // validated above
	g := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	g.FromMailAddress(from)
	g.ToMailAddress(to)
	g.Subject(m.Subject)
	g.SetDateWithValue(now)
	// Transactional mail must not trigger vacation replies (RFC 3834).
	g.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	for k, v := range m.Headers {
		if strings.EqualFold(k, "Message-ID") {
			id := strings.Trim(strings.TrimSpace(v), "<>")
			if !strings.Contains(id, "@") {
				id += "@" + domainOf(from.Address)
			}
			g.SetMessageIDWithValue(id)
			continue
		}
		g.SetGenHeader(gomail.Header(k), v)
	}
	g.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		g.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return g, nil
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 && i < len(addr)-1 {
		return addr[i+1:]
	}
	return "localhost"
}

package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	netmail "net/mail"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

const (
	defaultSubmissionPort = 587
	defaultSMTPSPort      = 465
	// smtpTimeout bounds the connection and each command. A relay slower than this is treated
	// as down, and the outbox retries later; the Sender's claim lease is far longer than the
	// handful of commands one message needs.
	smtpTimeout = 30 * time.Second
)

type smtpTransport struct {
	host     string
	port     int
	implicit bool // smtps: TLS from the first byte
	user     string
	pass     string
	auth     bool
	from     *netmail.Address
	roots    *x509.CertPool
}

func newSMTP(u *url.URL, from *netmail.Address, roots *x509.CertPool) (*smtpTransport, error) {
	t := &smtpTransport{host: u.Hostname(), implicit: u.Scheme == "smtps", from: from, roots: roots}
	if t.host == "" {
		return nil, fmt.Errorf("mail: %s has no host; use %s://user:pass@host:port", u.Redacted(), u.Scheme)
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("mail: %s: an SMTP URL has no path", u.Redacted())
	}
	t.port = defaultSubmissionPort
	if t.implicit {
		t.port = defaultSMTPSPort
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("mail: %s: port %q is not a number from 1 to 65535", u.Redacted(), p)
		}
		t.port = n
	}
	if u.User != nil {
		t.user = u.User.Username()
		t.pass, _ = u.User.Password()
		t.auth = t.user != ""
	}
	return t, nil
}

// Send opens a connection for each message. The outbox sends little and in bursts, so a pooled
// connection would mostly sit idle and go stale; a fresh go-mail client per call also keeps
// concurrent sends from sharing its mutable state.
func (t *smtpTransport) Send(ctx context.Context, msg Message) error {
	g, err := compose(t.from, msg, time.Now())
	if err != nil {
		return err
	}
	opts := []gomail.Option{
		gomail.WithPort(t.port),
		gomail.WithTimeout(smtpTimeout),
		gomail.WithTLSConfig(&tls.Config{ServerName: t.host, MinVersion: tls.VersionTLS12, RootCAs: t.roots}),
	}
	if t.implicit {
		opts = append(opts, gomail.WithSSL())
	} else {
		// Encrypt whenever the server offers STARTTLS. Credentials still never travel in the
		// clear: PLAIN and LOGIN refuse an unencrypted connection to anything but localhost, so
		// a downgraded connection fails to authenticate instead of leaking the password.
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if t.auth {
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1, gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(t.user), gomail.WithPassword(t.pass))
	}
	c, err := gomail.NewClient(t.host, opts...)
	if err != nil {
		return fmt.Errorf("mail: smtp client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, g); err != nil {
		return classifySMTPError(fmt.Errorf("mail: smtp %s:%d: %w", t.host, t.port, err))
	}
	return nil
}

// classifySMTPError marks a refused recipient as permanent: a 5xx answer to RCPT TO means the
// address does not exist or will never take our mail, and retrying for hours only delays the
// report. Everything else, authentication failures included, may be a passing or an operator's
// problem and is retried, so no message is lost while the configuration gets fixed.
func classifySMTPError(err error) error {
	var se *gomail.SendError
	if errors.As(err, &se) && se.Reason == gomail.ErrSMTPRcptTo && !se.IsTemp() {
		return fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	return err
}

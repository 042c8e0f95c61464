package mail

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

const testFrom = "Clearvest <no-reply@clearvest.example.com>"

func testMessage() Message {
	return Message{
		To:      "Zoë Example <zoe@example.com>",
		Subject: "Réinitialisez — your password",
		Text:    "Open https://clearvest.example.com/resetPassword/abc to continue.\nLine two.",
		HTML:    `<!DOCTYPE html><html lang="en"><body><p>Open <a href="https://clearvest.example.com/resetPassword/abc">this link</a>.</p></body></html>`,
		Headers: map[string]string{"Message-ID": "<fixed-id-1@clearvest.example.com>", "X-Clearvest-Template": "password_reset"},
	}
}

// parsed is a message read back the way a mail client would: headers decoded, each MIME part
// found and transfer-decoded.
type parsed struct {
	header netmail.Header
	parts  map[string]string // media type -> decoded body
	outer  string            // the top-level media type
}

func parseEML(t *testing.T, r io.Reader) parsed {
	t.Helper()
	msg, err := netmail.ReadMessage(r)
	if err != nil {
		t.Fatalf("not an RFC 5322 message: %v", err)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type: %v", err)
	}
	p := parsed{header: msg.Header, parts: map[string]string{}, outer: mediaType}
	if !strings.HasPrefix(mediaType, "multipart/") {
		t.Fatalf("top-level Content-Type %q, want multipart/alternative", mediaType)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart() // decodes quoted-printable itself
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("MIME part: %v", err)
		}
		pt, _, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if err != nil {
			t.Fatalf("part Content-Type: %v", err)
		}
		body, err := io.ReadAll(part)
		if err != nil {
			t.Fatalf("part body: %v", err)
		}
		p.parts[pt] = string(body)
	}
	return p
}

func checkParsed(t *testing.T, p parsed, want Message) {
	t.Helper()
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(p.header.Get("Subject"))
	if err != nil || subject != want.Subject {
		t.Errorf("Subject = %q (%v), want %q", subject, err, want.Subject)
	}
	to, err := p.header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "zoe@example.com" || to[0].Name != "Zoë Example" {
		t.Errorf("To = %v (%v)", to, err)
	}
	from, err := p.header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Address != "no-reply@clearvest.example.com" {
		t.Errorf("From = %v (%v)", from, err)
	}
	if _, err := p.header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if got := p.header.Get("Message-ID"); got != want.Headers["Message-ID"] {
		t.Errorf("Message-ID = %q, want %q", got, want.Headers["Message-ID"])
	}
	if got := p.header.Get("X-Clearvest-Template"); got != "password_reset" {
		t.Errorf("custom header = %q", got)
	}
	if got := p.header.Get("MIME-Version"); got != "1.0" {
		t.Errorf("MIME-Version = %q", got)
	}
	if p.outer != "multipart/alternative" {
		t.Errorf("Content-Type %s, want multipart/alternative", p.outer)
	}
	if got := strings.ReplaceAll(p.parts["text/plain"], "\r\n", "\n"); got != want.Text {
		t.Errorf("text part = %q, want %q", got, want.Text)
	}
	if got := strings.ReplaceAll(p.parts["text/html"], "\r\n", "\n"); got != want.HTML {
		t.Errorf("html part = %q, want %q", got, want.HTML)
	}
}

func TestFileTransportWritesParseableEML(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "mail", "out") // created by Open
	tr, err := Open("file://"+filepath.ToSlash(dir), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	want := testMessage()
	if err := tr.Send(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("%d files in the mail directory, want exactly one .eml (no temporary files left)", len(entries))
	}
	name := entries[0].Name()
	if !strings.HasSuffix(name, ".eml") || !mailboxID.MatchString(strings.TrimSuffix(name, ".eml")) {
		t.Fatalf("file name %q is not <time>-<id>.eml", name)
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkParsed(t, parseEML(t, f), want)
}

func TestFileTransportNamesSortByTime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, err := Open("file://"+filepath.ToSlash(dir), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	for i := range n {
		m := testMessage()
		m.Subject = "message " + string(rune('A'+i))
		m.Headers = nil
		if err := tr.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ListFileMailbox(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d messages, want %d", len(got), n)
	}
	for i, e := range got {
		if want := "message " + string(rune('A'+n-1-i)); e.Subject != want {
			t.Errorf("entry %d is %q, want %q (newest first)", i, e.Subject, want)
		}
	}
}

func TestFileTransportRefusesBadMessages(t *testing.T) {
	t.Parallel()
	tr, err := Open("file://"+filepath.ToSlash(t.TempDir()), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Message){
		"bad recipient":      func(m *Message) { m.To = "not an address" },
		"two recipients":     func(m *Message) { m.To = "a@example.com, b@example.com" },
		"subject injection":  func(m *Message) { m.Subject = "Hi\r\nBcc: victim@example.com" },
		"header injection":   func(m *Message) { m.Headers = map[string]string{"X-Note": "a\nBcc: victim@example.com"} },
		"reserved header":    func(m *Message) { m.Headers = map[string]string{"Bcc": "victim@example.com"} },
		"bad header name":    func(m *Message) { m.Headers = map[string]string{"X Note": "a"} },
		"bad message id":     func(m *Message) { m.Headers = map[string]string{"Message-ID": "<a b@c>"} },
		"no plain-text part": func(m *Message) { m.Text = " " },
		"no subject":         func(m *Message) { m.Subject = "" },
	} {
		m := testMessage()
		mutate(&m)
		if err := tr.Send(context.Background(), m); !errors.Is(err, ErrPermanent) {
			t.Errorf("%s: err = %v, want ErrPermanent", name, err)
		}
	}
}

func TestMessageIDGetsSenderDomain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, err := Open("file://"+filepath.ToSlash(dir), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	m := testMessage()
	m.Headers = map[string]string{"Message-ID": "<0190c3a4-0000-7000-8000-000000000001>"}
	if err := tr.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got, err := ListFileMailbox(dir, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, got[0].ID+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	p := parseEML(t, strings.NewReader(string(raw)))
	if id := p.header.Get("Message-ID"); id != "<0190c3a4-0000-7000-8000-000000000001@clearvest.example.com>" {
		t.Errorf("Message-ID = %q", id)
	}
}

func TestOpenRejectsBadURLs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, from, want string }{
		{"", testFrom, "no scheme"},
		{"localhost:25", testFrom, "not supported"},
		{"ftp://mail.example.com", testFrom, `scheme "ftp" is not supported`},
		{"smtp://", testFrom, "has no host"},
		{"smtp://mail.example.com:99999", testFrom, "port"},
		{"smtp://mail.example.com:abc", testFrom, "not a valid URL"},
		{"smtp://mail.example.com/inbox", testFrom, "no path"},
		{"smtp://mail.example.com?tls=off", testFrom, "query parameters"},
		{"file://relative/dir", testFrom, "absolute directory"},
		{"file://", testFrom, "absolute directory"},
		{"smtp://mail.example.com", "", "no sender address"},
		{"smtp://mail.example.com", "not an address", "sender address"},
	} {
		_, err := Open(tc.url, tc.from)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q, %q) = %v, want an error containing %q", tc.url, tc.from, err, tc.want)
		}
	}
	// A password never appears in an error, even a mistyped URL's.
	for _, u := range []string{"smtp://user:s3cret-pw@:25", "smtp://user:s3cret-pw@host/x", "smtp://user:s3cret-pw@host:0", "smtp://user:s3cret%zz-pw@host"} {
		if _, err := Open(u, testFrom); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q) = %v: want an error without the password", u, err)
		}
	}
}

func TestOpenSMTPDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url      string
		port     int
		implicit bool
		user     string
		pass     string
	}{
		{"smtp://mail.example.com", 587, false, "", ""},
		{"smtp://mail.example.com:25/", 25, false, "", ""},
		{"smtps://apikey:p%40ss%3Aword@mail.example.com", 465, true, "apikey", "p@ss:word"},
		{"smtps://mail.example.com:2465", 2465, true, "", ""},
	} {
		tr, err := Open(tc.url, testFrom)
		if err != nil {
			t.Fatalf("Open(%q): %v", tc.url, err)
		}
		s := tr.(*smtpTransport)
		if s.port != tc.port || s.implicit != tc.implicit || s.user != tc.user || s.pass != tc.pass || s.auth != (tc.user != "") {
			t.Errorf("Open(%q) = port %d implicit %v user %q pass %q", tc.url, s.port, s.implicit, s.user, s.pass)
		}
	}
	if dir, ok := MailboxDir("file:///var/lib/clearvest/mail/"); !ok || dir != filepath.FromSlash("/var/lib/clearvest/mail") {
		t.Errorf("MailboxDir = %q, %v", dir, ok)
	}
	if _, ok := MailboxDir("smtp://mail.example.com"); ok {
		t.Error("MailboxDir accepted an SMTP URL")
	}
}

// --- an in-process SMTP server -------------------------------------------------------------

type delivery struct {
	from     string
	to       []string
	data     []byte
	tls      bool
	authUser string
}

type testSMTPServer struct {
	addr       string
	user, pass string // required credentials; empty: no AUTH offered
	rejectRcpt bool

	mu         sync.Mutex
	deliveries []delivery
}

func (s *testSMTPServer) received() []delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]delivery(nil), s.deliveries...)
}

type testSession struct {
	srv  *testSMTPServer
	conn *smtp.Conn
	user string
	from string
	to   []string
}

func (s *testSession) AuthMechanisms() []string {
	if s.srv.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *testSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != s.srv.user || password != s.srv.pass {
			return smtp.ErrAuthFailed
		}
		s.user = username
		return nil
	}), nil
}

func (s *testSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.srv.user != "" && s.user == "" {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.srv.rejectRcpt {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user here"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *testSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.deliveries = append(s.srv.deliveries, delivery{from: s.from, to: s.to, data: b, tls: isTLS, authUser: s.user})
	return nil
}

func (s *testSession) Reset()        { s.from, s.to = "", nil }
func (s *testSession) Logout() error { return nil }

type serverMode int

const (
	plainOnly   serverMode = iota // no TLS at all
	startTLS                      // offers STARTTLS
	implicitTLS                   // TLS from the first byte (smtps)
)

// startSMTP runs a server on a free loopback port until the test ends. It returns the server and
// the certificate pool that trusts it.
func startSMTP(t *testing.T, mode serverMode, configure func(*testSMTPServer)) (*testSMTPServer, *x509.CertPool) {
	t.Helper()
	ts := &testSMTPServer{}
	if configure != nil {
		configure(ts)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &testSession{srv: ts, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = log.New(io.Discard, "", 0)

	cert, roots := selfSignedCert(t)
	tlsConf := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	switch mode {
	case startTLS:
		srv.TLSConfig = tlsConf
	case implicitTLS:
		l = tls.NewListener(l, tlsConf)
	}
	ts.addr = l.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return ts, roots
}

func selfSignedCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "clearvest test smtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(parsed)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: parsed}, pool
}

func checkDelivery(t *testing.T, d delivery, want Message, wantTLS bool, wantUser string) {
	t.Helper()
	if d.from != "no-reply@clearvest.example.com" {
		t.Errorf("MAIL FROM %q", d.from)
	}
	if len(d.to) != 1 || d.to[0] != "zoe@example.com" {
		t.Errorf("RCPT TO %v", d.to)
	}
	if d.tls != wantTLS {
		t.Errorf("delivered over TLS: %v, want %v", d.tls, wantTLS)
	}
	if d.authUser != wantUser {
		t.Errorf("authenticated as %q, want %q", d.authUser, wantUser)
	}
	checkParsed(t, parseEML(t, strings.NewReader(string(d.data))), want)
}

func TestSMTPStartTLSWithAuth(t *testing.T) {
	t.Parallel()
	srv, roots := startSMTP(t, startTLS, func(s *testSMTPServer) { s.user, s.pass = "mailer", "p@ss w:rd" })
	tr, err := open("smtp://mailer:p%40ss%20w%3Ard@"+srv.addr, testFrom, roots)
	if err != nil {
		t.Fatal(err)
	}
	want := testMessage()
	if err := tr.Send(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	got := srv.received()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	checkDelivery(t, got[0], want, true, "mailer")
}

func TestSMTPImplicitTLS(t *testing.T) {
	t.Parallel()
	srv, roots := startSMTP(t, implicitTLS, func(s *testSMTPServer) { s.user, s.pass = "mailer", "secret" })
	tr, err := open("smtps://mailer:secret@"+srv.addr, testFrom, roots)
	if err != nil {
		t.Fatal(err)
	}
	want := testMessage()
	if err := tr.Send(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	got := srv.received()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	checkDelivery(t, got[0], want, true, "mailer")
}

func TestSMTPWithoutTLSOrAuth(t *testing.T) {
	t.Parallel()
	// A local relay that offers no STARTTLS: opportunistic TLS falls back to plain text.
	srv, _ := startSMTP(t, plainOnly, nil)
	tr, err := Open("smtp://"+srv.addr, testFrom)
	if err != nil {
		t.Fatal(err)
	}
	want := testMessage()
	if err := tr.Send(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	got := srv.received()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	checkDelivery(t, got[0], want, false, "")
}

func TestSMTPWrongPasswordIsTemporary(t *testing.T) {
	t.Parallel()
	srv, roots := startSMTP(t, startTLS, func(s *testSMTPServer) { s.user, s.pass = "mailer", "right" })
	tr, err := open("smtp://mailer:wrong@"+srv.addr, testFrom, roots)
	if err != nil {
		t.Fatal(err)
	}
	err = tr.Send(context.Background(), testMessage())
	if err == nil {
		t.Fatal("sent with a wrong password")
	}
	// A misconfigured password is the operator's to fix; the outbox keeps retrying meanwhile.
	if errors.Is(err, ErrPermanent) {
		t.Errorf("auth failure marked permanent: %v", err)
	}
	if strings.Contains(err.Error(), "wrong") && strings.Contains(err.Error(), "mailer:wrong") {
		t.Errorf("error leaks the credentials: %v", err)
	}
	if n := len(srv.received()); n != 0 {
		t.Errorf("server received %d messages", n)
	}
}

func TestSMTPUntrustedCertificateFails(t *testing.T) {
	t.Parallel()
	srv, _ := startSMTP(t, startTLS, func(s *testSMTPServer) { s.user, s.pass = "mailer", "secret" })
	tr, err := open("smtp://mailer:secret@"+srv.addr, testFrom, x509.NewCertPool())
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Send(context.Background(), testMessage()); err == nil {
		t.Fatal("sent through a server whose certificate nobody vouches for")
	}
	if n := len(srv.received()); n != 0 {
		t.Errorf("server received %d messages", n)
	}
}

func TestSMTPRejectedRecipientIsPermanent(t *testing.T) {
	t.Parallel()
	srv, roots := startSMTP(t, startTLS, func(s *testSMTPServer) { s.rejectRcpt = true })
	tr, err := open("smtp://"+srv.addr, testFrom, roots)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Send(context.Background(), testMessage()); !errors.Is(err, ErrPermanent) {
		t.Fatalf("err = %v, want ErrPermanent", err)
	}
}

func TestSMTPServerDownIsTemporary(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	tr, err := Open("smtp://"+addr, testFrom)
	if err != nil {
		t.Fatal(err)
	}
	err = tr.Send(context.Background(), testMessage())
	if err == nil || errors.Is(err, ErrPermanent) {
		t.Fatalf("err = %v, want a temporary failure", err)
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"clearvest/platform/mail"
)

// This file runs `clearvest serve` inside the test process, configured through the environment
// as the binary is, and talks to it over HTTP the way a browser does. Tests that use it set
// environment variables, so they cannot run in parallel.

// liveEnv is the configuration of a live server. Every field becomes an environment variable.
type liveEnv struct {
	databaseURL string
	dataDir     string
	secret      []byte
	previous    [][]byte
	googleID    string // GOOGLE_CLIENT_ID; "" leaves Google sign-in off
	googleIss   string
}

func (e liveEnv) set(t *testing.T) {
	t.Helper()
	prev := make([]string, len(e.previous))
	for i, p := range e.previous {
		prev[i] = base64.StdEncoding.EncodeToString(p)
	}
	for k, v := range map[string]string{
		"DATABASE_URL":                  e.databaseURL,
		"CLEARVEST_DATA_DIR":            e.dataDir,
		"CLEARVEST_ENV":                 "development",
		"CLEARVEST_ADDR":                "127.0.0.1:0",
		"CLEARVEST_PUBLIC_URL":          "",
		"CLEARVEST_MAIL_URL":            "file://" + filepath.ToSlash(e.mailDir()),
		"CLEARVEST_SECRET_KEY":          base64.StdEncoding.EncodeToString(e.secret),
		"CLEARVEST_SECRET_KEY_PREVIOUS": strings.Join(prev, ","),
		"GOOGLE_CLIENT_ID":              e.googleID,
		"GOOGLE_ISSUER":                 e.googleIss,
		"CLEARVEST_BLOB_URL":            "",
	} {
		t.Setenv(k, v)
	}
}

func (e liveEnv) mailDir() string { return filepath.Join(e.dataDir, "mail") }

// liveServer is one running `clearvest serve`.
type liveServer struct {
	url  string // the public URL, http://localhost:<port>
	port string
	stop func() error
	logs *syncBuffer
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var runningAt = regexp.MustCompile(`Clearvest is running at (http://localhost:(\d+))`)

// startServe runs `clearvest serve` with e and waits until it listens. It returns the error serve
// ended with when it does not get that far.
func startServe(t *testing.T, e liveEnv) (*liveServer, error) {
	t.Helper()
	e.set(t)
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"serve"}, w, logs)
		_ = w.CloseWithError(io.EOF)
		done <- err
	}()
	lines := bufio.NewScanner(out)
	var m []string
	for m == nil && lines.Scan() {
		m = runningAt.FindStringSubmatch(lines.Text())
	}
	if m == nil {
		cancel()
		err := <-done
		if err == nil {
			err = errors.New("serve ended without an error before listening")
		}
		return nil, err
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	var once sync.Once
	var stopErr error
	s := &liveServer{url: m[1], port: m[2], logs: logs, stop: func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}}
	t.Cleanup(func() { _ = s.stop() })
	return s, nil
}

func mustServe(t *testing.T, e liveEnv) *liveServer {
	t.Helper()
	s, err := startServe(t, e)
	if err != nil {
		t.Fatalf("serve did not start: %v", err)
	}
	return s
}

// browser is one browser: its own cookies, its own address (a loopback address of its own, so
// the server sees a distinct client IP) and user agent, sending what the UI sends.
type browser struct {
	t        *testing.T
	srv      *liveServer
	http     *http.Client
	header   http.Header
	position int64
}

func newBrowser(t *testing.T, srv *liveServer, ip, userAgent string) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, srv: srv, header: http.Header{
		"Origin":           {srv.url},
		"X-Requested-With": {"XMLHttpRequest"},
		"User-Agent":       {userAgent},
	}}
	local := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	plain := &net.Dialer{Timeout: 10 * time.Second}
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		// The public URL names localhost; the browser reaches it from its own address.
		if port := b.srv.port; addr == "localhost:"+port {
			return local.DialContext(ctx, "tcp4", "127.0.0.1:"+port)
		}
		return plain.DialContext(ctx, network, addr)
	}}
	t.Cleanup(transport.CloseIdleConnections)
	b.http = &http.Client{Jar: jar, Transport: transport, Timeout: 60 * time.Second}
	return b
}

// moveTo points the browser at another server, keeping its cookies: the same site, restarted.
func (b *browser) moveTo(srv *liveServer) {
	b.srv = srv
	b.header.Set("Origin", srv.url)
	b.http.Transport.(*http.Transport).CloseIdleConnections()
}

// noRedirects makes the browser stop at each redirect, so that each hop can be followed by hand.
func (b *browser) noRedirects() *browser {
	b.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return b
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("status %d: %s is not the expected JSON: %v", r.status, r.body, err)
	}
}

// do sends a request to a path of the server (or any absolute URL). A body that is not a
// *multipart.Writer's output is sent as JSON.
func (b *browser) do(method, path string, body any) reply {
	b.t.Helper()
	target := path
	if strings.HasPrefix(path, "/") {
		target = b.srv.url + path
	}
	var r io.Reader
	contentType := ""
	switch v := body.(type) {
	case nil:
	case formFile:
		r, contentType = bytes.NewReader(v.body), v.contentType
	default:
		j, err := json.Marshal(v)
		if err != nil {
			b.t.Fatal(err)
		}
		r, contentType = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequestWithContext(context.Background(), method, target, r)
	if err != nil {
		b.t.Fatal(err)
	}
	for k, vs := range b.header {
		req.Header[k] = vs
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if b.position > 0 && method == http.MethodGet {
		req.Header.Set("X-Clearvest-Position", strconv.FormatInt(b.position, 10))
	}
	res, err := b.http.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	if p, err := strconv.ParseInt(res.Header.Get("X-Clearvest-Position"), 10, 64); err == nil {
		b.position = max(b.position, p)
	}
	return reply{status: res.StatusCode, header: res.Header, body: data}
}

// must is do that fails the test unless the answer has the status.
func (b *browser) must(status int, method, path string, body any) reply {
	b.t.Helper()
	r := b.do(method, path, body)
	if r.status != status {
		b.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, r.body)
	}
	return r
}

type formFile struct {
	body        []byte
	contentType string
}

// photoForm is a multipart form with one file field named photo.
func photoForm(t *testing.T, name string, data []byte) formFile {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("photo", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return formFile{body: buf.Bytes(), contentType: w.FormDataContentType()}
}

// mailbox reads the messages serve's sender writes to the file mailbox.
type mailbox struct {
	t    *testing.T
	dir  string
	seen map[string]bool
}

func newMailbox(t *testing.T, e liveEnv) *mailbox {
	return &mailbox{t: t, dir: e.mailDir(), seen: map[string]bool{}}
}

// next waits for a message to an address, with subject containing subject, that it has not
// returned before. The sender works in the background, so this polls the directory.
func (m *mailbox) next(to, subject string) mail.MailboxEntry {
	m.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := mail.ListFileMailbox(m.dir, 1000)
		if err != nil {
			m.t.Fatal(err)
		}
		for i := len(list) - 1; i >= 0; i-- {
			e := list[i]
			if !m.seen[e.ID] && strings.Contains(strings.ToLower(e.To), strings.ToLower(to)) && strings.Contains(e.Subject, subject) {
				m.seen[e.ID] = true
				return e
			}
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("no new e-mail to %s with subject %q", to, subject)
		}
		time.Sleep(20 * time.Millisecond) // polling the mailbox directory
	}
}

var (
	mailCode = regexp.MustCompile(`\b(\d{6})\b`)
	mailLink = regexp.MustCompile(`/(verify|resetPassword|secure-account)/([A-Za-z0-9_-]{43})`)
)

// code returns the 6-digit code of a message.
func (m *mailbox) code(e mail.MailboxEntry) string {
	m.t.Helper()
	c := mailCode.FindStringSubmatch(e.Text)
	if c == nil {
		m.t.Fatalf("no code in %q:\n%s", e.Subject, e.Text)
	}
	return c[1]
}

// link returns the token of the message's link to route ("verify", "resetPassword").
func (m *mailbox) link(e mail.MailboxEntry, route string) string {
	m.t.Helper()
	for _, l := range mailLink.FindAllStringSubmatch(e.Text, -1) {
		if l[1] == route {
			return l[2]
		}
	}
	m.t.Fatalf("no /%s/ link in %q:\n%s", route, e.Subject, e.Text)
	return ""
}

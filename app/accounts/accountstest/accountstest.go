// Package accountstest builds a real accounts service for tests: a fresh PostgreSQL database
// with every schema, the event store, the personal-data cipher, the identity read models, a
// file:// mailbox and a blob directory. Tests drive time-independent parts directly: they
// deliver mail with DeliverMail and bring read models up to date with CatchUp, instead of
// waiting for background loops.
package accountstest

import (
	"clearvest/domain/broadcast"
	"context"
	"crypto/rand"
	"time"

	"log/slog"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/accounts"
	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/proposal"
	"clearvest/domain/support"
	"clearvest/eventstore"
	"clearvest/eventstore/pii"
	"clearvest/eventstore/postgres"
	"clearvest/platform/auth"
	"clearvest/platform/auth/password"
	"clearvest/platform/blob"
	"clearvest/platform/idempotency"
	"clearvest/platform/mail"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgmigrate/pgmigratetest"
	"clearvest/projections"
	"clearvest/projections/securitylog"
	"clearvest/projections/users"
)

// cheapPasswords are argon2id's smallest parameters. Tests sign people up and in thousands of
// times, and at the production cost (19 MiB and two passes a hash) hashing alone was a large
// share of a test run under the race detector; platform/auth/password tests the real cost.
var cheapPasswords = password.Params{Memory: 8, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// PublicURL is the public URL the test service puts in e-mailed links.
const PublicURL = "http://clearvest.test"

// Env is a wired accounts service and what tests need to look behind it.
type Env struct {
	Accounts *accounts.Service
	// Commands is the service's command runner (with its cache), as serve shares it.
	Commands *command.Runner
	Pool     *pgxpool.Pool
	Store    *postgres.Store
	Codec    *eventstore.Registry
	Cipher   *pii.Cipher
	Runner   *projections.Runner
	Sender   *mail.Sender
	MailDir  string
	Clock    clock.Clock
	Secret   []byte

	dbURL string
}

// Option adjusts the environment before the service is built.
type Option func(*options)

type options struct {
	snapshotEvery          int
	clock                  clock.Clock
	googleClient, googleIs string
	waitUntil              func(ctx context.Context, t time.Time) error
	tracer                 pgx.QueryTracer
	onClosed               func(ctx context.Context, userID string) error
	closeCheck             func(ctx context.Context, userID string) error
	readModels             func(codec *eventstore.Registry) []projections.Projection
	migrations             []pgmigrate.Set
}

// WithReadModels adds read models (built on the environment's codec) to its projection runner,
// and migration sets their services need, so a service's tests and the API's read-your-writes
// wait see them.
func WithReadModels(f func(codec *eventstore.Registry) []projections.Projection, migrations ...pgmigrate.Set) Option {
	return func(o *options) { o.readModels, o.migrations = f, migrations }
}

// WithOnClosed sets what runs after an account's closure (accounts.Deps.OnClosed).
func WithOnClosed(f func(ctx context.Context, userID string) error) Option {
	return func(o *options) { o.onClosed = f }
}

// WithCloseCheck sets what refuses an account's closure (accounts.Deps.CloseCheck); nil checks
// nothing, as before an account's money was checked.
func WithCloseCheck(f func(ctx context.Context, userID string) error) Option {
	return func(o *options) { o.closeCheck = f }
}

// WithGoogle turns Google sign-in on for clientID, trusting the OpenID provider at issuer
// (a local one in tests).
func WithGoogle(clientID, issuer string) Option {
	return func(o *options) { o.googleClient, o.googleIs = clientID, issuer }
}

// WithClock makes the service (tokens, sessions, codes, limits) read time from c.
func WithClock(c clock.Clock) Option { return func(o *options) { o.clock = c } }

// WithWaitUntil replaces the service's timed waits (accounts.Deps.WaitUntil).
func WithWaitUntil(f func(ctx context.Context, t time.Time) error) Option {
	return func(o *options) { o.waitUntil = f }
}

// WithQueryTracer traces every query of the environment's pool (tests count the queries a
// request makes with it).
func WithQueryTracer(tr pgx.QueryTracer) Option { return func(o *options) { o.tracer = tr } }

// WithSnapshotEvery sets how many events a money stream grows by before its next snapshot
// (default 3, so that tests of the money story load accounts from snapshots too).
func WithSnapshotEvery(n int) Option { return func(o *options) { o.snapshotEvery = n } }

// New builds the environment; everything is closed when the test ends.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	o := options{clock: clock.System(), snapshotEvery: 3}
	for _, f := range opts {
		f(&o)
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	return build(t, pgmigratetest.NewDatabase(t, append(baseMigrations(), o.migrations...)...), secret, o)
}

// SecondProcess is another server process on the same database: its own pool, event store,
// projection runner and accounts service (with its own in-memory state), sharing only what
// processes share, the database and the secret key.
func (e *Env) SecondProcess(t testing.TB, opts ...Option) *Env {
	t.Helper()
	o := options{clock: e.Clock}
	for _, f := range opts {
		f(&o)
	}
	return build(t, e.dbURL, e.Secret, o)
}

// baseMigrations are the tables every environment has; WithMigrations adds a test's own.
func baseMigrations() []pgmigrate.Set {
	return []pgmigrate.Set{postgres.Migrations, projections.Migrations, pii.Migrations,
		auth.Migrations, mail.Migrations, accounts.Migrations, idempotency.Migrations}
}

func build(t testing.TB, dbURL string, secret []byte, o options) *Env {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = o.tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	t.Cleanup(pool.Close)
	if err := pgmigrate.Apply(ctx, pool, baseMigrations()...); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	cipher, err := pii.New(pool, secret)
	if err != nil {
		t.Fatal(err)
	}
	codec := eventstore.NewRegistry()
	identity.RegisterEvents(codec)
	kyc.RegisterEvents(codec)
	account.RegisterEvents(codec)
	support.RegisterEvents(codec)
	broadcast.RegisterEvents(codec)
	proposal.RegisterEvents(codec)
	codec.SetCipher(cipher)

	logger := slog.New(slog.DiscardHandler)
	store := postgres.New(pool, postgres.WithLogger(logger))
	t.Cleanup(store.Close)
	// A generous bound: under the race detector on a busy CI machine, catching up can take far
	// longer than the few seconds a user-facing read-your-writes wait allows.
	models := []projections.Projection{users.New(codec), securitylog.New(codec)}
	if o.readModels != nil {
		models = append(models, o.readModels(codec)...)
	}
	if err := pgmigrate.Apply(ctx, pool, o.migrations...); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	runner, err := projections.NewRunner(pool, store, models,
		projections.WithLogger(logger), projections.WithWaitTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	// The runner runs as in serve: catching up on events needs the database's snapshot horizon
	// to pass them, which other sessions on a shared test server can hold back for a moment.
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })

	dir := t.TempDir()
	mailDir := filepath.Join(dir, "mail")
	transport, err := mail.Open((&url.URL{Scheme: "file", Path: filepath.ToSlash(mailDir)}).String(), "Clearvest <no-reply@clearvest.test>")
	if err != nil {
		t.Fatal(err)
	}
	sender := mail.NewSender(pool, transport, mail.WithLogger(logger), mail.WithClock(o.clock))
	blobs, err := blob.NewDisk(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	commands := command.NewRunner(store, codec, command.WithLogger(logger), money.Snapshots(o.snapshotEvery))
	t.Cleanup(commands.SnapshotsSaved) // before the pool closes under them
	svc, err := accounts.New(accounts.Config{
		PublicURL: PublicURL, SecretKey: secret, GoogleClientID: o.googleClient, GoogleIssuer: o.googleIs,
	}, accounts.Deps{
		Pool: pool, Store: store, Codec: codec, PII: cipher, Sender: sender, Blobs: blobs, Clock: o.clock, Logger: logger,
		WaitUntil:  o.waitUntil,
		Commands:   commands,
		OnClosed:   o.onClosed,
		CloseCheck: o.closeCheck,
		Passwords:  password.NewHasher(cheapPasswords, 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	// The session guard runs as in serve, so tests exercise the cached check that production uses.
	watchCtx, stopWatching := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() { defer close(watched); _ = svc.WatchSessions(watchCtx) }()
	t.Cleanup(func() { stopWatching(); <-watched })
	for deadline := time.Now().Add(30 * time.Second); !svc.SessionCacheTrusted(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the session guard did not start listening")
		}
	}
	return &Env{Accounts: svc, Commands: commands, Pool: pool, Store: store, Codec: codec, Cipher: cipher, Runner: runner,
		Sender: sender, MailDir: mailDir, Clock: o.clock, Secret: secret, dbURL: dbURL}
}

// CatchUp waits until the read models have applied every event committed so far.
func (e *Env) CatchUp(t testing.TB) {
	t.Helper()
	var head int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT coalesce(max(position), 0) FROM events`).Scan(&head); err != nil {
		t.Fatal(err)
	}
	if err := e.Runner.WaitFor(context.Background(), head); err != nil {
		t.Fatalf("projections did not reach position %d: %v", head, err)
	}
}

// Mails delivers the outbox to the file mailbox and returns every message in it, newest first.
func (e *Env) Mails(t testing.TB) []mail.MailboxEntry {
	t.Helper()
	if _, err := e.Sender.SendDue(context.Background()); err != nil {
		t.Fatalf("sending mail: %v", err)
	}
	list, err := mail.ListFileMailbox(e.MailDir, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// MailsTo returns the messages to one address whose subject contains subject, newest first.
func (e *Env) MailsTo(t testing.TB, to, subject string) []mail.MailboxEntry {
	t.Helper()
	var out []mail.MailboxEntry
	for _, m := range e.Mails(t) {
		if strings.Contains(strings.ToLower(m.To), strings.ToLower(to)) && strings.Contains(m.Subject, subject) {
			out = append(out, m)
		}
	}
	return out
}

var (
	codePattern = regexp.MustCompile(`\b(\d{6})\b`)
	linkPattern = regexp.MustCompile(regexp.QuoteMeta(PublicURL) + `(/[A-Za-z-]+/)([A-Za-z0-9_-]{43})`)
)

// LatestCode returns the 6-digit code of the newest message to an address with subject.
func (e *Env) LatestCode(t testing.TB, to, subject string) string {
	t.Helper()
	list := e.MailsTo(t, to, subject)
	if len(list) == 0 {
		t.Fatalf("no e-mail to %s with subject %q", to, subject)
	}
	m := codePattern.FindStringSubmatch(list[0].Text)
	if m == nil {
		t.Fatalf("no code in e-mail %q:\n%s", list[0].Subject, list[0].Text)
	}
	return m[1]
}

// LatestLink returns the token of the newest link with the given route ("/verify/") in a
// message to an address.
func (e *Env) LatestLink(t testing.TB, to, route string) string {
	t.Helper()
	for _, m := range e.MailsTo(t, to, "") {
		for _, l := range linkPattern.FindAllStringSubmatch(m.Text, -1) {
			if l[1] == route {
				return l[2]
			}
		}
	}
	t.Fatalf("no %s link in the e-mails to %s", route, to)
	return ""
}

// Package accounts is the application service of identity and access: one method per flow a
// person goes through (register, verify, sign in, reset, …) or staff perform (change a role,
// suspend, close). It orchestrates the user aggregate (domain/identity), the credential and
// session tables (auth), the mail outbox (mail) and the event store.
//
// Every flow that changes something does all its writes in one PostgreSQL transaction: the
// events (postgres.Store.AppendTx, always first, which the store's ordering guarantee needs),
// then the rows outside the log that those events justify (principal, credentials, sessions,
// codes) and the e-mails they cause (mail.Enqueue). Either the fact, its consequences and its
// notifications all commit, or none do. After the commit the service announces the events to
// the projections and kicks the mail sender.
//
// The service trusts its caller on *who may call what* (api/policy.go decides that); it
// enforces everything else: the aggregate's rules, rate limits, codes, sessions.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/aggregate"
	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/platform/auth/principal"
	"clearvest/platform/blob"
	"clearvest/platform/mail"
	"clearvest/projections/users"
)

// Kicker wakes the mail sender after a commit; *mail.Sender is one (and a nil one is fine).
type Kicker interface{ Kick() }

// PersonalData is the personal-data key store; *pii.Cipher is one. Erase destroys a subject's
// key (crypto-shredding); Seal is used to create a subject's key before a transaction needs it.
type PersonalData interface {
	Erase(ctx context.Context, subject string) error
	Seal(subject, plaintext string) (string, error)
}

// Config is what the service needs from the configuration.
type Config struct {
	// PublicURL is where links in e-mails point (CLEARVEST_PUBLIC_URL).
	PublicURL string
	// SecretKey is the decoded CLEARVEST_SECRET_KEY; tokens, codes and sealed secrets derive
	// their keys from it.
	SecretKey []byte
	// GoogleClientID enables Google sign-in when set.
	GoogleClientID string
	// GoogleClientSecret authenticates a confidential client at the token endpoint; optional.
	GoogleClientSecret string
	// GoogleIssuer defaults to Google's; tests and development point it at a local provider.
	GoogleIssuer string
	// Production turns development conveniences off.
	Production bool
	// SupportEmail is offered in e-mails, if set.
	SupportEmail string
}

// Deps are the collaborators the service orchestrates.
type Deps struct {
	Pool  *pgxpool.Pool
	Store *postgres.Store
	// Codec must know the identity events (identity.RegisterEvents) and have the personal-data
	// cipher set, so that personal fields are sealed per user.
	Codec  *eventstore.Registry
	PII    PersonalData
	Sender Kicker
	Blobs  blob.Store
	Clock  clock.Clock
	Logger *slog.Logger
}

// Service runs the identity flows. It is safe for concurrent use.
type Service struct {
	cfg    Config
	pool   *pgxpool.Pool
	store  *postgres.Store
	codec  *eventstore.Registry
	pii    PersonalData
	sender Kicker
	blobs  blob.Store
	clock  clock.Clock
	log    *slog.Logger
	tmpl   *mail.Templates

	principals  *principal.Principals
	emails      *principal.Emails
	credentials *principal.Credentials

	authParts
}

// New wires the service. It fails on configuration that cannot work (a short secret key, an
// unusable public URL), at start-up rather than at the first sign-in.
func New(cfg Config, d Deps) (*Service, error) {
	if d.Pool == nil || d.Store == nil || d.Codec == nil || d.Blobs == nil {
		return nil, errors.New("accounts: New needs a pool, an event store, a codec and a blob store")
	}
	if !d.Codec.Known(identity.TypeRegistered) {
		return nil, errors.New("accounts: the codec does not know the identity events (identity.RegisterEvents)")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	tmpl, err := mail.NewTemplates(mail.Branding{PublicURL: cfg.PublicURL, SupportEmail: cfg.SupportEmail})
	if err != nil {
		return nil, fmt.Errorf("accounts: %w", err)
	}
	s := &Service{
		cfg: cfg, pool: d.Pool, store: d.Store, codec: d.Codec, pii: d.PII, sender: d.Sender,
		blobs: d.Blobs, clock: d.Clock, log: d.Logger, tmpl: tmpl,
		principals:  principal.NewPrincipals(d.Pool, d.Clock),
		emails:      principal.NewEmails(d.Pool),
		credentials: principal.NewCredentials(d.Pool, d.Clock),
	}
	if err := s.initAuth(); err != nil {
		return nil, err
	}
	return s, nil
}

// unit is one transaction of a flow: what it appended and whether it enqueued mail, so the
// commit knows whom to wake.
type unit struct {
	s        *Service
	tx       pgx.Tx
	meta     eventstore.Metadata
	position int64
	appended bool
	mailed   bool
	// authChanged: a principal or session row changed (syncPrincipal, endSessions).
	authChanged bool
}

// maxAttempts bounds retries of a flow whose user stream moved under it (two tabs saving a
// profile at once): each retry reloads and decides again.
const maxAttempts = 4

// inTx runs fn in one transaction and commits it, then announces the events and wakes the mail
// sender. fn must append events before any other write, and must not use the pool: a flow
// holds one connection at a time, or concurrent flows could exhaust the pool waiting for each
// other. Reading the user and preparing their personal-data key happen before (onUser).
func (s *Service) inTx(ctx context.Context, meta eventstore.Metadata, fn func(u *unit) error) (int64, error) {
	if meta.CorrelationID == "" {
		meta.CorrelationID = eventstore.NewEventID().String()
	}
	if meta.CausationID == "" {
		meta.CausationID = meta.CorrelationID
	}
	u := &unit{s: s, meta: meta}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		u.tx = tx
		return fn(u)
	})
	if err != nil {
		return 0, err
	}
	if u.appended {
		s.store.Announce()
	}
	if u.mailed && s.sender != nil {
		s.sender.Kick()
	}
	if u.authChanged {
		s.settleSessions(ctx)
	}
	return u.position, nil
}

// onUser loads a user, then runs fn on them in one transaction (inTx). When another writer
// appended to the user's stream in between, the append conflicts and the flow starts again from
// a fresh load, since the decision may differ on the new state.
func (s *Service) onUser(ctx context.Context, meta eventstore.Metadata, userID string, fn func(u *unit, user loaded) error) (int64, error) {
	for attempt := 1; ; attempt++ {
		user, err := s.loadUser(ctx, userID)
		if err != nil {
			return 0, err
		}
		if err := s.prepareKey(user.ID()); err != nil {
			return 0, err
		}
		pos, err := s.inTx(ctx, meta, func(u *unit) error { return fn(u, user) })
		if errors.Is(err, eventstore.ErrConcurrency) && attempt < maxAttempts {
			s.log.DebugContext(ctx, "accounts: user stream moved; deciding again", "attempt", attempt)
			continue
		}
		return pos, err
	}
}

// prepareKey makes sure the user's personal-data key is created and cached before a transaction
// needs it to seal fields: the key store works on its own connection.
func (s *Service) prepareKey(userID string) error {
	if s.pii == nil || userID == "" {
		return nil
	}
	_, err := s.pii.Seal(userID, "-")
	if errors.Is(err, eventstore.ErrErased) {
		// A closed account: nothing personal may be sealed for it any more, and the aggregate
		// refuses the commands that would try.
		return nil
	}
	return err
}

func userStream(id string) eventstore.StreamID {
	return eventstore.NewStreamID(identity.StreamCategory, id)
}

// loaded is a user aggregate with what the API shows that is not part of its state.
type loaded struct {
	*identity.User
	createdAt time.Time
}

// activeUser loads a user who may sign in. A suspended principal gets identity.ErrSuspended (the login
// page explains it); any other inactive status gets notActive, so that a closed account answers
// like the flow's ordinary refusal and reveals nothing more.
func (s *Service) activeUser(ctx context.Context, uid uuid.UUID, notActive error) (loaded, error) {
	p, err := s.principals.Get(ctx, uid)
	if err != nil {
		return loaded{}, err
	}
	switch p.Status {
	case identity.StatusActive:
	case identity.StatusSuspended:
		return loaded{}, identity.ErrSuspended
	default:
		return loaded{}, notActive
	}
	return s.loadUser(ctx, uid.String())
}

// loadUser replays a user's stream. A missing stream gives an unregistered user, which the
// aggregate refuses every command for (ErrNotRegistered, a 404).
func (s *Service) loadUser(ctx context.Context, id string) (loaded, error) {
	u := loaded{User: identity.New()}
	if _, err := uuid.Parse(id); err != nil {
		return u, nil
	}
	stream := userStream(id)
	var version int64
	for {
		page, err := s.store.ReadStream(ctx, stream, version+1, 500)
		if err != nil {
			return u, fmt.Errorf("accounts: load user: %w", err)
		}
		history := make([]aggregate.Event, len(page))
		for i, env := range page {
			if history[i], err = s.codec.Decode(env); err != nil {
				return u, fmt.Errorf("accounts: load user: %w", err)
			}
			if env.Version == 1 {
				u.createdAt = env.RecordedAt
			}
			version = env.Version
		}
		aggregate.Load(u.User, version, history...)
		if len(page) < 500 {
			return u, nil
		}
	}
}

// appendUser appends the events the aggregate raised, expecting the version it was loaded at.
// Personal fields are sealed with the user's own key (EncodeFor).
func (u *unit) appendUser(ctx context.Context, user *identity.User) error {
	changes := user.Changes()
	if len(changes) == 0 {
		return nil
	}
	stream := userStream(user.ID())
	events := make([]eventstore.NewEvent, len(changes))
	for i, c := range changes {
		e, err := u.s.codec.EncodeFor(stream, c, u.meta)
		if err != nil {
			return fmt.Errorf("accounts: encode %s: %w", c.EventName(), err)
		}
		events[i] = e
	}
	envs, err := u.s.store.AppendTx(ctx, u.tx, eventstore.StreamAppend{
		Stream: stream, ExpectedVersion: user.LoadedVersion(), Events: events,
	})
	if err != nil {
		return err
	}
	u.appended = true
	u.position = max(u.position, envs[len(envs)-1].Position)
	return nil
}

// mail renders a template and puts the message in the outbox, in this transaction. The dedupe
// key names the cause, so a retried flow never mails twice.
func (u *unit) mail(ctx context.Context, dedupeKey, to, template string, data any, scrub bool) error {
	subject, text, html, err := u.s.tmpl.Render(template, data)
	if err != nil {
		return err
	}
	if err := mail.Enqueue(ctx, u.tx, dedupeKey, mail.Message{To: to, Subject: subject, Text: text, HTML: html}, scrub); err != nil {
		return err
	}
	u.mailed = true
	return nil
}

// syncPrincipal writes the write-side truth of role and status for the user as the aggregate
// now says, so the next request sees it.
func (u *unit) syncPrincipal(ctx context.Context, user *identity.User) error {
	id, err := uuid.Parse(user.ID())
	if err != nil {
		return err
	}
	u.authChanged = true
	return u.s.principals.Upsert(ctx, u.tx, id, user.Role(), user.Status())
}

func metaFor(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.Client.IP}
}

// view is the API's picture of a user. Money and KYC fields are placeholders until the money
// and KYC read models exist.
func view(u loaded) User {
	p := u.Profile()
	return User{
		ID: u.ID(), Name: p.Name, Email: u.Email(), Phone: p.Phone, Country: p.Country, Bio: p.Bio,
		Photo: p.Photo, Role: string(u.Role()), Status: string(u.Status()), Verified: u.EmailVerified(),
		KYCStatus: "Not Submitted", Balance: "0.00", InvestmentBalance: "0.00", TotalMaturityAmount: "0.00",
		Fees: "0.00", ReferralCode: u.ReferralCode(), TwoFactorEnabled: u.TwoFactorEnabled(),
		CreatedAt: u.createdAt,
	}
}

// listed is the API's picture of a user from the users read model, as view is from the stream.
func listed(u users.User) User {
	return User{
		ID: u.ID, Name: u.Name, Email: u.Email, Phone: u.Phone, Country: u.Country, Bio: u.Bio, Photo: u.Photo,
		Role: string(u.Role), Status: string(u.Status), Verified: u.IsVerified, KYCStatus: u.KYCStatus,
		Balance: "0.00", InvestmentBalance: "0.00", TotalMaturityAmount: "0.00", Fees: "0.00",
		ReferralCode: u.ReferralCode, TwoFactorEnabled: u.TwoFactorEnabled, CreatedAt: u.CreatedAt,
	}
}

// User returns a user from the users read model, one indexed row: it is what every signed-in
// page asks for, and replaying the stream each time would cost a read and a decryption per
// event. Like every query it is as fresh as the read model; a client that sends the position
// of its last command (X-Clearvest-Position) is answered only once the model has passed it
// (docs/product-rules.md, "Read-your-writes"). A user the model does not hold yet (a
// registration a moment ago, asked without its position) is read from their stream.
func (s *Service) User(ctx context.Context, userID string) (User, error) {
	row, err := users.Get(ctx, s.pool, userID)
	if err == nil {
		if row.Status == identity.StatusClosed {
			return User{}, ErrUserNotFound
		}
		return listed(row), nil
	}
	if !errors.Is(err, users.ErrNotFound) {
		return User{}, err
	}
	u, err := s.loadUser(ctx, userID)
	if err != nil {
		return User{}, err
	}
	if !u.Registered() || u.Status() == identity.StatusClosed {
		return User{}, ErrUserNotFound
	}
	return view(u), nil
}

// link builds an absolute URL to a UI route.
func (s *Service) link(path string) string { return s.cfg.PublicURL + path }

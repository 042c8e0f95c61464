// Package accounts is the application service of identity and access: one method per flow a
// person goes through (register, verify, sign in, reset, …) or staff perform (change a role,
// suspend, close). It orchestrates the user aggregate (domain/identity), the credential and
// session tables (auth), the mail outbox (mail) and the event store.
//
// Every flow that changes something is one command of the command runner (app/command), which
// does all its writes in one PostgreSQL transaction: the events (always first, which the store's
// ordering guarantee needs), then the rows outside the log that those events justify (principal,
// credentials, sessions, codes) and the e-mails they cause (mail.Enqueue). Either the fact, its
// consequences and its notifications all commit, or none do. The runner retries a flow whose
// user stream moved under it or whose transaction deadlocked, and announces the events after
// the commit; the service then kicks the mail sender.
//
// The service trusts its caller on *who may call what* (api/policy.go decides that); it
// enforces everything else: the aggregate's rules, rate limits, codes, sessions.
package accounts

import (
	"clearvest/platform/auth"
	"clearvest/platform/pgread"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/aggregate"
	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/password"
	"clearvest/platform/auth/principal"
	"clearvest/platform/blob"
	"clearvest/platform/mail"
	"clearvest/projections/users"
)

// Kicker wakes the mail sender after a commit; *mail.Sender is one (and a nil one is fine).
type Kicker interface{ Kick() }

// PersonalData is the personal-data key store; *pii.Cipher is one. Seal is used to create a
// subject's key before its registration; the registration then claims the new key with its
// first events (ClaimStatement) and discards it when they fail (Discard), so no key outlives a
// registration that did not happen. EraseStatement destroys a key (crypto-shredding) with the
// closing command's event, and Erase afterwards makes this process forget it for good.
type PersonalData interface {
	Seal(subject, plaintext string) (string, error)
	ClaimStatement(subject string) (string, []any, error)
	Discard(ctx context.Context, subject string) error
	EraseStatement(subject string) (string, []any, error)
	Erase(ctx context.Context, subject string) error
}

// Config is what the service needs from the configuration.
type Config struct {
	// PublicURL is where links in e-mails point (CLEARVEST_PUBLIC_URL).
	PublicURL string
	// SecretKey is the decoded CLEARVEST_SECRET_KEY; tokens, codes and sealed secrets derive
	// their keys from it.
	SecretKey []byte
	// PreviousSecretKeys (CLEARVEST_SECRET_KEY_PREVIOUS) still verify tokens, redeem codes and
	// open sealed secrets made before the secret key was rotated.
	PreviousSecretKeys [][]byte
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
	// WaitUntil blocks until Clock reads t, or ctx ends; nil waits on a timer. Flows that must
	// take a fixed time whatever they find (ForgotPassword) wait through it, so that tests can
	// check the deadline instead of measuring time.
	WaitUntil func(ctx context.Context, t time.Time) error
	// Commands runs the flows' commands; nil means a runner of its own on Pool, Store and Codec.
	// Share the process's runner, so that one cache holds each user stream.
	Commands *command.Runner
	// OnClosed, when set, runs after an account's closure committed, for what other
	// capabilities keep about the user outside the log (their identity documents). A failure is
	// logged: the closure stands, and the retention run deletes what is left.
	OnClosed func(ctx context.Context, userID string) error
	// CloseCheck, when set, runs before an account is closed and refuses the closure with its
	// error: the money service's CheckClosable, so that an account holding money is paid out
	// first. It is the one check every path that closes an account calls (closeRefusal).
	CloseCheck func(ctx context.Context, userID string) error
	// Passwords hashes and checks passwords; nil means argon2id with password.DefaultParams.
	// Tests pass a cheaper one: the parameters travel with each hash, so nothing else changes.
	Passwords *password.Hasher
}

// Service runs the identity flows. It is safe for concurrent use.
type Service struct {
	cfg      Config
	pool     *pgxpool.Pool
	commands *command.Runner
	codec    *eventstore.Registry
	pii      PersonalData
	sender   Kicker
	blobs    blob.Store
	clock    clock.Clock
	log      *slog.Logger
	tmpl     *mail.Templates
	// waitUntil is Deps.WaitUntil.
	waitUntil func(ctx context.Context, t time.Time) error
	onClosed  func(ctx context.Context, userID string) error
	// closeCheck is Deps.CloseCheck.
	closeCheck func(ctx context.Context, userID string) error

	principals  *principal.Principals
	emails      *principal.Emails
	credentials *principal.Credentials

	authParts
	// views remembers the pages recorded per view-as-user session.
	views viewedPaths
	// codeMade, set only by tests, runs when a flow has made a code and not stored it yet, to
	// stand for another request making one in between.
	codeMade func(userID uuid.UUID, purpose otp.Purpose)
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
	if d.Commands == nil {
		d.Commands = command.NewRunner(d.Store, d.Codec, command.WithLogger(d.Logger))
	}
	s := &Service{
		cfg: cfg, pool: d.Pool, commands: d.Commands, codec: d.Codec, pii: d.PII, sender: d.Sender,
		blobs: d.Blobs, clock: d.Clock, log: d.Logger, tmpl: tmpl, waitUntil: d.WaitUntil, onClosed: d.OnClosed, closeCheck: d.CloseCheck,
		principals:  principal.NewPrincipals(d.Pool, d.Clock),
		emails:      principal.NewEmails(d.Pool),
		credentials: principal.NewCredentials(d.Pool, d.Clock),
	}
	s.hasher = d.Passwords
	if s.waitUntil == nil {
		s.waitUntil = s.sleepUntil
	}
	if err := s.initAuth(); err != nil {
		return nil, err
	}
	return s, nil
}

// sleepUntil waits on a timer until the clock reads t.
func (s *Service) sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(t.Sub(s.clock.Now()))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unit is what one flow writes as one command, in one round trip: the rows it queues with its
// events (w), and whether it enqueued mail or changed who may sign in, so that the commit knows
// whom to wake.
type unit struct {
	s      *Service
	w      *command.Writes
	mailed bool
	// authChanged: a principal or session row changed (syncPrincipal, endSessions).
	authChanged bool
}

// afterCommit does what a committed unit left for after its commit: wake the mail sender for the
// mail it queued, and wait until this process's session cache has heard of the principal and
// session rows it changed, so that the flow's answer is not followed by a request the cache
// still lets through.
func (s *Service) afterCommit(ctx context.Context, u *unit) {
	if u == nil {
		return
	}
	if u.mailed && s.sender != nil {
		s.sender.Kick()
	}
	if u.authChanged {
		s.settleSessions(ctx)
	}
}

// submitUser runs fn on a user as one command (command.Submit): the user's events and the rows
// fn writes through the unit go in one round trip, and no transaction is held while fn decides.
// fn runs again on the user's new state when another writer appended to their stream meanwhile.
// The personal-data keys the events are sealed with are fetched as the runner encodes them,
// with no connection held (a registration makes its new user's key first, prepareKey).
func (s *Service) submitUser(ctx context.Context, meta eventstore.Metadata, userID string, fn func(u *unit, user loaded) error) (int64, error) {
	if _, err := uuid.Parse(userID); err != nil {
		// Not a user id: the flow decides on an unregistered user, which it refuses.
		return 0, fn(&unit{s: s, w: &command.Writes{}}, loaded{User: identity.New()})
	}
	var done *unit // the attempt that committed: fn runs again after a conflict
	var res command.Result
	err := raceAgain(func() (err error) {
		res, err = command.Submit(ctx, s.commands, userStream(userID), newUserState, meta,
			func(st *userState, w *command.Writes) error {
				done = &unit{s: s, w: w}
				return fn(done, st.loaded())
			})
		return err
	})
	if err != nil {
		return 0, err
	}
	s.afterCommit(ctx, done)
	return res.Position, nil
}

// writeRows runs a flow that records no event (a code and the e-mail that carries it) in one
// round trip (command.Write): what fn writes through the unit goes together or not at all.
func (s *Service) writeRows(ctx context.Context, fn func(u *unit) error) error {
	var done *unit
	err := raceAgain(func() error {
		return command.Write(ctx, s.commands, func(w *command.Writes) error {
			done = &unit{s: s, w: w}
			return fn(done)
		})
	})
	if err != nil {
		return err
	}
	s.afterCommit(ctx, done)
	return nil
}

// raceAgain runs a flow's round trip again when its code lost to one made meanwhile
// (errCodeRaced): the flow then reads the new code's cooldown and skips its own. It can lose
// once per code it makes, so a few runs decide.
func raceAgain(run func() error) error {
	for range 3 {
		if err := run(); !errors.Is(err, errCodeRaced) {
			return err
		}
	}
	return errCodeRaced
}

// write queues rows of the flow, to go with its events.
func (u *unit) write(sts ...auth.Statement) {
	for _, st := range sts {
		u.w.Add(st.SQL, st.Args...)
	}
}

// prepareKey makes sure the personal-data key of a new user is made before their registration,
// which claims it with their first events (createPrincipal), so that a failed registration
// leaves a key to discard rather than events sealed with none.
func (s *Service) prepareKey(userID string) error {
	if s.pii == nil {
		return nil
	}
	_, err := s.pii.Seal(userID, "-")
	return err
}

// discardKey deletes the key prepared for a registration that failed; when that fails too, the
// key is left for pii.Cipher.Tidy, which serve runs.
func (s *Service) discardKey(ctx context.Context, userID string) {
	if s.pii == nil {
		return
	}
	if err := s.pii.Discard(context.WithoutCancel(ctx), userID); err != nil {
		s.log.WarnContext(ctx, "accounts: discarding the key of a failed registration failed", "err", err)
	}
}

func userStream(id string) eventstore.StreamID {
	return eventstore.NewStreamID(identity.StreamCategory, id)
}

// loaded is a user aggregate with what the API shows that is not part of its state.
type loaded struct {
	*identity.User
	createdAt time.Time
	kycStatus kyc.Status
}

// userState is the user aggregate as the command runner loads it: the runner tells it when the
// stream began (StreamStarted), which the API shows as the account's creation time.
type userState struct {
	*identity.User
	createdAt time.Time
	kycStatus kyc.Status
}

func newUserState() *userState {
	return &userState{User: identity.New(), kycStatus: kyc.StatusNotSubmitted}
}

func (u *userState) StreamStarted(at time.Time) { u.createdAt = at }

// Apply also follows the identity check's status, which the API shows with the user; the
// check itself belongs to domain/kyc.
func (u *userState) Apply(e aggregate.Event) {
	u.User.Apply(e)
	switch e.(type) {
	case kyc.Submitted:
		u.kycStatus = kyc.StatusPending
	case kyc.Approved:
		u.kycStatus = kyc.StatusApproved
	case kyc.Rejected:
		u.kycStatus = kyc.StatusRejected
	}
}

func (u *userState) loaded() loaded {
	return loaded{User: u.User, createdAt: u.createdAt, kycStatus: u.kycStatus}
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

// loadUser returns a user as their stream says now (command.Load). A missing stream gives an
// unregistered user, which the aggregate refuses every command for (ErrNotRegistered, a 404).
func (s *Service) loadUser(ctx context.Context, id string) (loaded, error) {
	if _, err := uuid.Parse(id); err != nil {
		return loaded{User: identity.New()}, nil
	}
	st, err := command.Load(ctx, s.commands, userStream(id), newUserState)
	if err != nil {
		return loaded{User: identity.New()}, fmt.Errorf("accounts: load user: %w", err)
	}
	return st.loaded(), nil
}

// mail renders a template and puts the message in the outbox, in this transaction. The dedupe
// key names the cause, so a retried flow never mails twice.
// recipient is who a message goes to: their address and the language they read in.
type recipient interface {
	Email() string
	Language() string
}

func (u *unit) mail(ctx context.Context, dedupeKey string, to recipient, template string, data any, scrub bool) error {
	subject, text, html, err := u.s.tmpl.RenderIn(to.Language(), template, data)
	if err != nil {
		return err
	}
	sql, args, err := mail.EnqueueStatement(ctx, dedupeKey, mail.Message{To: to.Email(), Subject: subject, Text: text, HTML: html}, scrub)
	if err != nil {
		return err
	}
	u.write(auth.Statement{SQL: sql, Args: args})
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
	st, err := u.s.principals.UpsertStatement(id, user.Role(), user.Status())
	if err != nil {
		return err
	}
	u.write(st)
	return nil
}

// setPassword stores a user's new password hash.
func (u *unit) setPassword(ctx context.Context, userID uuid.UUID, hash string) error {
	st, err := u.s.credentials.SetStatement(userID, hash)
	if err != nil {
		return err
	}
	u.write(st)
	return nil
}

// issue makes a one-time code of purpose for a user and stores it with the flow's writes (a
// *otp.CooldownError within the purpose's cooldown). A code of the purpose made after this one
// was decided fails the round trip with raced.
func (u *unit) issue(ctx context.Context, userID uuid.UUID, purpose otp.Purpose, raced error) (string, error) {
	c, err := u.s.codes.IssueFor(ctx, userID, purpose, 0)
	if err != nil {
		return "", err
	}
	if u.s.codeMade != nil {
		u.s.codeMade(userID, purpose)
	}
	u.w.Add(c.Statement.SQL, c.Statement.Args...)
	if raced != nil {
		u.w.OnViolation(otp.CooldownConstraint, raced)
	}
	return c.Plaintext, nil
}

// errCodeRaced fails a round trip whose code lost to one made meanwhile, where the flow skips
// the code within its cooldown (a reset link: the one just made went to the same mailbox):
// submitUser and writeRows run the flow again, and it skips it.
var errCodeRaced = errors.New("accounts: a code of the purpose was made meanwhile")

// cooldownRaced is the answer to a code that lost to one made meanwhile, where the flow answers
// the cooldown.
var cooldownRaced = &otp.CooldownError{Wait: otp.Cooldown}

func metaFor(a Actor) eventstore.Metadata {
	m := eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.Client.IP}
	if a.Impersonator != nil {
		m.ImpersonatorID = a.Impersonator.UserID
	}
	return m
}

// view is the API's picture of a user. Money fields are placeholders until the money read
// models exist.
func view(u loaded) User {
	p := u.Profile()
	return User{
		ID: u.ID(), Name: p.Name, Email: u.Email(), Phone: p.Phone, Country: p.Country, Bio: p.Bio,
		Photo: p.Photo, Role: string(u.Role()), Status: string(u.Status()), Verified: u.EmailVerified(),
		KYCStatus: kycStatus(u.kycStatus), Balance: "0.00", InvestmentBalance: "0.00", TotalMaturityAmount: "0.00",
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
	u, _, err := s.UserWith(ctx, userID, nil)
	return u, err
}

// UserWith returns a user as User does, with another read model's columns read in the same
// query (the dashboard's figures: one round trip instead of two). joined reports whether j's
// destinations were filled: not when the user came from their stream, or j is nil.
func (s *Service) UserWith(ctx context.Context, userID string, j users.Join) (_ User, joined bool, _ error) {
	var row users.User
	var err error
	if j != nil {
		row, err = users.GetWith(ctx, pgread.On(ctx, s.pool), userID, j)
	} else {
		row, err = users.Get(ctx, pgread.On(ctx, s.pool), userID)
	}
	if err == nil {
		if row.Status == identity.StatusClosed {
			return User{}, false, ErrUserNotFound
		}
		return listed(row), j != nil, nil
	}
	if !errors.Is(err, users.ErrNotFound) {
		return User{}, false, err
	}
	u, err := s.loadUser(ctx, userID)
	if err != nil {
		return User{}, false, err
	}
	if !u.Registered() || u.Status() == identity.StatusClosed {
		return User{}, false, ErrUserNotFound
	}
	return view(u), false, nil
}

// link builds an absolute URL to a UI route.
func (s *Service) link(path string) string { return s.cfg.PublicURL + path }

func kycStatus(s kyc.Status) string {
	if s == "" {
		return string(kyc.StatusNotSubmitted)
	}
	return string(s)
}

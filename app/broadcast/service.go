// Package broadcast is the application service of staff e-mail (docs/staff.md, "E-mail"): a
// message staff compose in Markdown for one user, a role or every verified user, previewed as
// it will arrive, recorded as a broadcast stream ("broadcast-<id>", domain/broadcast) and queued
// in the outbox at a steady pace, one row per recipient; its progress, cancellation and the
// list of past sends.
//
// The service trusts its caller on who may call it (api/policy.go: authors and admins).
package broadcast

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/broadcast"
	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/platform/auth/ratelimit"
	"clearvest/platform/mail"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates mail_broadcasts.
var Migrations = pgmigrate.MustFromFS("broadcast", migrationFS, "migrations")

// Kicker wakes the mail sender after a commit; *mail.Sender is one.
type Kicker interface{ Kick() }

// Config is what the service needs from the configuration.
type Config struct {
	PublicURL string
	// PerStaff limits how many e-mails one staff member may send (default 5 an hour, automated
	// ones included): enough for a day's notices, too few to flood anyone's inbox by mistake.
	PerStaff ratelimit.Rule
	// Pace is the time between two messages of one send (default 100 ms, 600 a minute), so a
	// send to everyone does not hit the relay's limits at once.
	Pace time.Duration
}

// Deps are the collaborators of the service.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner
	Sender   Kicker
	Clock    clock.Clock
	Logger   *slog.Logger
	// Automated queues the product's automated messages (the accounts service); nil refuses
	// SendAutomated.
	Automated Automated
}

// Automated makes one of the product's automated messages again for a user, in a batch, and
// returns what adds its writes to a command's (command.Submit); *accounts.Service is one.
type Automated interface {
	PrepareAutomated(ctx context.Context, userID, template, batch string) (func(*command.Writes), error)
}

// DefaultPerStaff is the default limit of sends per staff member.
var DefaultPerStaff = ratelimit.Rule{Limit: 5, Window: time.Hour}

// DefaultPace is the default time between two messages of a send.
const DefaultPace = 100 * time.Millisecond

// listLimit bounds the list of past sends.
const listLimit = 100

// Service runs staff e-mail. It is safe for concurrent use.
type Service struct {
	cfg      Config
	pool     *pgxpool.Pool
	commands *command.Runner
	sender   Kicker
	clock    clock.Clock
	log      *slog.Logger
	limiter  *ratelimit.Limiter
	tmpl     *mail.Templates
	auto     Automated
}

// New wires the service.
func New(cfg Config, d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil {
		return nil, errors.New("broadcast: New needs a pool and a command runner")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if cfg.PerStaff.Limit <= 0 || cfg.PerStaff.Window <= 0 {
		cfg.PerStaff = DefaultPerStaff
	}
	if cfg.Pace < 0 {
		cfg.Pace = 0
	} else if cfg.Pace == 0 {
		cfg.Pace = DefaultPace
	}
	tmpl, err := mail.NewTemplates(mail.Branding{PublicURL: strings.TrimRight(cfg.PublicURL, "/")})
	if err != nil {
		return nil, err
	}
	return &Service{cfg: cfg, pool: d.Pool, commands: d.Commands, sender: d.Sender, clock: d.Clock, log: d.Logger,
		limiter: ratelimit.New(d.Pool, d.Clock), tmpl: tmpl, auto: d.Automated}, nil
}

// Actor is the staff member sending.
type Actor struct {
	UserID string
	Role   string
	IP     string
}

func metaFor(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: a.Role, ClientIP: a.IP}
}

func stream(id string) eventstore.StreamID {
	return eventstore.NewStreamID(broadcast.StreamCategory, id)
}

// Compose is what staff wrote and to whom.
type Compose struct {
	Audience broadcast.Audience
	Subject  string
	Body     string // Markdown
	Language string // of the message's frame (greeting, footer): "en" or "de"; default "en"
}

func (c Compose) normalize() (Compose, error) {
	c.Audience = c.Audience.Normalize()
	if err := c.Audience.Validate(); err != nil {
		return c, err
	}
	m := broadcast.Message{Subject: c.Subject, Body: c.Body}.Normalize()
	if err := m.Validate(); err != nil {
		return c, err
	}
	c.Subject, c.Body = m.Subject, m.Body
	if !slices.Contains(mail.Languages, c.Language) {
		c.Language = mail.DefaultLanguage
	}
	return c, nil
}

// Preview is a message as it will arrive, and how many people it would go to.
type Preview struct {
	Subject    string
	HTML       string
	Text       string
	Recipients int
}

// recipient is one person a send goes to.
type recipient struct {
	ID, Name, Email string
}

// Querier reads recipients: the pool, or the command's transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// recipients resolves an audience from the user base. Closed accounts never receive a staff
// e-mail: the read model marks them, and the user's own stream is asked too, so an account
// closed a moment ago that the read model has not caught up with is left out all the same.
// Role and everyone audiences take only verified addresses; a single user may be unverified.
func recipients(ctx context.Context, q querier, a broadcast.Audience) ([]recipient, error) {
	rows, err := q.Query(ctx, `SELECT u.id, u.name, u.email FROM rm_users.users u
		WHERE u.status <> 'closed' AND u.email <> ''
		  AND CASE $1
		        WHEN 'user' THEN u.id = $2
		        WHEN 'role' THEN u.role = $3 AND u.is_verified
		        WHEN 'verified' THEN u.is_verified
		        ELSE false END
		  AND NOT EXISTS (SELECT 1 FROM events e WHERE e.stream_id = 'user-' || u.id AND e.type = 'user.closed')
		ORDER BY u.created_at, u.id`, a.Kind, a.UserID, a.Role)
	if err != nil {
		return nil, fmt.Errorf("broadcast: recipients: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (recipient, error) {
		var x recipient
		return x, r.Scan(&x.ID, &x.Name, &x.Email)
	})
}

// Preview renders the message as its first recipient will get it, and counts the audience.
func (s *Service) Preview(ctx context.Context, c Compose) (Preview, error) {
	c, err := c.normalize()
	if err != nil {
		return Preview{}, err
	}
	list, err := recipients(ctx, s.pool, c.Audience)
	if err != nil {
		return Preview{}, err
	}
	if c.Audience.Kind == broadcast.AudienceUser && len(list) == 0 {
		return Preview{}, broadcast.ErrNoRecipients
	}
	name := ""
	if len(list) > 0 {
		name = list[0].Name
	}
	subject, text, html, err := s.tmpl.RenderIn(c.Language, mail.TemplateBroadcast,
		mail.BroadcastData{Name: name, Subject: c.Subject, Markdown: c.Body})
	if err != nil {
		return Preview{}, err
	}
	return Preview{Subject: subject, HTML: html, Text: text, Recipients: len(list)}, nil
}

// Sent is what a send answers: its id, how many it was queued for, and its position.
type Sent struct {
	ID         string
	Recipients int
	Position   int64
}

// Send records the e-mail and queues one message per recipient, in one transaction: the
// messages exist if and only if the send was recorded. Each message's dedupe key is the send
// and the recipient, so no one gets it twice, whichever process runs it and however often.
func (s *Service) Send(ctx context.Context, a Actor, c Compose) (Sent, error) {
	c, err := c.normalize()
	if err != nil {
		return Sent{}, err
	}
	if err := s.limit(ctx, a.UserID); err != nil {
		return Sent{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Sent{}, err
	}
	return s.start(ctx, a, id.String(), c.Audience, c.Language, "", func(r recipient) (mail.Message, string, error) {
		subject, text, html, err := s.tmpl.RenderIn(c.Language, mail.TemplateBroadcast,
			mail.BroadcastData{Name: r.Name, Subject: c.Subject, Markdown: c.Body})
		return mail.Message{To: r.Email, Subject: subject, Text: text, HTML: html}, c.Body, err
	}, c.Subject)
}

// start records a send and queues its messages; render makes each recipient's message and
// returns the body to record (the Markdown; empty for an automated message). The recipients are
// read and their messages made before the command, which holds no connection while it decides:
// the send's stream is new, and an audience read a moment earlier is the audience the staff
// member asked for. The event, the messages and the send's row commit in one round trip.
func (s *Service) start(ctx context.Context, a Actor, id string, aud broadcast.Audience, lang, template string,
	render func(recipient) (mail.Message, string, error), subject string) (Sent, error) {
	list, err := recipients(ctx, s.pool, aud)
	if err != nil {
		return Sent{}, err
	}
	if len(list) == 0 {
		return Sent{}, broadcast.ErrNoRecipients
	}
	st := stream(id)
	batch := "broadcast/" + id
	now := s.clock.Now()
	type queued struct {
		sql  string
		args []any
	}
	messages := make([]queued, 0, len(list))
	body := ""
	for i, r := range list {
		msg, b, err := render(r)
		if err != nil {
			return Sent{}, err
		}
		body = b
		sql, args, err := mail.BatchStatement(ctx, batch, mail.BatchItem{DedupeKey: batch + "/" + r.ID, Message: msg, Due: now.Add(time.Duration(i) * s.cfg.Pace)})
		if err != nil {
			return Sent{}, err
		}
		messages = append(messages, queued{sql, args})
	}
	res, err := command.Submit(ctx, s.commands, st, broadcast.New, metaFor(a),
		func(b *broadcast.Broadcast, w *command.Writes) error {
			if err := b.Start(broadcast.Started{AuthorID: a.UserID, AuthorRole: a.Role, Audience: aud, Template: template,
				Language: lang, Subject: subject, Body: body, Recipients: len(list), At: now}); err != nil {
				return err
			}
			for _, m := range messages {
				w.Add(m.sql, m.args...)
			}
			w.Add(`INSERT INTO mail_broadcasts
				(id, author_id, audience_kind, audience_role, audience_user_id, template, subject, recipients, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
				id, a.UserID, aud.Kind, aud.Role, aud.UserID, template, subject, len(list), now)
			return nil
		})
	if err != nil {
		return Sent{}, err
	}
	if s.sender != nil {
		s.sender.Kick()
	}
	return Sent{ID: id, Recipients: len(list), Position: res.Position}, nil
}

// limit counts a send against its author's limit.
func (s *Service) limit(ctx context.Context, staffID string) error {
	ok, wait, err := s.limiter.Hit(ctx, "broadcast-staff:"+staffID, s.cfg.PerStaff.Limit, s.cfg.PerStaff.Window)
	if err != nil {
		return err
	}
	if !ok {
		return &LimitError{Wait: max(wait, time.Second), Limit: s.cfg.PerStaff.Limit, Window: s.cfg.PerStaff.Window}
	}
	return nil
}

// LimitError refuses a send over the author's limit, saying what the limit is.
type LimitError struct {
	Wait   time.Duration
	Limit  int
	Window time.Duration
}

func (e *LimitError) Error() string {
	minutes := int((e.Wait + time.Minute - 1) / time.Minute)
	return fmt.Sprintf("You can send at most %d e-mails per %s. Please try again in %d minute%s.",
		e.Limit, window(e.Window), minutes, plural(minutes))
}

// Kind implements domainerr.Classified: a 429.
func (e *LimitError) Kind() domainerr.Kind { return domainerr.RateLimited }

// RetryAfter is when a new send will be accepted.
func (e *LimitError) RetryAfter() time.Duration { return e.Wait }

func window(d time.Duration) string {
	if d == time.Hour {
		return "hour"
	}
	return d.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Cancel stops a send: the messages still waiting are withdrawn from the outbox, in the round
// trip that records the cancellation, and never go out. The event records how many; they are
// counted just before the command, and the withdrawal fails the cancellation (ErrCancelMoved)
// when a sender claimed one in between.
func (s *Service) Cancel(ctx context.Context, a Actor, id string) (Summary, int64, error) {
	id, err := canonical(id)
	if err != nil {
		return Summary{}, 0, err
	}
	st := stream(id)
	batch := "broadcast/" + id
	n, err := mail.Withdrawable(ctx, s.pool, batch)
	if err != nil {
		return Summary{}, 0, err
	}
	res, err := command.Submit(ctx, s.commands, st, broadcast.New, metaFor(a),
		func(b *broadcast.Broadcast, w *command.Writes) error {
			if !b.Started() {
				return broadcast.ErrNotFound
			}
			now := s.clock.Now()
			if err := b.Cancel(a.UserID, n, now); err != nil {
				return err
			}
			sql, args := mail.WithdrawStatement(batch, n)
			w.Add(sql, args...)
			w.OnViolation(mail.WithdrawnAsCounted, ErrCancelMoved)
			w.Add(`UPDATE mail_broadcasts SET cancelled_at = $2, cancelled_by = $3, withdrawn = $4 WHERE id = $1`,
				id, now, a.UserID, n)
			return nil
		})
	if err != nil {
		return Summary{}, 0, err
	}
	sum, err := s.Get(ctx, id)
	return sum, res.Position, err
}

// ErrCancelMoved refuses a cancellation during which a sender took a message of the send.
var ErrCancelMoved = domainerr.New(domainerr.Conflict, "A message was being sent while cancelling. Please try again.")

// Summary is one past send with its progress.
type Summary struct {
	ID              string
	AuthorID        string
	AuthorName      string
	Audience        broadcast.Audience
	AudienceName    string // the user's name, for a one-user audience
	Template        string
	Subject         string
	Recipients      int
	Sent            int
	Failed          int
	Pending         int
	Cancelled       int // withdrawn when staff cancelled it
	CreatedAt       time.Time
	CancelledAt     *time.Time
	CancelledBy     string
	CancelledByName string
}

// Done reports whether nothing of the send waits any more.
func (s Summary) Done() bool { return s.Pending == 0 }

const summaryQuery = `SELECT b.id::text, b.author_id, coalesce(au.name, ''), b.audience_kind, b.audience_role,
	b.audience_user_id, coalesce(tu.name, ''), b.template, b.subject, b.recipients, b.created_at, b.cancelled_at,
	coalesce(b.cancelled_by, ''), coalesce(cu.name, ''), b.withdrawn
	FROM mail_broadcasts b
	LEFT JOIN rm_users.users au ON au.id = b.author_id
	LEFT JOIN rm_users.users tu ON tu.id = b.audience_user_id AND b.audience_user_id <> ''
	LEFT JOIN rm_users.users cu ON cu.id = b.cancelled_by`

func (s *Service) summaries(ctx context.Context, where string, args ...any) ([]Summary, error) {
	rows, err := s.pool.Query(ctx, summaryQuery+" "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("broadcast: list: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Summary, error) {
		var x Summary
		return x, r.Scan(&x.ID, &x.AuthorID, &x.AuthorName, &x.Audience.Kind, &x.Audience.Role, &x.Audience.UserID,
			&x.AudienceName, &x.Template, &x.Subject, &x.Recipients, &x.CreatedAt, &x.CancelledAt, &x.CancelledBy,
			&x.CancelledByName, &x.Cancelled)
	})
	if err != nil {
		return nil, fmt.Errorf("broadcast: list: %w", err)
	}
	names := make([]string, len(list))
	for i, x := range list {
		names[i] = "broadcast/" + x.ID
	}
	counts, err := mail.BatchCounts(ctx, s.pool, names)
	if err != nil {
		return nil, err
	}
	for i := range list {
		p := counts[names[i]]
		list[i].Sent, list[i].Failed, list[i].Pending = p.Sent, p.Failed, p.Pending
	}
	return list, nil
}

// List returns the most recent sends, newest first, with their progress.
func (s *Service) List(ctx context.Context) ([]Summary, error) {
	return s.summaries(ctx, "ORDER BY b.created_at DESC, b.id DESC LIMIT $1", listLimit)
}

// Get returns one send with its progress.
func (s *Service) Get(ctx context.Context, id string) (Summary, error) {
	id, err := canonical(id)
	if err != nil {
		return Summary{}, err
	}
	list, err := s.summaries(ctx, "WHERE b.id = $1", id)
	if err != nil {
		return Summary{}, err
	}
	if len(list) == 0 {
		return Summary{}, broadcast.ErrNotFound
	}
	return list[0], nil
}

func canonical(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", broadcast.ErrNotFound
	}
	return u.String(), nil
}

// AutomatedTemplates are the product's automated messages staff may send again to one user.
var AutomatedTemplates = []string{mail.TemplateVerification, mail.TemplatePasswordReset}

// ErrAutomatedUnavailable answers when the service was wired without the accounts service.
var ErrAutomatedUnavailable = domainerr.New(domainerr.RuleBroken, "Automated e-mails are not available.")

// ErrAutomatedTemplate refuses a template staff may not send again.
var ErrAutomatedTemplate = func() *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, "Please choose the verification or the password reset e-mail.")
	e.Field = "template"
	return e
}()

// SendAutomated sends one of AutomatedTemplates again to one user, as the product's own flow
// sends it (a fresh link), and records it as a send of its author in the same round trip.
func (s *Service) SendAutomated(ctx context.Context, a Actor, userID, template string) (Sent, error) {
	if s.auto == nil {
		return Sent{}, ErrAutomatedUnavailable
	}
	if !slices.Contains(AutomatedTemplates, template) {
		return Sent{}, ErrAutomatedTemplate
	}
	aud := broadcast.Audience{Kind: broadcast.AudienceUser, UserID: strings.TrimSpace(userID)}
	if err := aud.Validate(); err != nil {
		return Sent{}, err
	}
	if err := s.limit(ctx, a.UserID); err != nil {
		return Sent{}, err
	}
	subject, err := s.automatedSubject(template)
	if err != nil {
		return Sent{}, err
	}
	u, err := uuid.NewV7()
	if err != nil {
		return Sent{}, err
	}
	id := u.String()
	st := stream(id)
	// The recipient is read and the message made before the command (its stream is new), which
	// sends the event, the link's code, the message and the send's row in one round trip.
	list, err := recipients(ctx, s.pool, aud)
	if err != nil {
		return Sent{}, err
	}
	if len(list) == 0 {
		return Sent{}, broadcast.ErrNoRecipients
	}
	queue, err := s.auto.PrepareAutomated(ctx, aud.UserID, template, "broadcast/"+id)
	if err != nil {
		return Sent{}, err
	}
	res, err := command.Submit(ctx, s.commands, st, broadcast.New, metaFor(a),
		func(b *broadcast.Broadcast, w *command.Writes) error {
			now := s.clock.Now()
			if err := b.Start(broadcast.Started{AuthorID: a.UserID, AuthorRole: a.Role, Audience: aud, Template: template,
				Subject: subject, Recipients: 1, At: now}); err != nil {
				return err
			}
			queue(w)
			w.Add(`INSERT INTO mail_broadcasts
				(id, author_id, audience_kind, audience_user_id, template, subject, recipients, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, 1, $7)`, id, a.UserID, aud.Kind, aud.UserID, template, subject, now)
			return nil
		})
	if err != nil {
		return Sent{}, err
	}
	if s.sender != nil {
		s.sender.Kick()
	}
	return Sent{ID: id, Recipients: 1, Position: res.Position}, nil
}

// automatedSubject is the English subject of a template, rendered with placeholder data.
func (s *Service) automatedSubject(template string) (string, error) {
	link := "https://example.invalid/"
	var data any
	switch template {
	case mail.TemplateVerification:
		data = mail.VerificationData{Link: link, ValidFor: time.Hour}
	case mail.TemplatePasswordReset:
		data = mail.PasswordResetData{Link: link, ValidFor: time.Hour}
	default:
		return "", ErrAutomatedTemplate
	}
	subject, _, _, err := s.tmpl.Render(template, data)
	return subject, err
}

// LimitPerHour is how many e-mails one staff member may send an hour.
func (s *Service) LimitPerHour() int {
	return int(float64(s.cfg.PerStaff.Limit) * float64(time.Hour) / float64(s.cfg.PerStaff.Window))
}

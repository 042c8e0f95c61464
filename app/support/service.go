// Package support is the application service of the contact form (docs/support.md): visitors
// open tickets (stream "ticket-<id>", domain/support), rate-limited per client address, and
// staff read the queue (projections/tickets), reply by e-mail and close tickets.
//
// The service trusts its caller on who may call what (api/policy.go): opening is public, the
// rest is staff work.
package support

import (
	"clearvest/platform/pgread"
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/clock"
	"clearvest/domain/support"
	"clearvest/eventstore"
	"clearvest/platform/auth/ratelimit"
	"clearvest/platform/mail"
	"clearvest/projections/tickets"
)

// Kicker wakes the mail sender after a commit; *mail.Sender is one.
type Kicker interface{ Kick() }

// Config is what the service needs from the configuration.
type Config struct {
	// PublicURL is where links in e-mails point.
	PublicURL string
	// PerClient limits how many messages one client address may send (default 5 an hour):
	// enough for a person with a follow-up, too few to flood the queue.
	PerClient ratelimit.Rule
}

// Deps are the collaborators of the service.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner
	Sender   Kicker
	Clock    clock.Clock
	Logger   *slog.Logger
}

// Service runs the support commands and queries. It is safe for concurrent use.
type Service struct {
	cfg      Config
	pool     *pgxpool.Pool
	commands *command.Runner
	sender   Kicker
	clock    clock.Clock
	log      *slog.Logger
	limiter  *ratelimit.Limiter
	tmpl     *mail.Templates
}

// DefaultPerClient is the default limit of messages per client address.
var DefaultPerClient = ratelimit.Rule{Limit: 5, Window: time.Hour}

// queueLimit bounds the staff queue: open tickets come first, so the oldest answered and
// closed ones are what falls off.
const queueLimit = 500

// New wires the service.
func New(cfg Config, d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil {
		return nil, errors.New("support: New needs a pool and a command runner")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if cfg.PerClient.Limit <= 0 || cfg.PerClient.Window <= 0 {
		cfg.PerClient = DefaultPerClient
	}
	tmpl, err := mail.NewTemplates(mail.Branding{PublicURL: strings.TrimRight(cfg.PublicURL, "/")})
	if err != nil {
		return nil, err
	}
	return &Service{cfg: cfg, pool: d.Pool, commands: d.Commands, sender: d.Sender, clock: d.Clock, log: d.Logger,
		limiter: ratelimit.New(d.Pool, d.Clock), tmpl: tmpl}, nil
}

// Actor is who is calling: the signed-in user (empty for a visitor), their role and address.
type Actor struct {
	UserID string
	Role   string
	IP     string
}

func metaFor(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: a.Role, ClientIP: a.IP}
}

func stream(ticketID string) eventstore.StreamID {
	return eventstore.NewStreamID(support.StreamCategory, ticketID)
}

// Submission is what the contact form sends. Website is the honeypot field: hidden from people,
// filled in by form-filling bots.
type Submission struct {
	support.Request
	Website string
}

// Open records a message from the contact form and returns its position (for read-your-writes;
// 0 when nothing was stored). Every attempt counts against the sender's limit, valid or not, so
// a script cannot probe without paying for it. A filled honeypot gets the same answer as a
// real message, so the bot learns nothing, but nothing is stored: it is only logged.
func (s *Service) Open(ctx context.Context, a Actor, in Submission) (int64, error) {
	if err := s.limit(ctx, a.IP); err != nil {
		return 0, err
	}
	if strings.TrimSpace(in.Website) != "" {
		s.log.InfoContext(ctx, "support: honeypot filled; message dropped", "client", ratelimit.ClientKey(a.IP))
		return 0, nil
	}
	req := in.Request.Normalize()
	if err := req.Validate(); err != nil {
		return 0, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	res, err := command.Execute(ctx, s.commands, stream(id.String()), support.New, metaFor(a),
		func(t *support.Ticket) error { return t.Open(req, now) })
	if err != nil {
		return 0, err
	}
	return res.Position, nil
}

// limit counts a message against its client address. A request with no address (a test
// calling the service directly) is not limited.
func (s *Service) limit(ctx context.Context, ip string) error {
	if ip == "" {
		return nil
	}
	ok, wait, err := s.limiter.Hit(ctx, "support-ip:"+ratelimit.ClientKey(ip), s.cfg.PerClient.Limit, s.cfg.PerClient.Window)
	if err != nil {
		return err
	}
	if !ok {
		return &ratelimit.LimitError{Wait: max(wait, time.Second)}
	}
	return nil
}

// Ticket is one ticket of the staff queue.
type Ticket = tickets.Ticket

// List returns the queue: open tickets first, then answered, then closed, each oldest first.
func (s *Service) List(ctx context.Context) ([]Ticket, error) {
	return tickets.List(ctx, pgread.On(ctx, s.pool), queueLimit)
}

// Waiting is how many tickets wait for staff's first answer.
func (s *Service) Waiting(ctx context.Context) (int, error) {
	return tickets.CountOpen(ctx, pgread.On(ctx, s.pool))
}

// Reply records staff's answer and e-mails it to the requester, in one round trip
// (command.Submit): an answer is never recorded without its e-mail, nor mailed without being
// recorded.
func (s *Service) Reply(ctx context.Context, a Actor, ticketID, message string) (int64, error) {
	ticketID, err := canonical(ticketID)
	if err != nil {
		return 0, err
	}
	st := stream(ticketID)
	res, err := command.Submit(ctx, s.commands, st, support.New, metaFor(a),
		func(t *support.Ticket, w *command.Writes) error {
			if err := t.Reply(a.UserID, message, s.clock.Now()); err != nil {
				return err
			}
			replies := t.Replies()
			last := replies[len(replies)-1]
			req := t.Request()
			subject, text, html, err := s.tmpl.Render(mail.TemplateSupportReply,
				mail.SupportReplyData{Name: req.Name, Message: last.Message, Original: req.Message})
			if err != nil {
				return err
			}
			// One message per reply: the reply's number names it, so a retried command mails once.
			dedupe := "ticket/" + ticketID + "/reply/" + strconv.Itoa(len(replies))
			sql, args, err := mail.EnqueueStatement(ctx, dedupe, mail.Message{To: req.Email, Subject: subject, Text: text, HTML: html}, false)
			if err != nil {
				return err
			}
			w.Add(sql, args...)
			return nil
		})
	if err != nil {
		return 0, err
	}
	if s.sender != nil {
		s.sender.Kick()
	}
	return res.Position, nil
}

// Close marks a ticket as needing nothing more. A closed ticket takes no reply.
func (s *Service) Close(ctx context.Context, a Actor, ticketID string) (int64, error) {
	ticketID, err := canonical(ticketID)
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	res, err := command.Execute(ctx, s.commands, stream(ticketID), support.New, metaFor(a),
		func(t *support.Ticket) error { return t.Close(a.UserID, now) })
	if err != nil {
		return 0, err
	}
	return res.Position, nil
}

// canonical is a ticket id as its stream is named; anything that is not an id names no ticket.
func canonical(ticketID string) (string, error) {
	u, err := uuid.Parse(ticketID)
	if err != nil {
		return "", support.ErrNotFound
	}
	return u.String(), nil
}

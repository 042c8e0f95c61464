// Package kyc is the application service of identity checks: users upload the front and back of
// an identity document, staff review them, and the investment gate asks whether a user may
// invest. The rules are the Case aggregate's (domain/kyc); the service streams files into
// encrypted storage, runs each decision as one command of the command runner (app/command) on
// the user's stream, and e-mails decisions through the outbox in the same transaction.
//
// The service trusts its caller on who may call what (api/policy.go), except for document
// downloads, where only staff and the owner get an answer and everyone else a 404.
package kyc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/platform/mail"
)

// Written is what storing a file found out about its plaintext while streaming it.
type Written struct {
	Size   int64
	SHA256 string // hex
}

// Files keeps the documents, encrypted at rest with a per-file key wrapped by the key of the
// subject (the user the document is about), so destroying that key makes the file unreadable.
// The sealed blob store is one, through a small adapter.
type Files interface {
	// Put streams r into key; if r fails, nothing is stored.
	Put(ctx context.Context, key, subject string, r io.Reader) (Written, error)
	// Open streams the plaintext back: blob.ErrNotFound for a missing file,
	// eventstore.ErrErased when the subject's key was destroyed.
	Open(ctx context.Context, key, subject string) (io.ReadCloser, error)
	// Delete removes a file; a missing one is not an error.
	Delete(ctx context.Context, key string) error
}

// Keys creates personal-data keys before a transaction needs them: the key store works on a
// connection of its own. *pii.Cipher is one.
type Keys interface {
	Seal(subject, plaintext string) (string, error)
}

// Kicker wakes the mail sender after a commit; *mail.Sender is one.
type Kicker interface{ Kick() }

// Config is what the service needs from the configuration.
type Config struct {
	// PublicURL is where links in e-mails point.
	PublicURL    string
	SupportEmail string
}

// Deps are the collaborators of the service.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner
	Files    Files
	Keys     Keys
	Sender   Kicker
	Clock    clock.Clock
	Logger   *slog.Logger
}

// Service runs the identity checks. It is safe for concurrent use.
type Service struct {
	cfg      Config
	pool     *pgxpool.Pool
	commands *command.Runner
	files    Files
	keys     Keys
	sender   Kicker
	clock    clock.Clock
	log      *slog.Logger
	tmpl     *mail.Templates
}

// New wires the service.
func New(cfg Config, d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil || d.Files == nil {
		return nil, errors.New("kyc: New needs a pool, a command runner and a file store")
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
		return nil, err
	}
	return &Service{cfg: cfg, pool: d.Pool, commands: d.Commands, files: d.Files, keys: d.Keys, sender: d.Sender,
		clock: d.Clock, log: d.Logger, tmpl: tmpl}, nil
}

// Actor is who is calling: the signed-in user, their role and address.
type Actor struct {
	UserID string
	Role   identity.Role
	IP     string
}

// Errors of the service (the domain's are in domain/kyc).
var (
	ErrUserNotFound = domainerr.New(domainerr.NotFound, "User not found")
	ErrDocNotFound  = domainerr.New(domainerr.NotFound, "Document not found")
	ErrDocGone      = domainerr.New(domainerr.Gone, "This document was deleted and is no longer available.")
	ErrUnknownPart  = domainerr.New(domainerr.Invalid, "Only the front and back documents can be uploaded.")
	ErrEmptyFile    = domainerr.New(domainerr.Invalid, "Please select a file.")
	ErrUnreadable   = domainerr.New(domainerr.Invalid, "The upload could not be read. Please try again.")
)

func stream(userID string) eventstore.StreamID {
	return eventstore.NewStreamID(identity.StreamCategory, userID)
}

// parseUser turns a path id into the canonical user id, or 404.
func parseUser(id string) (string, error) {
	u, err := uuid.Parse(strings.TrimSpace(id))
	if err != nil {
		return "", ErrUserNotFound
	}
	return u.String(), nil
}

func metaFor(a Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.IP}
}

// prepareKeys makes sure the personal-data keys a command seals with exist before its
// transaction: the client address is sealed with the actor's key, the comment of a rejection
// with the user's.
func (s *Service) prepareKeys(ids ...string) error {
	if s.keys == nil {
		return nil
	}
	for _, id := range ids {
		if id == "" {
			continue
		}
		if _, err := s.keys.Seal(id, "-"); err != nil && !errors.Is(err, eventstore.ErrErased) {
			return err
		}
	}
	return nil
}

// load reads a user's case as the stream is now.
func (s *Service) load(ctx context.Context, userID string) (*kyc.Case, error) {
	return command.Load(ctx, s.commands, stream(userID), kyc.New)
}

func (s *Service) kick() {
	if s.sender != nil {
		s.sender.Kick()
	}
}

// Package community is the application service of Clearvest's social proof: testimonials
// (written by verified investors, moderated by staff, each one a stream of its own run through
// the command runner), the public activity ticker and counts, and member levels (badges).
// Everything it shows comes from events and read models: nothing is invented
// (docs/community.md).
package community

import (
	"embed"
	"errors"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/clock"
	"clearvest/domain/community"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the service's own table (testimonial_authors). It refers to no other
// set's tables.
var Migrations = pgmigrate.MustFromFS("community", migrationFS, "migrations")

// Config is what the operator sets.
type Config struct {
	// Levels are the member levels, as community.ValidateLevels accepts; nil means
	// community.DefaultLevels.
	Levels []community.Level
	// MinInvestors and MinCountries hide a public count below them.
	MinInvestors, MinCountries int
}

// Deps are the collaborators of the service.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner // on a store that appends with statements (command.Submit)
	Clock    clock.Clock
	Logger   *slog.Logger
}

// Service runs testimonials and answers the public social-proof queries. It is safe for
// concurrent use.
type Service struct {
	cfg      Config
	pool     *pgxpool.Pool
	commands *command.Runner
	clock    clock.Clock
	logger   *slog.Logger
}

// New wires the service.
func New(cfg Config, d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil {
		return nil, errors.New("community: New needs a pool and a command runner")
	}
	if cfg.Levels == nil {
		cfg.Levels = community.DefaultLevels()
	}
	if err := community.ValidateLevels(cfg.Levels); err != nil {
		return nil, err
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Service{cfg: cfg, pool: d.Pool, commands: d.Commands, clock: d.Clock, logger: d.Logger}, nil
}

// Actor is who asks.
type Actor struct {
	UserID string
	Role   identity.Role
	IP     string
}

func (a Actor) meta() eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.IP}
}

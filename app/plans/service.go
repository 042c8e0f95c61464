// Package plans is the application service of the plan catalogue: creating plans, changing their
// terms (a new version each time) and offering or withdrawing them, each as one command of the
// command runner (app/command) on the plan's stream, and listing the active plans from the read
// model (projections/plans).
//
// Names are unique in the catalogue, ignoring case and spacing: the aggregate sees one plan, so
// the service claims the name in plan_names in the transaction of the plan.created event, and a
// taken name rolls the creation back.
//
// There is no staff screen for plans yet: the demo seed and tests call the service. Whoever
// calls it is trusted (an API for staff would check its policy first).
package plans

import (
	"clearvest/platform/pgread"
	"context"
	"embed"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/domain/plan"
	"clearvest/eventstore"
	"clearvest/platform/pgmigrate"
	"clearvest/projections/plans"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the service's own table (plan_names). It refers to no other set's tables.
var Migrations = pgmigrate.MustFromFS("plans", migrationFS, "migrations")

// ErrNameTaken is returned when another plan has the name already.
var ErrNameTaken = domainerr.New(domainerr.Conflict, "A plan with this name exists already.")

// Deps are the collaborators of the service.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner // on a store that appends with statements (command.Submit)
	Clock    clock.Clock
}

// Service runs the plan catalogue. It is safe for concurrent use.
type Service struct {
	pool     *pgxpool.Pool
	commands *command.Runner
	clock    clock.Clock
}

// New wires the service.
func New(d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil {
		return nil, errors.New("plans: New needs a pool and a command runner")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	return &Service{pool: d.Pool, commands: d.Commands, clock: d.Clock}, nil
}

// Stream is the stream of a plan.
func Stream(id string) eventstore.StreamID {
	return eventstore.NewStreamID(plan.StreamCategory, id)
}

// CreateInput is a new plan: its name, its first terms and whether it is offered at once.
type CreateInput struct {
	Name   string
	Terms  plan.Terms
	Active bool
	// Reason is the admin's reason, recorded in the event.
	Reason string
}

// Created is what Create did.
type Created struct {
	ID       string
	Position int64
}

// Create adds a plan to the catalogue with a new id, its terms as version 1. A name another plan
// has (ignoring case and spacing) is ErrNameTaken, and nothing is stored.
func (s *Service) Create(ctx context.Context, meta eventstore.Metadata, in CreateInput) (Created, error) {
	id := uuid.Must(uuid.NewV7()).String()
	stream := Stream(id)
	res, err := command.Submit(ctx, s.commands, stream, plan.New, meta,
		func(p *plan.Plan, w *command.Writes) error {
			if err := p.CreateBecause(id, in.Name, in.Terms, in.Active, in.Reason, s.clock.Now()); err != nil {
				return err
			}
			w.Add(`INSERT INTO plan_names (name_key, plan_id, claimed_at) VALUES ($1, $2, $3)`, plan.NameKey(p.Name()), id, s.clock.Now())
			w.OnUnique("plan_names_pkey", ErrNameTaken)
			return nil
		})
	if err != nil {
		return Created{}, err
	}
	return Created{ID: id, Position: res.Position}, nil
}

// ChangeTerms makes terms the plan's next version; investments made from now on take them, those
// made before keep theirs. The same terms again change nothing (position 0).
func (s *Service) ChangeTerms(ctx context.Context, meta eventstore.Metadata, id string, terms plan.Terms) (int64, error) {
	id, err := parseID(id)
	if err != nil {
		return 0, err
	}
	res, err := command.Execute(ctx, s.commands, Stream(id), plan.New, meta, func(p *plan.Plan) error {
		return p.ChangeTerms(terms, s.clock.Now())
	})
	return res.Position, err
}

// NewVersion records terms as the plan's next version, with the admin's reason.
func (s *Service) NewVersion(ctx context.Context, meta eventstore.Metadata, id string, terms plan.Terms, reason string) (int64, error) {
	id, err := parseID(id)
	if err != nil {
		return 0, err
	}
	res, err := command.Execute(ctx, s.commands, Stream(id), plan.New, meta, func(p *plan.Plan) error {
		return p.NewVersion(terms, reason, s.clock.Now())
	})
	return res.Position, err
}

// Retire stops the plan taking new investments, with the admin's reason.
func (s *Service) Retire(ctx context.Context, meta eventstore.Metadata, id string, reason string) (int64, error) {
	id, err := parseID(id)
	if err != nil {
		return 0, err
	}
	res, err := command.Execute(ctx, s.commands, Stream(id), plan.New, meta, func(p *plan.Plan) error {
		return p.Retire(reason, s.clock.Now())
	})
	return res.Position, err
}

// All lists every plan, retired ones included, from the read model.
func (s *Service) All(ctx context.Context) ([]plans.Plan, error) {
	return plans.All(ctx, pgread.On(ctx, s.pool))
}

// SetActive offers the plan to investors or withdraws it. Its state again changes nothing.
func (s *Service) SetActive(ctx context.Context, meta eventstore.Metadata, id string, active bool) (int64, error) {
	id, err := parseID(id)
	if err != nil {
		return 0, err
	}
	res, err := command.Execute(ctx, s.commands, Stream(id), plan.New, meta, func(p *plan.Plan) error {
		return p.SetActive(active, s.clock.Now())
	})
	return res.Position, err
}

// Load returns a plan as its stream is now, every version of its terms included.
func (s *Service) Load(ctx context.Context, id string) (*plan.Plan, error) {
	id, err := parseID(id)
	if err != nil {
		return nil, err
	}
	p, err := command.Load(ctx, s.commands, Stream(id), plan.New)
	if err != nil {
		return nil, err
	}
	if !p.Created() {
		return nil, plan.ErrNotFound
	}
	return p, nil
}

// ByName returns the plan of that name (ignoring case and spacing) as its stream is now, so its
// current terms and whether it is offered are never a read model's lag behind. A name no plan
// has is plan.ErrNotFound.
func (s *Service) ByName(ctx context.Context, name string) (*plan.Plan, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT plan_id FROM plan_names WHERE name_key = $1`, plan.NameKey(name)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, plan.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return s.Load(ctx, id)
}

// Active lists the plans offered to investors, from the read model, smallest minimum first.
func (s *Service) Active(ctx context.Context) ([]plans.Plan, error) {
	return plans.Active(ctx, pgread.On(ctx, s.pool))
}

// Empty reports whether no plan was ever created (withdrawn plans count as created).
func (s *Service) Empty(ctx context.Context) (bool, error) {
	var exists bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM plan_names)`).Scan(&exists)
	return !exists, err
}

// parseID turns an id into the canonical form of a plan id, or 404.
func parseID(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", plan.ErrNotFound
	}
	return u.String(), nil
}

// Package planstest wires a real plan catalogue for tests, as serve does: a fresh database with
// the schemas it needs, the event store, the command runner, the plans read model and the
// service. Tests bring the read model up to date with CatchUp instead of waiting for a loop.
package planstest

import (
	"context"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/app/plans"
	"clearvest/domain/clock"
	"clearvest/domain/plan"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate/pgmigratetest"
	"clearvest/projections"
	projplans "clearvest/projections/plans"
)

// Env is a wired plan catalogue and what tests need to look behind it.
type Env struct {
	Plans    *plans.Service
	Pool     *pgxpool.Pool
	Store    *postgres.Store
	Codec    *eventstore.Registry
	Commands *command.Runner
	Runner   *projections.Runner
	// Last is the highest position a command of the test reported through Track.
	Last int64
}

// New builds the environment on a fresh database; c may be nil (the system clock).
func New(t *testing.T, c clock.Clock) *Env {
	t.Helper()
	ctx := context.Background()
	pool := pgmigratetest.NewPool(t, postgres.Migrations, projections.Migrations, plans.Migrations)
	logger := slog.New(slog.DiscardHandler)
	store := postgres.New(pool, postgres.WithLogger(logger))
	t.Cleanup(store.Close)
	codec := eventstore.NewRegistry()
	plan.RegisterEvents(codec)
	runner, err := projections.NewRunner(pool, store, []projections.Projection{projplans.New(codec)}, projections.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	commands := command.NewRunner(store, codec, command.WithLogger(logger))
	svc, err := plans.New(plans.Deps{Pool: pool, Commands: commands, Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Plans: svc, Pool: pool, Store: store, Codec: codec, Commands: commands, Runner: runner}
}

// Track records the position a command reported, for CatchUp.
func (e *Env) Track(position int64) { e.Last = max(e.Last, position) }

// CatchUp applies everything tracked so far to the read model.
func (e *Env) CatchUp(t *testing.T) {
	t.Helper()
	if e.Last > 0 {
		eventstoretest.WaitVisible(t, e.Store, e.Last)
	}
	if err := e.Runner.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

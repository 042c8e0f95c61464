package apptest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate/pgmigratetest"
	"clearvest/projections"
)

// MoneyApp is the money write side: a PostgreSQL store and a registry that knows the account
// events (none of them is personal data, so no cipher).
type MoneyApp struct {
	Pool  *pgxpool.Pool
	Store *postgres.Store
	Codec *eventstore.Registry
	// Last is the position of the last event appended through Do (or recorded with Saw).
	Last int64

	commands *command.Runner
}

// NewMoneyApp migrates a fresh database and wires the store and codec.
func NewMoneyApp(t *testing.T) *MoneyApp {
	t.Helper()
	pool := pgmigratetest.NewPool(t, postgres.Migrations, projections.Migrations)
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	codec := eventstore.NewRegistry()
	account.RegisterEvents(codec)
	return &MoneyApp{Pool: pool, Store: store, Codec: codec, commands: command.NewRunner(store, codec)}
}

// Do runs one command on a user's money stream through the command runner.
func (a *MoneyApp) Do(t *testing.T, userID string, decide func(*account.Account) error) {
	t.Helper()
	res, err := command.Execute(context.Background(), a.commands, eventstore.StreamID(account.Stream(userID)), account.NewFor(userID),
		eventstore.Metadata{}, decide)
	if err != nil {
		t.Fatalf("command on %s: %v", userID, err)
	}
	a.Last = max(a.Last, res.Position)
}

// DoOn runs one command on another stream of the money story (a chain payout's, say) through
// the same command runner; the events' types must be registered in Codec first.
func DoOn[A command.Aggregate](t *testing.T, a *MoneyApp, stream string, newAgg func() A, decide func(A) error) {
	t.Helper()
	res, err := command.Execute(context.Background(), a.commands, eventstore.StreamID(stream), newAgg, eventstore.Metadata{}, decide)
	if err != nil {
		t.Fatalf("command on %s: %v", stream, err)
	}
	a.Last = max(a.Last, res.Position)
}

// Replay loads userID's account from the log into a fresh aggregate.
func (a *MoneyApp) Replay(t *testing.T, userID string) *account.Account {
	t.Helper()
	acc := account.New(userID)
	for from := int64(1); ; {
		envs, err := a.Store.ReadStream(context.Background(), eventstore.StreamID(account.Stream(userID)), from, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range envs {
			ev, err := a.Codec.Decode(env)
			if err != nil {
				t.Fatal(err)
			}
			acc.Apply(ev)
		}
		if len(envs) < 1000 {
			return acc
		}
		from = envs[len(envs)-1].Version + 1
	}
}

// Runner returns a prepared runner for the given read models.
func (a *MoneyApp) Runner(t *testing.T, ps []projections.Projection, opts ...projections.Option) *projections.Runner {
	t.Helper()
	r, err := projections.NewRunner(a.Pool, a.Store, ps, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// CatchUp applies everything appended so far.
func (a *MoneyApp) CatchUp(t *testing.T, r *projections.Runner) {
	t.Helper()
	eventstoretest.WaitVisible(t, a.Store, a.Last)
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Package apptest holds fixtures for read-model tests: the write side wired the way the
// application wires it, so a read model is tested against real events in a real database.
package apptest

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/support"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/pii"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate/pgmigratetest"
	"clearvest/projections"
)

// IdentityApp is the users' write side: a PostgreSQL store and a registry whose cipher seals
// personal fields with per-user keys.
type IdentityApp struct {
	Pool   *pgxpool.Pool
	Store  *postgres.Store
	Codec  *eventstore.Registry
	Cipher *pii.Cipher
	// Last is the position of the last event appended through Do.
	Last int64

	commands *command.Runner
}

// NewIdentityApp migrates a fresh database and wires the store, codec and cipher.
func NewIdentityApp(t *testing.T) *IdentityApp {
	t.Helper()
	pool := pgmigratetest.NewPool(t, postgres.Migrations, projections.Migrations, pii.Migrations)
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	cipher, err := pii.New(pool, bytes.Repeat([]byte{3}, 32))
	if err != nil {
		t.Fatal(err)
	}
	codec := eventstore.NewRegistry()
	identity.RegisterEvents(codec)
	kyc.RegisterEvents(codec)
	account.RegisterEvents(codec) // read models that join users to their money (referrals)
	support.RegisterEvents(codec) // the support tickets read model
	codec.SetCipher(cipher)
	return &IdentityApp{Pool: pool, Store: store, Codec: codec, Cipher: cipher, commands: command.NewRunner(store, codec)}
}

// Do runs one command on a user's stream through the command runner.
func (a *IdentityApp) Do(t *testing.T, userID string, meta eventstore.Metadata, decide func(*identity.User) error) {
	t.Helper()
	stream := eventstore.NewStreamID(identity.StreamCategory, userID)
	res, err := command.Execute(context.Background(), a.commands, stream, identity.New, meta, decide)
	if err != nil {
		t.Fatalf("command on %s: %v", userID, err)
	}
	a.Last = max(a.Last, res.Position)
}

// DoMoney runs one command on a user's money stream through the same command runner.
func (a *IdentityApp) DoMoney(t *testing.T, userID string, decide func(*account.Account) error) {
	t.Helper()
	res, err := command.Execute(context.Background(), a.commands, eventstore.NewStreamID(account.StreamCategory, userID),
		account.NewFor(userID), eventstore.Metadata{}, decide)
	if err != nil {
		t.Fatalf("command on account-%s: %v", userID, err)
	}
	a.Last = max(a.Last, res.Position)
}

// DoTicket runs one command on a support ticket's stream through the same command runner.
func (a *IdentityApp) DoTicket(t *testing.T, ticketID string, decide func(*support.Ticket) error) {
	t.Helper()
	res, err := command.Execute(context.Background(), a.commands, eventstore.NewStreamID(support.StreamCategory, ticketID),
		support.New, eventstore.Metadata{}, decide)
	if err != nil {
		t.Fatalf("command on ticket-%s: %v", ticketID, err)
	}
	a.Last = max(a.Last, res.Position)
}

// Runner returns a prepared runner for the given read models.
func (a *IdentityApp) Runner(t *testing.T, ps []projections.Projection, opts ...projections.Option) *projections.Runner {
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
func (a *IdentityApp) CatchUp(t *testing.T, r *projections.Runner) {
	t.Helper()
	eventstoretest.WaitVisible(t, a.Store, a.Last)
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

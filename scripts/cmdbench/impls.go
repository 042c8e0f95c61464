package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/hallgren/eventsourcing"
	esagg "github.com/hallgren/eventsourcing/aggregate"
	essql "github.com/hallgren/eventsourcing/eventstore/sql"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"clearvest/app/command"
	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
)

// impl is one way of running the workload's command: given the writer and the writer's n-th
// command, it appends one event to the writer's current stream.
type impl struct {
	name string
	// about says what it is, for the report.
	about string
	pool  *pgxpool.Pool // the impl's own database, for the CPU meter
	run   func(ctx context.Context, writer, n int) error
	close func()
	// serverPID is the server process of an impl over HTTP, whose CPU time counts with this
	// process's (go-cpu); 0 when the impl runs in this process.
	serverPID int
	// lag measures projection lag, for an impl whose commands report positions; nil otherwise.
	lag *lagMeter
}

// streamOf is the workload's stream of a writer's n-th command: every writer has its own
// streams and moves to a new one every streamLength commands, as BenchmarkCommand does.
func streamOf(writer, n, streamLength int) (id string, version int64) {
	return fmt.Sprintf("w%d-%d", writer, n/streamLength), int64(n%streamLength) + 1
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// benchAccount is the smallest aggregate that behaves like a real one: it rebuilds state from
// its history and raises one event per command.
type benchAccount struct {
	aggregate.Root
	balance int64
}

type benchDeposited struct {
	Amount int64 `json:"amount"`
}

func (benchDeposited) EventName() string { return "bench.deposited" }

func (a *benchAccount) Apply(e aggregate.Event) {
	if e, ok := e.(benchDeposited); ok {
		a.balance += e.Amount
	}
}

func deposit(a *benchAccount) error {
	aggregate.Raise(a, benchDeposited{Amount: 100})
	return nil
}

var benchMeta = eventstore.Metadata{ActorID: "user-bench", ActorRole: "customer"}

// newClearvest is the command path as serve wires it (cmd/clearvest/app.go, newCommands): the
// PostgreSQL store and the runner with its defaults (cache, batched appends).
func newClearvest(ctx context.Context, url string, streamLength int) (*impl, error) {
	pool, err := openPool(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := pgmigrate.Apply(ctx, pool, postgres.Migrations); err != nil {
		pool.Close()
		return nil, err
	}
	store := postgres.New(pool, postgres.WithLogger(quiet))
	codec := eventstore.NewRegistry()
	eventstore.Register[benchDeposited](codec, 1)
	runner := command.NewRunner(store, codec, command.WithLogger(quiet))
	newAgg := func() *benchAccount { return &benchAccount{} }
	im := &impl{name: "clearvest", pool: pool, close: func() { store.Close(); pool.Close() },
		about: "command.Execute: load (cached) → decide → append with the expected version, batched with concurrent commands"}
	im.run = func(ctx context.Context, w, n int) error {
		id, _ := streamOf(w, n, streamLength)
		_, err := command.Execute(ctx, runner, eventstore.NewStreamID("account", id), newAgg, benchMeta, deposit)
		return err
	}
	return im, nil
}

// newRawSQL is the floor: the same row as the command's event, one INSERT per transaction into
// a table with the log's columns, keys and indexes, with no stream lock, no version check and
// no read.
func newRawSQL(ctx context.Context, url string, streamLength int) (*impl, error) {
	pool, err := openPool(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := pgmigrate.Apply(ctx, pool, postgres.Migrations); err != nil {
		pool.Close()
		return nil, err
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE raw_events (LIKE events INCLUDING ALL)`); err != nil {
		pool.Close()
		return nil, err
	}
	var position atomic.Int64
	return &impl{name: "raw-sql", pool: pool, close: pool.Close,
		about: "one INSERT per transaction of the same row into a copy of the events table",
		run: func(ctx context.Context, w, n int) error {
			id, version := streamOf(w, n, streamLength)
			eid := eventstore.NewEventID()
			meta := fmt.Sprintf(`{"correlationId":%q,"causationId":%q,"actorId":"user-bench","actorRole":"customer"}`, eid, eid)
			_, err := pool.Exec(ctx, `INSERT INTO raw_events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
				VALUES ($1, $2, $3, $4, 'bench.deposited', 1, $5, $6, now())`,
				position.Add(1), eid, "account-"+id, version, `{"amount":100}`, meta)
			return err
		}}, nil
}

// peerAccount is benchAccount for github.com/hallgren/eventsourcing.
type peerAccount struct {
	esagg.Root
	balance int64
}

type peerDeposited struct {
	Amount int64
}

func (a *peerAccount) Transition(e eventsourcing.Event) {
	if d, ok := e.Data().(*peerDeposited); ok {
		a.balance += d.Amount
	}
}

func (a *peerAccount) Register(r esagg.RegisterFunc) { r(&peerDeposited{}) }

// newPeer is github.com/hallgren/eventsourcing with its PostgreSQL event store: load the
// aggregate's events, apply, track one change, save (which reads the stream's last version and
// inserts). It uses the same driver (pgx, through database/sql) and pool size as Clearvest.
func newPeer(ctx context.Context, url string, streamLength int) (*impl, error) {
	pool, err := openPool(ctx, url) // only for the CPU meter
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDBFromPool(pool)
	store, err := essql.NewPostgres(db)
	if err != nil {
		pool.Close()
		return nil, err
	}
	esagg.Register(&peerAccount{})
	return &impl{name: "peer", pool: pool, close: func() { _ = db.Close(); pool.Close() },
		about: "github.com/hallgren/eventsourcing v0.9.1, PostgreSQL store of eventstore/sql v0.7.0: aggregate.Load → TrackChange → aggregate.Save",
		run: func(ctx context.Context, w, n int) error {
			id, _ := streamOf(w, n, streamLength)
			a := &peerAccount{}
			err := esagg.Load(ctx, store, id, a)
			if errors.Is(err, eventsourcing.ErrAggregateNotFound) {
				a = &peerAccount{}
				err = a.SetID(id)
			}
			if err != nil {
				return err
			}
			esagg.TrackChangeWithMetadata(a, &peerDeposited{Amount: 100}, map[string]any{"actorId": "user-bench", "actorRole": "customer"})
			return esagg.Save(store, a)
		}}, nil
}

// openPool opens a pool sized like serve's (cmd/clearvest/db.go).
func openPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 20
	return pgxpool.NewWithConfig(ctx, cfg)
}

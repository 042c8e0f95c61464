package auth

import (
	"context"
	"embed"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates every table of the auth packages. They form one set because they are one
// concern (who may act, and how they prove it) and some queries join across them.
var Migrations = pgmigrate.MustFromFS("auth", migrationFS, "migrations")

// DB is what the stores need from PostgreSQL. A *pgxpool.Pool, a *pgx.Conn and a pgx.Tx all
// satisfy it, so a write can join the caller's transaction (the one appending the events that
// cause it) or run on its own. Begin on a pgx.Tx opens a savepoint, so a store can group its own
// statements atomically either way.
type DB interface {
	Begin(ctx context.Context) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Statement is one write as SQL and its arguments, for a flow that sends its writes with its
// events in one round trip (command.Submit) instead of running them in a transaction it holds.
// A store's write that has such a form builds it once and runs it through Exec when it is
// called directly, so the two never differ.
type Statement struct {
	SQL  string
	Args []any
}

// Exec runs statements in order on db.
func Exec(ctx context.Context, db DB, statements ...Statement) error {
	for _, st := range statements {
		if _, err := db.Exec(ctx, st.SQL, st.Args...); err != nil {
			return err
		}
	}
	return nil
}

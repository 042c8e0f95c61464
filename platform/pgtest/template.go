package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Schema is what a template database holds. Tests that ask for the same Name share one
// template on the server, replaced when Version changes; Apply makes the schema in an empty
// database. platform/pgmigrate/pgmigratetest makes one from migration sets.
type Schema struct {
	Name, Version string
	Apply         func(ctx context.Context, pool *pgxpool.Pool) error
}

// NewDatabaseWith is NewDatabase with the schema already there. Applying a service's
// migrations costs about 0.3 s per test environment; copying a database that has them (CREATE
// DATABASE … TEMPLATE) costs what creating an empty one does. The template is built once per
// server for each version of the schema, by whichever test process asks first, and is named
// after that version, so a changed migration gets a new template and never a stale one.
func NewDatabaseWith(t testing.TB, schema Schema) string {
	t.Helper()
	srv := testServer(t)
	tpl := templateFor(schema)
	for attempt := 0; ; attempt++ {
		name, err := tpl.ready(srv)
		if err != nil {
			t.Fatalf("template database for %s: %v", schema.Name, err)
		}
		url, err := create(t, srv, name)
		// Another checkout with other migrations may have replaced this schema's template since.
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "3D000" && attempt == 0 {
			tpl.forget()
			continue
		}
		if err != nil {
			t.Fatalf("create test database from %s: %v", name, err)
		}
		return url
	}
}

// NewPoolWith is NewDatabaseWith with a pool on it, closed when the test ends.
func NewPoolWith(t testing.TB, schema Schema) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), NewDatabaseWith(t, schema))
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// template is one template database: a schema's name and version. A schema keeps one template,
// so a server does not collect copies of old migrations.
type template struct {
	family, name string
	lockKey      int64
	apply        func(ctx context.Context, pool *pgxpool.Pool) error

	mu    sync.Mutex
	built bool
}

var (
	templatesMu sync.Mutex
	templates   = map[string]*template{}
)

func templateFor(schema Schema) *template {
	family := sha256.Sum256([]byte(schema.Name))
	version := sha256.Sum256([]byte(schema.Name + "\x00" + schema.Version))
	prefix := "cvtpl_" + hex.EncodeToString(family[:])[:12] + "_"
	name := prefix + hex.EncodeToString(version[:])[:12]
	templatesMu.Lock()
	defer templatesMu.Unlock()
	if tpl, ok := templates[name]; ok {
		return tpl
	}
	tpl := &template{family: prefix, name: name, lockKey: int64(binary.BigEndian.Uint64(version[:8]) >> 1), apply: schema.Apply}
	templates[name] = tpl
	return tpl
}

func (tpl *template) forget() {
	tpl.mu.Lock()
	tpl.built = false
	tpl.mu.Unlock()
}

// ready returns the template's name once it exists on the server, building it if no process has.
func (tpl *template) ready(srv server) (string, error) {
	tpl.mu.Lock()
	defer tpl.mu.Unlock()
	if tpl.built {
		return tpl.name, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, srv.cfg)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	// Test packages run in parallel processes; the lock lets one of them build a version's
	// template while the others wait and then find it. Closing the connection releases it.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, tpl.lockKey); err != nil {
		return "", err
	}
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, tpl.name).Scan(&exists); err != nil {
		return "", err
	}
	if !exists {
		if err := tpl.build(ctx, conn, srv); err != nil {
			return "", err
		}
	}
	tpl.built = true
	return tpl.name, nil
}

// build makes the schema in a database under a test database's name and renames it only when
// complete, so an interrupted build leaves no half-made template behind.
func (tpl *template) build(ctx context.Context, conn *pgx.Conn, srv server) error {
	work := randomName()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+work); err != nil {
		return err
	}
	drop := func(name string) { _, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") }
	pool, err := pgxpool.New(ctx, srv.databaseURL(work))
	if err != nil {
		drop(work)
		return err
	}
	err = tpl.apply(ctx, pool)
	pool.Close()
	if err != nil {
		drop(work)
		return err
	}
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, tpl.family)
	if err != nil {
		drop(work)
		return err
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		drop(work)
		return err
	}
	for _, name := range stale {
		drop(name)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+work+" RENAME TO "+tpl.name); err != nil {
		drop(work)
		return err
	}
	return nil
}

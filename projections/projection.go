// Package projections turns the event log into PostgreSQL read models.
//
// Each projection owns one schema, rm_<name>, and a checkpoint row. The runner applies events in
// batches; each batch, its read-model writes and the checkpoint commit in one transaction, so a
// crash at any point neither loses nor repeats an event. A transaction-scoped advisory lock per
// projection lets any number of serve processes run the runner while only one applies a batch at
// a time. Rebuilds build a fresh schema from position 0 and swap it in under the same lock.
package projections

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the projection engine's own tables.
var Migrations = pgmigrate.MustFromFS("projections", migrationFS, "migrations")

// Projection builds one read model.
type Projection interface {
	// Name is stable and short ([a-z][a-z0-9_]*); the read model lives in schema rm_<name>.
	Name() string
	// Schema is the DDL that creates the read model's tables, with unqualified names: it runs
	// with search_path set to the live or the rebuild schema. Changing it triggers a rebuild;
	// raise the projection's Version at the same time (see Versioned).
	Schema() string
	// Apply applies a batch of events in order inside tx (search_path set to the target schema).
	// It must be deterministic: a rebuild from the same events yields the same rows. Events it
	// does not care about are simply ignored. An error (or a panic) that is not transient parks
	// the projection at the event that caused it, so Apply must fail rather than guess.
	Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error
}

// Versioned is implemented by projections whose definition has changed since it was first
// deployed. The version orders definitions: a process starting with a higher version than the
// database's rebuilds the read model, and a process with a lower one stands down for that
// projection instead of writing to tables its code does not know (a rolling deploy). Raise it
// whenever Schema changes, or when Apply changes what it writes and the read model must be
// rebuilt. Projections that do not implement it are version 1.
type Versioned interface {
	Version() int
}

// Definition identifies what a process would write to a projection's read model.
type Definition struct {
	Version    int
	SchemaHash string
}

// DefinitionOf returns p's version and the hash of its Schema.
func DefinitionOf(p Projection) Definition {
	v := 1
	if vp, ok := p.(Versioned); ok {
		v = vp.Version()
	}
	return Definition{Version: v, SchemaHash: schemaHash(p)}
}

// mismatch explains why a process whose definition is mine must not write to a read model
// built with d, or returns "" when it may.
func (d Definition) mismatch(mine Definition) string {
	switch {
	case d == mine:
		return ""
	case d.Version > mine.Version:
		return fmt.Sprintf("the database holds version %d of its definition; this process knows version %d", d.Version, mine.Version)
	case d.Version < mine.Version:
		return fmt.Sprintf("the database holds version %d of its definition; this process knows version %d and rebuilds it at start-up", d.Version, mine.Version)
	default:
		return fmt.Sprintf("the database holds another schema under the same version %d", d.Version)
	}
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// SchemaName is the live schema of a projection; queries qualify their tables with it.
func SchemaName(name string) string { return "rm_" + name }

func rebuildSchemaName(name string) string { return "rm_" + name + "__rebuild" }

func schemaHash(p Projection) string {
	sum := sha256.Sum256([]byte(p.Schema()))
	return hex.EncodeToString(sum[:8])
}

func checkName(p Projection) error {
	if !validName.MatchString(p.Name()) {
		return fmt.Errorf("projections: invalid projection name %q", p.Name())
	}
	return nil
}

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
	// with search_path set to the live or the rebuild schema. Changing it triggers a rebuild.
	Schema() string
	// Apply applies a batch of events in order inside tx (search_path set to the target schema).
	// It must be deterministic: a rebuild from the same events yields the same rows. Events it
	// does not care about are simply ignored.
	Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error
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

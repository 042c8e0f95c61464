package projections

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"clearvest/domain/money"
	"clearvest/eventstore"
)

// Bulk is implemented by projections that rebuild from zero by folding the events in memory and
// writing the rows with COPY, rather than through Apply batch by batch. Apply reads what earlier
// batches wrote and inserts or updates rows one statement per table and batch, which is what live
// batches of a few events need; a rebuild of a whole log spent most of its time in PostgreSQL
// updating rows it had inserted a batch earlier and maintaining their indexes (docs/benchmarks.md,
// "Cost as history grows"). A builder holds in memory what later events may still change, and
// the rebuild creates the build schema's indexes and keys only once its rows are in.
//
// A builder must leave the rows Apply would have left after the same events: the swap phase of
// the rebuild goes on from them with Apply.
type Bulk interface {
	Projection
	// Builder starts the fold of a rebuild from position 0.
	Builder() Builder
}

// Builder folds a rebuild's events in memory and writes the read model's rows.
type Builder interface {
	// Add folds one event, in the order of the log; events the read model ignores pass. An error
	// refuses the event, as an error of Apply would: the rebuild stops at it with an *EventError.
	Add(ctx context.Context, env eventstore.Envelope) error
	// Write writes the rows no later event can change, or with final every row held, into tx,
	// whose search_path is set to the build schema, and lets go of them. Final is the last call.
	Write(ctx context.Context, tx pgx.Tx, final bool) error
}

// addEvent folds one event into b, turning an error or a panic into the *EventError that stops
// the rebuild at it.
func addEvent(ctx context.Context, p Projection, b Builder, env eventstore.Envelope) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &EventError{Projection: p.Name(), Event: env, Err: &panicError{value: v, stack: debug.Stack()}}
		}
	}()
	if err := b.Add(ctx, env); err != nil {
		return &EventError{Projection: p.Name(), Event: env, Err: err}
	}
	return nil
}

// writeBuilt runs b.Write inside tx with search_path set to schema.
func writeBuilt(ctx context.Context, tx pgx.Tx, p Projection, b Builder, schema string, final bool) error {
	if err := useSchema(ctx, tx, schema); err != nil {
		return err
	}
	if err := b.Write(ctx, tx, final); err != nil {
		return fmt.Errorf("projections: write rebuilt %s: %w", p.Name(), err)
	}
	return resetSchema(ctx, tx)
}

// deferredIndex is an index of a build schema, dropped while its rows are loaded, and the
// statement that creates it again.
type deferredIndex struct{ name, drop, create string }

// dropIndexes drops the indexes of schema's tables and returns how to create them again once the
// rows are in: one sort per index instead of an insertion into each index per row. The indexes of
// primary keys and unique constraints go with their constraints, which are added back as they
// were defined; a duplicate then fails the rebuild when they are, rather than at its row.
// Constraints other tables' foreign keys depend on stay.
func dropIndexes(ctx context.Context, tx pgx.Tx, schema string) ([]deferredIndex, error) {
	rows, err := tx.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname),
			CASE WHEN k.oid IS NULL THEN 'DROP INDEX ' || format('%I.%I', n.nspname, c.relname)
			ELSE format('ALTER TABLE %I.%I DROP CONSTRAINT %I', n.nspname, t.relname, k.conname) END,
			CASE WHEN k.oid IS NULL THEN pg_get_indexdef(i.indexrelid)
			ELSE format('ALTER TABLE %I.%I ADD CONSTRAINT %I ', n.nspname, t.relname, k.conname) || pg_get_constraintdef(k.oid) END
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.contype IN ('p', 'u')
		WHERE n.nspname = $1
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = i.indexrelid)
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint x WHERE x.conindid = i.indexrelid AND x.contype NOT IN ('p', 'u'))
		ORDER BY k.oid IS NULL, c.relname`, schema)
	if err != nil {
		return nil, fmt.Errorf("projections: indexes of %s: %w", schema, err)
	}
	idx, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (deferredIndex, error) {
		var d deferredIndex
		return d, r.Scan(&d.name, &d.drop, &d.create)
	})
	if err != nil {
		return nil, fmt.Errorf("projections: indexes of %s: %w", schema, err)
	}
	for _, d := range idx {
		if _, err := tx.Exec(ctx, d.drop); err != nil {
			return nil, fmt.Errorf("projections: drop index %s: %w", d.name, err)
		}
	}
	return idx, nil
}

// createIndexes creates the indexes dropIndexes dropped, constraints first, as they were defined.
func createIndexes(ctx context.Context, tx pgx.Tx, idx []deferredIndex) error {
	for _, d := range idx {
		if _, err := tx.Exec(ctx, d.create); err != nil {
			return fmt.Errorf("projections: create index %s: %w", d.name, err)
		}
	}
	return nil
}

// Numeric is m for a numeric column in COPY's binary format, exactly; PostgreSQL rounds it to the
// column's scale, as it rounds the text an INSERT passes.
func Numeric(m money.Money) pgtype.Numeric {
	d := m.Decimal()
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

package projections

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// schemaTx is one projection's view of a window's shared transaction (stepGroup): search_path is
// set to the projection's schema just before its first statement. Most projections ignore most
// events, and their Apply then costs no round trip at all.
//
// The path cannot travel in the same round trip as a batch: pgx prepares every statement of a
// batch before running the first, so the batch's statements would be resolved against the
// previous projection's schema (TestTheSharedTransactionSetsEachProjectionsSchema).
type schemaTx struct {
	pgx.Tx
	schema string
	used   bool // search_path is set to schema
}

// use sets search_path before the projection's first statement.
func (t *schemaTx) use(ctx context.Context) error {
	if t.used {
		return nil
	}
	if err := useSchema(ctx, t.Tx, t.schema); err != nil {
		return err
	}
	t.used = true
	return nil
}

func (t *schemaTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.use(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.Tx.Exec(ctx, sql, args...)
}

func (t *schemaTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	// Should setting the path fail, the transaction is aborted, so the batch fails too and the
	// caller sees that.
	_ = t.use(ctx)
	return t.Tx.SendBatch(ctx, b)
}

func (t *schemaTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.use(ctx); err != nil {
		return nil, err
	}
	return t.Tx.Query(ctx, sql, args...)
}

func (t *schemaTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.use(ctx); err != nil {
		return errRow{err}
	}
	return t.Tx.QueryRow(ctx, sql, args...)
}

func (t *schemaTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.use(ctx); err != nil {
		return 0, err
	}
	return t.Tx.CopyFrom(ctx, table, columns, src)
}

func (t *schemaTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if err := t.use(ctx); err != nil {
		return nil, err
	}
	return t.Tx.Prepare(ctx, name, sql)
}

func (t *schemaTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.use(ctx); err != nil {
		return nil, err
	}
	return t.Tx.Begin(ctx)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

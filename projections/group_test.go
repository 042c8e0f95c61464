package projections

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"clearvest/eventstore"
	"clearvest/platform/pgtest"
)

// TestAWindowCommitsTheRunningProjectionsTogether runs three projections, one of which refuses
// an event: it parks there alone, and the other two apply every later window in one shared
// transaction (their checkpoints' updated_at, the transaction's start, are the same), each
// event exactly once.
func TestAWindowCommitsTheRunningProjectionsTogether(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	events := logEvents(t, f, 30)
	bad := newPicky("picky")
	bad.refuseWith(events[12].ID, refusal)
	steady := newPicky("steady")
	r := f.runner(t, []Projection{bad, applied{}, steady}, WithBatchSize(20))
	runInBackground(t, r)

	eventually(t, "picky parked", func() (bool, string) {
		s := statusOf(t, r, "picky")
		return s.State == StateFailed, fmt.Sprintf("%+v", s)
	})
	more := logEvents(t, f, 25)
	last := more[len(more)-1].Position
	eventually(t, "the others caught up", func() (bool, string) {
		a, s := checkpoint(t, f.pool, "applied"), checkpoint(t, f.pool, "steady")
		return a == last && s == last, fmt.Sprint(a, s)
	})

	var together, apart int
	if err := f.pool.QueryRow(context.Background(), `SELECT
		  count(DISTINCT updated_at) FILTER (WHERE name IN ('applied', 'steady')),
		  count(*) FILTER (WHERE name = 'picky' AND updated_at IN (SELECT updated_at FROM projection_checkpoints WHERE name = 'applied'))
		FROM projection_checkpoints`).Scan(&together, &apart); err != nil {
		t.Fatal(err)
	}
	if together != 1 {
		t.Errorf("the running projections' last batches committed in %d transactions, want one", together)
	}
	if apart != 0 {
		t.Errorf("the parked projection moved with the others")
	}
	assertAppliedOnce(t, f.pool, 55)
	if got, want := positionsIn(t, f.pool, "rm_steady"), positionsOf(append(events, more...)); !slices.Equal(got, want) {
		t.Errorf("steady holds %d events, want all %d once", len(got), len(want))
	}
	if got, want := positionsIn(t, f.pool, "rm_picky"), positionsOf(events[:12]); !slices.Equal(got, want) {
		t.Errorf("picky holds %v, want the 12 events before the refused one", got)
	}
}

// everyCall writes and reads its read model through each kind of statement a pgx.Tx offers,
// naming its table unqualified, so the rows land in its own schema only if search_path was set
// first, whichever statement came first.
type everyCall struct {
	name  string
	first string // "exec", "batch", "query", "row" or "copy"
}

func (p everyCall) Name() string { return p.name }
func (everyCall) Schema() string {
	return `CREATE TABLE seen (position bigint PRIMARY KEY, how text NOT NULL)`
}

func (p everyCall) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	calls := []string{p.first, "exec", "batch", "query", "row", "copy"}
	for i, e := range events {
		var err error
		switch how := calls[i%len(calls)]; how {
		case "exec":
			_, err = tx.Exec(ctx, `INSERT INTO seen VALUES ($1, $2)`, e.Position, how)
		case "batch":
			b := &pgx.Batch{}
			b.Queue(`INSERT INTO seen VALUES ($1, $2)`, e.Position, how)
			err = tx.SendBatch(ctx, b).Close()
		case "query":
			var rows pgx.Rows
			if rows, err = tx.Query(ctx, `INSERT INTO seen VALUES ($1, $2) RETURNING position`, e.Position, how); err == nil {
				rows.Close()
				err = rows.Err()
			}
		case "row":
			var pos int64
			err = tx.QueryRow(ctx, `INSERT INTO seen VALUES ($1, $2) RETURNING position`, e.Position, how).Scan(&pos)
		case "copy":
			_, err = tx.CopyFrom(ctx, pgx.Identifier{"seen"}, []string{"position", "how"}, pgx.CopyFromRows([][]any{{e.Position, how}}))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// silent applies nothing and makes no statement.
type silent struct{}

func (silent) Name() string                                               { return "silent" }
func (silent) Schema() string                                             { return `CREATE TABLE nothing (id int)` }
func (silent) Apply(context.Context, pgx.Tx, []eventstore.Envelope) error { return nil }

// TestTheSharedTransactionSetsEachProjectionsSchema checks that in a window's shared transaction
// each projection's statements, whichever kind comes first, reach its own schema.
func TestTheSharedTransactionSetsEachProjectionsSchema(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	kinds := []string{"exec", "batch", "query", "row", "copy"}
	var ps []Projection
	for _, k := range kinds {
		ps = append(ps, everyCall{name: "first_" + k, first: k})
	}
	ps = append(ps, silent{})
	r := f.runner(t, ps)
	runInBackground(t, r)
	events := logEvents(t, f, 24)
	if err := r.WaitFor(context.Background(), events[len(events)-1].Position); err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		got := pgtest.Texts(t, f.pool, `SELECT position::text FROM rm_first_`+k+`.seen ORDER BY position`)
		if len(got) != len(events) {
			t.Errorf("first_%s holds %d rows, want %d", k, len(got), len(events))
		}
	}
	// A projection whose statement missed its schema would have failed in the shared
	// transaction and applied the batch alone, in a transaction of its own.
	var txs int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(DISTINCT updated_at) FROM projection_checkpoints`).Scan(&txs); err != nil {
		t.Fatal(err)
	}
	if txs != 1 {
		t.Errorf("the last batches committed in %d transactions, want one", txs)
	}
}

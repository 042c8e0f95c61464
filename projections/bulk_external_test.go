package projections_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"clearvest/app/apptest"
	"clearvest/eventstore"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/activity"
	"clearvest/projections/audit"
	"clearvest/projections/history"
	"clearvest/projections/investments"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// TestBulkRebuildEqualsLive builds each read model that rebuilds in bulk (projections.Bulk)
// live, in batches of a few events, over a random money history, then rebuilds it from zero in
// batches of a hundred, and checks that every row of every table is the same: the fold in memory
// and the rows it copies must be what Apply leaves, decisions many batches after their requests
// included.
func TestBulkRebuildEqualsLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	apptest.RandomMoney(t, e, 12, 1500, 7)
	staffActions(t, e)

	bulk := []projections.Projection{history.New(e.Codec), ledger.New(e.Codec), wallets.New(e.Codec), withdrawals.New(e.Codec),
		investments.New(e.Codec), activity.New(e.Codec), audit.New()}
	r := e.Runner(t, bulk, projections.WithBatchSize(7), projections.WithRebuildBatchSize(100))
	e.CatchUp(t, r)
	kinds := pgtest.Texts(t, e.Pool, `SELECT DISTINCT type FROM events ORDER BY 1`)
	if len(kinds) < 18 {
		t.Fatalf("the random history holds %d kinds of event, want every money event: %v", len(kinds), kinds)
	}

	for _, p := range bulk {
		if _, ok := p.(projections.Bulk); !ok {
			t.Fatalf("%s does not rebuild in bulk", p.Name())
		}
		schema := projections.SchemaName(p.Name())
		live := schemaRows(t, e, schema)
		res, err := r.Rebuild(ctx, p.Name())
		if err != nil {
			t.Fatal(err)
		}
		if res.Position != e.Last {
			t.Fatalf("%s rebuilt to %d, the log ends at %d", p.Name(), res.Position, e.Last)
		}
		rebuilt := schemaRows(t, e, schema)
		for table, want := range live {
			got := rebuilt[table]
			if len(want) == 0 || len(got) != len(want) {
				t.Errorf("%s.%s: %d rows rebuilt, %d live", schema, table, len(got), len(want))
				continue
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s.%s row %d rebuilt:\n%s\nlive:\n%s", schema, table, i, got[i], want[i])
					break
				}
			}
		}
		if len(rebuilt) != len(live) {
			t.Errorf("%s: tables rebuilt %d, live %d", schema, len(rebuilt), len(live))
		}
		// The indexes and keys dropped while the rows were copied are back, as the schema defines them.
		if got, want := pgtest.Texts(t, e.Pool, `SELECT replace(indexdef, schemaname || '.', '') FROM pg_indexes WHERE schemaname = '`+schema+`' ORDER BY 1`),
			indexesOf(t, e, p); !slices.Equal(got, want) {
			t.Errorf("%s: indexes %v, want %v", schema, got, want)
		}
	}
}

// staffActions appends, straight to the store, staff actions of a kind no read model decodes on
// streams that name their user in their first event, for the audit log: actions on other users,
// one on the staff member's own stream (left out), one while viewing as a user, spread over
// several batches.
func staffActions(t *testing.T, e *apptest.MoneyApp) {
	t.Helper()
	ctx := context.Background()
	staff, other := eventstore.NewEventID().String(), eventstore.NewEventID().String()
	admin := eventstore.Metadata{ActorID: staff, ActorRole: "admin", CorrelationID: "c1", ClientIP: "203.0.113.9"}
	author := eventstore.Metadata{ActorID: other, ActorRole: "author"}
	for i := range 30 {
		user := eventstore.NewEventID().String()
		stream := eventstore.StreamID(fmt.Sprintf("note-%d", i))
		opened := admin
		switch i % 5 {
		case 3:
			user = staff // the staff member's own: not audited
		case 4:
			opened = eventstore.Metadata{ActorID: user, ImpersonatorID: other, ActorRole: "subscriber"}
		}
		events := []eventstore.NewEvent{
			{ID: eventstore.NewEventID(), Type: "audittest.opened", SchemaVersion: 1, Metadata: opened,
				Data: []byte(fmt.Sprintf(`{"userId":%q,"reason":"check %d","amount":"%d.00","depositId":"d-%d"}`, user, i, 10+i, i))},
			{ID: eventstore.NewEventID(), Type: "audittest.closed", SchemaVersion: 1, Metadata: author,
				Data: []byte(fmt.Sprintf(`{"notes":"done %d","subjectId":"s-%d"}`, i, i))},
		}
		for _, ev := range events {
			stored, err := e.Store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion,
				Events: []eventstore.NewEvent{ev}})
			if err != nil {
				t.Fatal(err)
			}
			e.Last = stored[len(stored)-1].Position
		}
	}
}

// schemaRows is every row of every table of schema, as JSON, sorted, by table.
func schemaRows(t *testing.T, e *apptest.MoneyApp, schema string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range pgtest.Texts(t, e.Pool, `SELECT tablename FROM pg_tables WHERE schemaname = '`+schema+`'`) {
		out[table] = pgtest.Texts(t, e.Pool, `SELECT to_jsonb(t)::text FROM `+schema+`.`+table+` t ORDER BY 1`)
	}
	return out
}

// indexesOf creates p's schema in a scratch schema and lists its indexes' definitions.
func indexesOf(t *testing.T, e *apptest.MoneyApp, p projections.Projection) []string {
	t.Helper()
	ctx := context.Background()
	tx, err := e.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `CREATE SCHEMA scratch; SET LOCAL search_path = scratch`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, p.Schema()); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, `SELECT replace(indexdef, schemaname || '.', '') FROM pg_indexes WHERE schemaname = 'scratch' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

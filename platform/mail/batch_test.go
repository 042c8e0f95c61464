package mail

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestWithdrawStatementTakesExactlyWhatWasCounted: the statement a cancelled broadcast sends
// deletes the batch's waiting messages when their count is the one its event records; when a
// sender claimed one since the count, it fails with a check violation of WithdrawnAsCounted and
// deletes nothing, and a message being handed over is never withdrawn.
func TestWithdrawStatementTakesExactlyWhatWasCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newOutboxDB(t)
	due := time.Now().Add(time.Hour)
	for i := range 3 {
		sql, args, err := BatchStatement(ctx, "broadcast/b1", BatchItem{DedupeKey: "broadcast/b1/" + string(rune('a'+i)), Message: outboxMessage(i), Due: due})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	counted, err := Withdrawable(ctx, pool, "broadcast/b1")
	if err != nil || counted != 3 {
		t.Fatalf("withdrawable: %d, %v; want 3", counted, err)
	}
	// A sender claims one after the count.
	if _, err := pool.Exec(ctx, `UPDATE mail_outbox SET claim = gen_random_uuid() WHERE dedupe_key = 'broadcast/b1/a'`); err != nil {
		t.Fatal(err)
	}
	sql, args := WithdrawStatement("broadcast/b1", counted)
	_, err = pool.Exec(ctx, sql, args...)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23514" || pgErr.ConstraintName != WithdrawnAsCounted {
		t.Fatalf("withdrawing 3 where 2 wait: %v, want a check violation of %s", err, WithdrawnAsCounted)
	}
	if n, err := Withdrawable(ctx, pool, "broadcast/b1"); err != nil || n != 2 {
		t.Fatalf("after the refused withdrawal: %d waiting (%v), want 2 still there", n, err)
	}

	sql, args = WithdrawStatement("broadcast/b1", 2)
	if _, err := pool.Exec(ctx, sql, args...); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT dedupe_key FROM mail_outbox WHERE batch = 'broadcast/b1'`)
	if err != nil {
		t.Fatal(err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != "broadcast/b1/a" {
		t.Fatalf("left in the batch: %v, want only the claimed message", left)
	}
}

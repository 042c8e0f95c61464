package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrPositionsBehind means the log's head is at or above the position the next append would
// get. It is the state of a database restored (pg_dump, pg_restore) into a PostgreSQL cluster
// whose transaction ids are lower than the original's: new events would sort below what readers
// have passed and never reach them. Appends refuse to write in this state, and readers see no
// event above the next append's position; AdvancePositionOffset repairs it.
var ErrPositionsBehind = errors.New("eventstore: the log's head is above the position the next append would get (was the database restored into another PostgreSQL cluster?)")

// CheckPositions returns ErrPositionsBehind when the log's head is at or above the position the
// next append would get. It is cheap (one index probe), for readiness checks and read-only
// tools.
func CheckPositions(ctx context.Context, q Querier) error {
	rows, err := q.Query(ctx, `SELECT eventstore_positions_ok()`)
	if err != nil {
		return fmt.Errorf("eventstore: check positions: %w", err)
	}
	ok, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[bool])
	if err != nil {
		return fmt.Errorf("eventstore: check positions: %w", err)
	}
	if !ok {
		return ErrPositionsBehind
	}
	return nil
}

// positionsChecked marks, in a connection's custom data, that its session has passed
// CheckPositions.
const positionsChecked = "clearvest/eventstore/postgres.positionsChecked"

// checkConnPositions runs CheckPositions once per connection, before its first append. A
// database restored into another cluster is only reached through new connections, even by a
// process that was running before, so this is as safe as checking every append, at the cost of
// one query per connection instead of an index probe per append.
func checkConnPositions(ctx context.Context, conn *pgx.Conn) error {
	data := conn.PgConn().CustomData()
	if data[positionsChecked] != nil {
		return nil
	}
	if err := CheckPositions(ctx, conn); err != nil {
		return err
	}
	data[positionsChecked] = true
	return nil
}

// CheckPositions is CheckPositions on the store's pool.
func (s *Store) CheckPositions(ctx context.Context) error { return CheckPositions(ctx, s.pool) }

// OffsetChange is what AdvancePositionOffset found and did.
type OffsetChange struct {
	From, To int64 // the offset added to transaction ids, before and after
	Head     int64 // the log's head when it was moved (0 when it was not)
}

// Moved reports whether the offset had to change.
func (c OffsetChange) Moved() bool { return c.To != c.From }

// AdvancePositionOffset makes positions resume above the log's head after a restore into
// another cluster, by raising the offset added to transaction ids just enough that the next
// transaction id gives a higher position; when positions are ahead already it changes nothing.
// serve and migrate run it at start-up.
//
// It is safe while other processes use the database: the offset changes under an ACCESS
// EXCLUSIVE lock of its table, which waits for every append and read using the old value and
// holds new ones back until it commits; they then see the new value. Only a binary older than
// the offset would keep writing positions without it, so after a restore every process must
// run this version or a later one.
func AdvancePositionOffset(ctx context.Context, pool *pgxpool.Pool) (OffsetChange, error) {
	var ch OffsetChange
	// The usual case, ahead already, takes no lock that would stall appends and reads.
	if err := pool.QueryRow(ctx, `SELECT xid_offset FROM event_position_offset`).Scan(&ch.From); err != nil {
		return ch, fmt.Errorf("eventstore: position offset: %w", err)
	}
	ch.To = ch.From
	err := CheckPositions(ctx, pool)
	if !errors.Is(err, ErrPositionsBehind) {
		return ch, err
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE event_position_offset IN ACCESS EXCLUSIVE MODE`); err != nil {
			return err
		}
		// A statement after the lock: its snapshot sees every append that used the old offset.
		var next int64
		if err := tx.QueryRow(ctx, `SELECT o.xid_offset, (SELECT coalesce(max(position), 0) FROM events),
			  pg_snapshot_xmax(pg_current_snapshot())::text::bigint
			FROM event_position_offset o`).Scan(&ch.From, &ch.Head, &next); err != nil {
			return err
		}
		ch.To = ch.From
		// Every transaction id from now on is at least next.
		if ch.Head < (next+ch.From)<<16 {
			return nil // another process moved it meanwhile
		}
		ch.To = ch.Head>>16 + 1 - next
		_, err := tx.Exec(ctx, `UPDATE event_position_offset SET xid_offset = $1, updated_at = now()`, ch.To)
		return err
	})
	if err != nil {
		return OffsetChange{From: ch.From, To: ch.From}, fmt.Errorf("eventstore: advance the position offset: %w", err)
	}
	return ch, nil
}

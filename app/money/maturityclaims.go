package money

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maturityLockNamespace is the first key of the advisory locks by which maturity passes claim
// accounts, 0x43564D41 ("CVMA"); the second is hashtext of the user id.
const maturityLockNamespace = 0x43564D41

// maturityClaim is how many due accounts a pass claims at a time. Small, so that passes in
// several processes share the last of the work evenly and a pass holds few locks (each reader
// of the event log looks through the lock table), yet enough to keep the workers fed with one
// round trip per claim.
const maturityClaim = 16

// claimIdle is how long a claim session may wait between statements before PostgreSQL ends it
// (idle_session_timeout): a pass sends one at least every claim, so only a process that hangs
// with its connection open waits that long, and its claims then lapse for the others.
const claimIdle = time.Minute

// claims are a pass's hold on the accounts it is settling, so that passes in other processes
// pass them by rather than settle the same accounts in the same order and collide. A claim is
// a session-level advisory lock per account (pg_try_advisory_lock), taken for a few accounts at
// a time and released when they are settled, on a connection of the pass's own, outside the
// pool: the locks belong to that session, and the pass never holds a pool connection while
// waiting for another. A pass that dies, or whose process hangs past claimIdle, ends its
// session and its locks lapse with it: the next pass elsewhere settles those accounts.
//
// Claims only spread the work. Exactly once still rests on the command runner: optimistic
// concurrency and "nothing due raises nothing" make a settlement that runs twice anyway (a
// lapsed claim, two user ids whose hashes meet, an investor settling their own account) pay
// once.
type claims struct {
	cfg *pgx.ConnConfig

	mu   sync.Mutex // guards conn, which one statement at a time may use
	conn *pgx.Conn  // nil until the first claim, and after a failure
}

// claim is the accounts one take got, released when each has been done.
type claim struct {
	from *claims
	conn *pgx.Conn // the session holding the locks
	ids  []string
	left atomic.Int32
}

func newClaims(pool *pgxpool.Pool) *claims {
	cfg := pool.Config().ConnConfig.Copy()
	name := cfg.RuntimeParams["application_name"]
	if name == "" {
		name = "clearvest"
	}
	cfg.RuntimeParams["application_name"] = name + " maturity claims"
	cfg.RuntimeParams["idle_session_timeout"] = fmt.Sprint(claimIdle.Milliseconds())
	return &claims{cfg: cfg}
}

// take claims those of ids that no other session holds, and returns them. A session that
// ended (claimIdle, a restart of the server) is replaced once; its locks are gone with it.
func (c *claims) take(ctx context.Context, ids []string) (*claim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for attempt := 0; ; attempt++ {
		got, err := c.lockLocked(ctx, ids)
		if err == nil {
			cl := &claim{from: c, conn: c.conn, ids: got}
			cl.left.Store(int32(len(got)))
			return cl, nil
		}
		// A statement that failed may have taken some of the locks: ending the session is the
		// one sure way to drop them.
		c.dropLocked()
		if attempt > 0 || ctx.Err() != nil {
			return nil, fmt.Errorf("money: claim due accounts: %w", err)
		}
	}
}

func (c *claims) lockLocked(ctx context.Context, ids []string) ([]string, error) {
	if c.conn == nil {
		conn, err := pgx.ConnectConfig(ctx, c.cfg)
		if err != nil {
			return nil, err
		}
		c.conn = conn
	}
	rows, err := c.conn.Query(ctx, `SELECT u FROM unnest($2::text[]) AS u WHERE pg_try_advisory_lock($1, hashtext(u))`,
		maturityLockNamespace, ids)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// done says one of the claim's accounts has been settled (or has failed); after the last, the
// claim's locks are released.
func (cl *claim) done(ctx context.Context) {
	if cl.left.Add(-1) != 0 {
		return
	}
	c := cl.from
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.conn != cl.conn {
		return // that session ended, and its locks with it
	}
	if _, err := c.conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext(u)) FROM unnest($2::text[]) AS u`,
		maturityLockNamespace, cl.ids); err != nil {
		c.dropLocked()
	}
}

// close ends the session, releasing whatever it still holds.
func (c *claims) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked()
}

func (c *claims) dropLocked() {
	if c.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.conn.Close(ctx) // the server ends the session, and drops its locks, either way
	c.conn = nil
}

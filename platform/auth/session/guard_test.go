package session_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/identity"
	"clearvest/platform/auth"
	"clearvest/platform/auth/principal"
	"clearvest/platform/auth/session"
)

// counted marks the contexts whose queries a queryCounter counts, so that the guard's own
// background work (listening, batched writes) on the same pool is left out.
type counted struct{}

type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	if ctx.Value(counted{}) != nil {
		c.n.Add(1)
	}
	return ctx
}

func (c *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// process is another server process on the fixture's database: its own pool (whose queries
// on counted contexts are counted) and its own guard, running.
type process struct {
	guard   *session.Guard
	queries *queryCounter
}

func (f *fixture) process(t *testing.T, opts ...session.GuardOption) *process {
	t.Helper()
	cfg := f.pool.Config()
	p := &process{queries: &queryCounter{}}
	cfg.ConnConfig.Tracer = p.queries
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	p.guard = session.NewGuard(pool, f.clock, opts...)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.guard.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	waitFor(t, "the guard to trust its cache", p.guard.Trusted)
	return p
}

// check runs Check on a counted context and returns how many queries it made.
func (p *process) check(t *testing.T, user, sess uuid.UUID) (principal.Principal, int64, error) {
	t.Helper()
	before := p.queries.n.Load()
	got, err := p.guard.Check(context.WithValue(context.Background(), counted{}, true), user, sess)
	return got, p.queries.n.Load() - before, err
}

func (p *process) sync(t *testing.T) {
	t.Helper()
	if err := p.guard.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls a condition until it holds, failing the test after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGuardHearsEveryChangeFromOtherProcesses: a session checked once is answered from memory;
// every change that takes a right away, written by another process through any path, reaches
// the guard (Sync waits for it without guessing how long), and the next check sees it.
func TestGuardHearsEveryChangeFromOtherProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	b := f.process(t)

	live := func(t *testing.T, role identity.Role) (uuid.UUID, session.Session) {
		t.Helper()
		user := f.user(t, role, identity.StatusActive)
		s, _ := f.create(t, user)
		if _, n, err := b.check(t, user, s.ID); err != nil || n == 0 {
			t.Fatalf("first check: %v after %d queries, want success from the database", err, n)
		}
		if got, n, err := b.check(t, user, s.ID); err != nil || n != 0 || got.Role != role {
			t.Fatalf("second check: %+v, %v after %d queries, want the same answer from memory", got, err, n)
		}
		return user, s
	}

	for _, tc := range []struct {
		name   string
		role   identity.Role
		change func(t *testing.T, user uuid.UUID, s session.Session)
		want   error
		role2  identity.Role // the role a still-valid session has afterwards
	}{
		{name: "sign-out", role: identity.RoleSubscriber, want: session.ErrExpired,
			change: func(t *testing.T, _ uuid.UUID, s session.Session) {
				if err := auth.Exec(ctx, f.pool, f.sessions.RevokeStatement(s.ID, "logout")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "sign-out everywhere", role: identity.RoleSubscriber, want: session.ErrExpired,
			change: func(t *testing.T, user uuid.UUID, _ session.Session) {
				if _, err := f.sessions.RevokeAll(ctx, user, uuid.Nil, "wasnt_me"); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "suspension", role: identity.RoleAuthor, want: identity.ErrSuspended,
			change: func(t *testing.T, user uuid.UUID, _ session.Session) {
				f.setPrincipal(t, user, identity.RoleAuthor, identity.StatusSuspended)
			}},
		{name: "closure", role: identity.RoleSubscriber, want: principal.ErrClosed,
			change: func(t *testing.T, user uuid.UUID, _ session.Session) {
				f.setPrincipal(t, user, identity.RoleSubscriber, identity.StatusClosed)
			}},
		{name: "demotion", role: identity.RoleAdmin, role2: identity.RoleSubscriber,
			change: func(t *testing.T, user uuid.UUID, _ session.Session) {
				f.setPrincipal(t, user, identity.RoleSubscriber, identity.StatusActive)
			}},
		{name: "session row deleted", role: identity.RoleSubscriber, want: session.ErrExpired,
			change: func(t *testing.T, _ uuid.UUID, s session.Session) {
				if _, err := f.pool.Exec(ctx, `DELETE FROM sessions WHERE id = $1`, s.ID); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "principal row deleted", role: identity.RoleSubscriber, want: principal.ErrUnknown,
			change: func(t *testing.T, user uuid.UUID, _ session.Session) {
				if _, err := f.pool.Exec(ctx, `DELETE FROM principals WHERE user_id = $1`, user); err != nil {
					t.Fatal(err)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user, s := live(t, tc.role)
			tc.change(t, user, s)
			b.sync(t)
			got, _, err := b.check(t, user, s.ID)
			if tc.want != nil {
				wantErr(t, "check after "+tc.name, err, tc.want)
				return
			}
			if err != nil || got.Role != tc.role2 {
				t.Fatalf("check after %s: %+v, %v; want role %s", tc.name, got, err, tc.role2)
			}
		})
	}

	t.Run("activity and refresh rotation keep the memory", func(t *testing.T) {
		user, s := live(t, identity.RoleSubscriber)
		_, refresh := f.create(t, user)
		if _, _, err := f.sessions.Refresh(ctx, refresh); err != nil {
			t.Fatal(err)
		}
		if _, err := f.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = last_seen_at + interval '1 second' WHERE id = $1`, s.ID); err != nil {
			t.Fatal(err)
		}
		b.sync(t)
		if _, n, err := b.check(t, user, s.ID); err != nil || n != 0 {
			t.Fatalf("check after activity: %v after %d queries, want an answer from memory", err, n)
		}
	})
}

// TestGuardIdleTimeoutAndBatchedActivity: activity is written after the answer, in a batch,
// yet idle timeouts behave as without the guard.
func TestGuardIdleTimeoutAndBatchedActivity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.process(t)
	admin := f.user(t, identity.RoleAdmin, identity.StatusActive)
	s, _ := f.create(t, admin)
	if _, _, err := b.check(t, admin, s.ID); err != nil {
		t.Fatal(err)
	}

	// A minute on, the check answers from memory and the activity follows in a batch.
	f.clock.Advance(2 * time.Minute)
	if _, n, err := b.check(t, admin, s.ID); err != nil || n != 0 {
		t.Fatalf("check after 2 minutes: %v after %d queries, want an answer from memory", err, n)
	}
	waitFor(t, "the batched last_seen_at", func() bool { return f.lastSeen(t, s.ID).Equal(start.Add(2 * time.Minute)) })

	// Past half the idle timeout the activity is written before the answer: no process may find
	// the session idle while its activity waits in a batch.
	f.clock.Advance(16 * time.Minute)
	if _, n, err := b.check(t, admin, s.ID); err != nil || n != 1 {
		t.Fatalf("check after 16 idle minutes: %v after %d queries, want one write", err, n)
	}
	if got := f.lastSeen(t, s.ID); !got.Equal(f.clock.Now()) {
		t.Fatalf("last_seen_at = %v, want %v written during the check", got, f.clock.Now())
	}

	// Activity seen by another process keeps the session alive though this one remembers it
	// idle.
	f.clock.Advance(20 * time.Minute)
	if _, err := f.sessions.Validate(context.Background(), s.ID, identity.RoleAdmin, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(20 * time.Minute)
	if _, _, err := b.check(t, admin, s.ID); err != nil {
		t.Fatalf("a session active elsewhere 20 minutes ago was refused: %v", err)
	}

	// Idle for longer than the timeout: refused and revoked.
	f.clock.Advance(31 * time.Minute)
	_, _, err := b.check(t, admin, s.ID)
	wantErr(t, "check after 31 idle minutes", err, session.ErrExpired)
	var reason string
	if err := f.pool.QueryRow(context.Background(), `SELECT revoked_reason FROM sessions WHERE id = $1`, s.ID).Scan(&reason); err != nil || reason != session.ReasonIdle {
		t.Errorf("revoked_reason = %q, %v; want %s", reason, err, session.ReasonIdle)
	}
	if _, _, err := b.check(t, admin, s.ID); !errors.Is(err, session.ErrExpired) {
		t.Errorf("an idle-revoked session passed the next check: %v", err)
	}
}

// TestGuardStopsTrustingALostListener: a change the guard cannot hear of never leaves a revoked
// session usable. A listening connection that closes drops the cache at once; one that stops
// answering without closing (a network partition) stops being trusted within the lease.
func TestGuardStopsTrustingALostListener(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	proxy := newProxy(t, f.pool.Config().ConnConfig)
	b := f.process(t, session.WithListenConfig(proxy.config))

	cached := func(t *testing.T) (uuid.UUID, session.Session) {
		t.Helper()
		user := f.user(t, identity.RoleSubscriber, identity.StatusActive)
		s, _ := f.create(t, user)
		for range 2 {
			if _, _, err := b.check(t, user, s.ID); err != nil {
				t.Fatal(err)
			}
		}
		if _, n, _ := b.check(t, user, s.ID); n != 0 {
			t.Fatalf("check made %d queries, want an answer from memory", n)
		}
		return user, s
	}

	t.Run("closed", func(t *testing.T) {
		user, s := cached(t)
		proxy.refuse(true)
		proxy.cut()
		waitFor(t, "the guard to notice its listener is gone", func() bool { return !b.guard.Trusted() })
		if err := auth.Exec(context.Background(), f.pool, f.sessions.RevokeStatement(s.ID, "logout")); err != nil {
			t.Fatal(err)
		}
		_, _, err := b.check(t, user, s.ID)
		wantErr(t, "check while not listening", err, session.ErrExpired)
		proxy.refuse(false)
		waitFor(t, "the guard to listen again", b.guard.Trusted)
		_, _, err = b.check(t, user, s.ID)
		wantErr(t, "check after listening again", err, session.ErrExpired)
	})

	t.Run("sync", func(t *testing.T) {
		user, s := cached(t)
		proxy.freeze(true)
		t.Cleanup(func() { proxy.freeze(false) })
		if err := auth.Exec(context.Background(), f.pool, f.sessions.RevokeStatement(s.ID, "logout")); err != nil {
			t.Fatal(err)
		}
		// The notification cannot arrive, so Sync returns only once the guard gave its memory up.
		b.sync(t)
		_, _, err := b.check(t, user, s.ID)
		wantErr(t, "check after Sync", err, session.ErrExpired)
		proxy.freeze(false)
		waitFor(t, "the guard to listen again", b.guard.Trusted)
	})

	t.Run("silent", func(t *testing.T) {
		user, s := cached(t)
		proxy.freeze(true)
		t.Cleanup(func() { proxy.freeze(false) })
		if err := auth.Exec(context.Background(), f.pool, f.sessions.RevokeStatement(s.ID, "logout")); err != nil {
			t.Fatal(err)
		}
		// The notification is stuck in the frozen connection; the lease runs out instead.
		waitFor(t, "the guard to stop trusting a silent listener", func() bool { return !b.guard.Trusted() })
		_, _, err := b.check(t, user, s.ID)
		wantErr(t, "check with a silent listener", err, session.ErrExpired)
		proxy.freeze(false)
		waitFor(t, "the guard to listen again", b.guard.Trusted)
		_, _, err = b.check(t, user, s.ID)
		wantErr(t, "check after listening again", err, session.ErrExpired)
	})
}

// proxy forwards TCP connections to PostgreSQL, and can cut them, refuse new ones, or freeze
// them (bytes stop flowing, nothing is closed), as a network would.
type proxy struct {
	config *pgconn.Config
	target string

	mu       sync.Mutex
	conns    []net.Conn
	refusing bool
	gate     chan struct{} // closed while traffic flows
}

func newProxy(t *testing.T, cc *pgx.ConnConfig) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &proxy{target: net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))), gate: make(chan struct{})}
	close(p.gate)
	cfg := cc.Config.Copy()
	cfg.Host, cfg.Port, cfg.Fallbacks, cfg.TLSConfig = "127.0.0.1", uint16(ln.Addr().(*net.TCPAddr).Port), nil, nil
	p.config = cfg
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) serve(c net.Conn) {
	p.mu.Lock()
	refusing := p.refusing
	p.mu.Unlock()
	if refusing {
		c.Close()
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, up)
	p.mu.Unlock()
	go p.pipe(up, c)
	go p.pipe(c, up)
}

func (p *proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			gate := p.gate
			p.mu.Unlock()
			<-gate
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) refuse(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refusing = on
}

func (p *proxy) freeze(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.gate: // flowing
		if on {
			p.gate = make(chan struct{})
		}
	default:
		if !on {
			close(p.gate)
		}
	}
}

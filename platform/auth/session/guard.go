package session

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/platform/auth/principal"
)

// Channel is where every change that can take a right away (a principal's role or status, a
// session's revocation or deletion) is announced with the user's id, by triggers on the
// principals and sessions tables (migration 0006), in the writing transaction.
const Channel = "clearvest_auth"

const (
	// cacheMaxAge bounds how long a principal or session is reused without reading it again,
	// whatever the notifications say.
	cacheMaxAge = 30 * time.Second
	// heartbeat is how often the listening connection proves, with a round trip, that it is
	// alive and has delivered everything committed before it.
	heartbeat = time.Second
	// lease is how recent that proof must be for the cache to be used: a connection that dies
	// silently (a network partition sends no reset) can hide notifications for at most this long.
	lease = 3 * time.Second
	// pingTimeout bounds one round trip; a connection slower than that is replaced.
	pingTimeout = 2 * time.Second
	// flushInterval is how often batched activity (last_seen_at) is written.
	flushInterval = time.Second
	// maxCachedUsers bounds the memory the cache takes.
	maxCachedUsers = 100_000
)

// Guard answers, on every authenticated request, whether a session of a user may act: the
// principal row (active, with its current role) and the session row (not revoked, not past its
// absolute life, not idle) exactly as Principals.Get and Store.Validate would, but from memory
// while that is safe.
//
// It is safe while Run is listening on Channel: every change to those rows, made by any
// process, reaches the listener when it commits, and the user's entries are dropped. The cache
// is used only while the listening connection has proved within the lease that it is alive and
// up to date; a lost connection drops everything, and nothing is remembered until a new one
// listens. A read that raced a change is answered but not remembered. Without Run every check
// reads the database, as Validate does.
//
// Activity is recorded as Validate records it (at most once a minute per session), but while
// Run runs it is written in batches once a second instead of during the request; a session
// within half its idle timeout of expiring is still written at once, so that no process ever
// finds it idle while its activity waits in a batch.
type Guard struct {
	sessions     *Store
	principals   *principal.Principals
	clock        clock.Clock
	logger       *slog.Logger
	listenConfig *pgconn.Config

	mu      sync.RWMutex
	users   map[uuid.UUID]*cachedUser
	gen     uint64 // counts invalidations; a read that saw another value is not remembered
	running bool   // Run is running: activity is batched
	// listening: the connection LISTENs and the cache was emptied after it started to.
	listening bool
	// confirmed is when the last round trip on the listening connection that came back began:
	// everything committed before it has been applied.
	confirmed time.Time
	waiters   []chan struct{}    // Sync calls waiting for the next round trip
	interrupt context.CancelFunc // wakes the listener when it waits for a notification
	touches   map[uuid.UUID]time.Time
}

type cachedUser struct {
	principal principal.Principal
	loaded    time.Time
	sessions  map[uuid.UUID]cachedSession
}

type cachedSession struct {
	expiresAt time.Time
	lastSeen  time.Time
	// ended: revoked or idle-revoked. Final, so it is remembered like a live session.
	ended  bool
	loaded time.Time
}

// GuardOption adjusts a Guard.
type GuardOption func(*Guard)

// WithGuardLogger sets where the guard reports a lost listening connection.
func WithGuardLogger(l *slog.Logger) GuardOption { return func(g *Guard) { g.logger = l } }

// WithListenConfig connects the listener with cfg instead of the pool's configuration: for a
// pool that goes through a pooler in transaction mode, which cannot LISTEN, it can name the
// server itself.
func WithListenConfig(cfg *pgconn.Config) GuardOption {
	return func(g *Guard) { g.listenConfig = cfg.Copy() }
}

// NewGuard returns a guard on pool's database; call Run to let it remember.
func NewGuard(pool *pgxpool.Pool, c clock.Clock, opts ...GuardOption) *Guard {
	g := &Guard{
		sessions:   New(pool, c),
		principals: principal.NewPrincipals(pool, c),
		clock:      c,
		logger:     slog.Default(),
		users:      map[uuid.UUID]*cachedUser{},
		touches:    map[uuid.UUID]time.Time{},
	}
	cfg := &pool.Config().ConnConfig.Config
	name := cfg.RuntimeParams["application_name"]
	if name == "" {
		name = "clearvest"
	}
	cfg.RuntimeParams["application_name"] = name + " auth listener"
	g.listenConfig = cfg
	for _, o := range opts {
		o(g)
	}
	return g
}

// Check returns the principal of userID if sessionID is one of their live sessions and they may
// act: identity.ErrSuspended or principal.ErrClosed for a principal that may not,
// principal.ErrUnknown for a user without one, ErrExpired for a session that is unknown,
// someone else's, revoked, past its absolute life or idle (which revokes it).
func (g *Guard) Check(ctx context.Context, userID, sessionID uuid.UUID) (principal.Principal, error) {
	now := g.clock.Now()
	p, s, pOK, sOK := g.cached(userID, sessionID)
	if pOK {
		if err := p.CanAct(); err != nil {
			return principal.Principal{}, err
		}
	}
	if pOK && sOK {
		if s.ended || !now.Before(s.expiresAt) {
			return principal.Principal{}, ErrExpired
		}
		if now.Sub(s.lastSeen) <= IdleTimeout(p.Role) {
			if err := g.touch(ctx, userID, sessionID, s.lastSeen, p.Role, now); err != nil {
				return principal.Principal{}, err
			}
			return p, nil
		}
		// Idle as far as this process knows; the database knows about activity elsewhere.
	}
	return g.load(ctx, userID, sessionID, now)
}

// cached returns what the cache holds for the pair, if it may be used.
func (g *Guard) cached(userID, sessionID uuid.UUID) (p principal.Principal, s cachedSession, pOK, sOK bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if !g.trusted() {
		return p, s, false, false
	}
	u := g.users[userID]
	if u == nil || time.Since(u.loaded) > cacheMaxAge {
		return p, s, false, false
	}
	s, sOK = u.sessions[sessionID]
	return u.principal, s, true, sOK && time.Since(s.loaded) <= cacheMaxAge
}

// Trusted reports whether checks are answered from memory at the moment: Run is listening and
// its connection proved itself within the lease.
func (g *Guard) Trusted() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.trusted()
}

// trusted: the cache may be used. Callers hold mu.
func (g *Guard) trusted() bool {
	return g.listening && time.Since(g.confirmed) < lease
}

// load checks against the database and remembers the outcome.
func (g *Guard) load(ctx context.Context, userID, sessionID uuid.UUID, now time.Time) (principal.Principal, error) {
	g.mu.RLock()
	gen := g.gen
	g.mu.RUnlock()
	p, err := g.principals.Get(ctx, userID)
	if err != nil {
		return principal.Principal{}, err
	}
	if err := p.CanAct(); err != nil {
		g.remember(gen, p, uuid.Nil, cachedSession{})
		return principal.Principal{}, err
	}
	sess, err := g.sessions.get(ctx, sessionID)
	if err != nil {
		return principal.Principal{}, err
	}
	if sess.UserID != userID {
		return principal.Principal{}, ErrExpired
	}
	entry := cachedSession{expiresAt: sess.ExpiresAt, lastSeen: sess.LastSeenAt}
	if err := g.sessions.usable(ctx, g.sessions.db, sess, p.Role, now); err != nil {
		if errors.Is(err, ErrExpired) {
			entry.ended = true
			g.remember(gen, p, sessionID, entry)
		}
		return principal.Principal{}, err
	}
	g.remember(gen, p, sessionID, entry)
	if err := g.touch(ctx, userID, sessionID, sess.LastSeenAt, p.Role, now); err != nil {
		return principal.Principal{}, err
	}
	return p, nil
}

// remember stores what load read, unless the cache is not trusted or a change arrived since the
// read began (gen), which may have been missed by it.
func (g *Guard) remember(gen uint64, p principal.Principal, sessionID uuid.UUID, s cachedSession) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.trusted() || g.gen != gen {
		return
	}
	now := time.Now()
	u := g.users[p.UserID]
	if u == nil {
		if len(g.users) >= maxCachedUsers {
			for id := range g.users { // map order is random: an arbitrary victim
				delete(g.users, id)
				break
			}
		}
		u = &cachedUser{sessions: map[uuid.UUID]cachedSession{}}
		g.users[p.UserID] = u
	}
	u.principal, u.loaded = p, now
	if sessionID != uuid.Nil {
		s.loaded = now
		u.sessions[sessionID] = s
	}
}

// touch records activity when the last record is TouchInterval old: in the next batch while Run
// runs and the session is far from idle, else at once.
func (g *Guard) touch(ctx context.Context, userID, sessionID uuid.UUID, lastSeen time.Time, role identity.Role, now time.Time) error {
	if now.Sub(lastSeen) < TouchInterval {
		return nil
	}
	g.mu.Lock()
	if u := g.users[userID]; u != nil {
		if s, ok := u.sessions[sessionID]; ok && s.lastSeen.Before(now) {
			s.lastSeen = now
			u.sessions[sessionID] = s
		}
	}
	batched := g.running && now.Sub(lastSeen) < IdleTimeout(role)/2
	if batched && g.touches[sessionID].Before(now) {
		g.touches[sessionID] = now
	}
	g.mu.Unlock()
	if batched {
		return nil
	}
	return g.sessions.touch(ctx, sessionID, now)
}

// Sync returns once every change to principals and sessions committed before the call has
// reached the guard (or the cache was dropped). A flow that revoked a session or changed a
// principal calls it before answering, so that this process never answers the next request
// from what it remembered before the change.
func (g *Guard) Sync(ctx context.Context) error {
	g.mu.Lock()
	if !g.listening {
		g.mu.Unlock()
		return nil // nothing remembered is in use
	}
	done := make(chan struct{})
	g.waiters = append(g.waiters, done)
	if g.interrupt != nil {
		g.interrupt()
	}
	g.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// invalidate applies a notification: forget the user it names, or everyone.
func (g *Guard) invalidate(payload string) {
	id, err := uuid.Parse(payload)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gen++
	if err != nil {
		// "*" (a table was truncated), or a payload this version does not know: forget all.
		clear(g.users)
		return
	}
	delete(g.users, id)
}

// forget drops the cache and stops trusting it until a listening connection is confirmed, and
// releases Sync callers, who have nothing left to wait for.
func (g *Guard) forget(listening bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gen++
	clear(g.users)
	g.listening = listening
	g.confirmed = time.Time{}
	for _, w := range g.waiters {
		close(w)
	}
	g.waiters = nil
}

// Run makes the cache usable until ctx ends: it listens for changes (reconnecting when the
// connection is lost, forgetting everything meanwhile), proves the connection alive every
// second, and writes batched activity. It returns when ctx ends, after writing what is pending.
func (g *Guard) Run(ctx context.Context) error {
	g.mu.Lock()
	if g.running {
		g.mu.Unlock()
		return errors.New("session: the guard is already running")
	}
	g.running = true
	g.mu.Unlock()

	listened := make(chan struct{})
	go func() { defer close(listened); g.listen(ctx) }()
	ticker := time.NewTicker(flushInterval)
	defer ticker.Stop()
	sweeper := time.NewTicker(cacheMaxAge)
	defer sweeper.Stop()
	for {
		select {
		case <-ctx.Done():
			<-listened
			g.mu.Lock()
			g.running = false
			g.mu.Unlock()
			g.forget(false)
			// Shutting down: the last batch still deserves to be written.
			flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			g.flush(flushCtx)
			return nil
		case <-ticker.C:
			g.flush(ctx)
		case <-sweeper.C:
			g.sweep()
		}
	}
}

// flush writes the batched activity.
func (g *Guard) flush(ctx context.Context) {
	g.mu.Lock()
	pending := g.touches
	if len(pending) == 0 {
		g.mu.Unlock()
		return
	}
	g.touches = map[uuid.UUID]time.Time{}
	g.mu.Unlock()
	ids := make([]uuid.UUID, 0, len(pending))
	at := make([]time.Time, 0, len(pending))
	for id, t := range pending {
		ids, at = append(ids, id), append(at, t)
	}
	if err := g.sessions.touchMany(ctx, ids, at); err != nil && ctx.Err() == nil {
		// Activity is a hint for the idle timeout; the next request records it again once
		// its entry is reloaded, and a session near its idle limit is always written at once.
		g.logger.Warn("session: recording activity failed", "sessions", len(ids), "err", err)
	}
}

// sweep drops entries too old to be used, so that users who left do not stay in memory.
func (g *Guard) sweep() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for id, u := range g.users {
		if time.Since(u.loaded) > cacheMaxAge {
			delete(g.users, id)
			continue
		}
		for sid, s := range u.sessions {
			if time.Since(s.loaded) > cacheMaxAge {
				delete(u.sessions, sid)
			}
		}
	}
}

// listen keeps a connection listening on Channel, reconnecting with back-off.
func (g *Guard) listen(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for {
		established, err := g.listenOnce(ctx)
		g.forget(false)
		if ctx.Err() != nil {
			return
		}
		if established {
			backoff = 100 * time.Millisecond
		}
		g.logger.Warn("session: lost the change listener; every request reads the database until it is back",
			"err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// listenOnce runs one listening connection until it fails. established reports whether it got
// as far as listening.
func (g *Guard) listenOnce(ctx context.Context) (established bool, err error) {
	cfg := g.listenConfig.Copy()
	// Notifications are applied as they are read, also while a round trip reads its answer:
	// when a round trip comes back, everything committed before it began has been applied.
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { g.invalidate(n.Payload) }
	connectCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgconn.ConnectConfig(connectCtx, cfg)
	cancel()
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(closeCtx) //nolint:errcheck // the connection is being abandoned
	}()
	if err := conn.Exec(ctx, "LISTEN "+Channel).Close(); err != nil {
		return false, err
	}
	// Changes made before the LISTEN were not heard: start from nothing.
	g.forget(true)
	var lastPing time.Time
	for {
		g.mu.Lock()
		due := len(g.waiters) > 0 || time.Since(lastPing) >= heartbeat
		g.mu.Unlock()
		if due {
			if lastPing, err = g.ping(ctx, conn); err != nil {
				return true, err
			}
			continue
		}
		waitCtx, cancel := context.WithTimeout(ctx, heartbeat-time.Since(lastPing))
		g.mu.Lock()
		if len(g.waiters) > 0 {
			g.mu.Unlock()
			cancel()
			continue
		}
		g.interrupt = cancel
		g.mu.Unlock()
		err := conn.WaitForNotification(waitCtx)
		g.mu.Lock()
		g.interrupt = nil
		g.mu.Unlock()
		cancel()
		if ctx.Err() != nil {
			return true, ctx.Err()
		}
		if err != nil && waitCtx.Err() == nil {
			return true, err
		}
	}
}

// ping makes a round trip on the listening connection and returns when it began. On success
// the cache is confirmed up to then and the Sync calls made before it are released.
func (g *Guard) ping(ctx context.Context, conn *pgconn.PgConn) (time.Time, error) {
	g.mu.Lock()
	waiters := g.waiters
	g.waiters = nil
	g.mu.Unlock()
	sent := time.Now()
	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	err := conn.Exec(pingCtx, "SELECT 1").Close()
	cancel()
	g.mu.Lock()
	if err != nil {
		// Released by forget, once the connection is abandoned.
		g.waiters = append(waiters, g.waiters...)
		g.mu.Unlock()
		return sent, err
	}
	g.confirmed = sent
	g.mu.Unlock()
	for _, w := range waiters {
		close(w)
	}
	return sent, nil
}

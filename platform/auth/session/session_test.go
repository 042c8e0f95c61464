package session_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/auth"
	"clearvest/platform/auth/internal/authtest"
	"clearvest/platform/auth/principal"
	"clearvest/platform/auth/session"
)

var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

var browser = session.Device{
	IP:        "203.0.113.7",
	UserAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
	DeviceID:  "dev-1",
}

type fixture struct {
	pool     *pgxpool.Pool
	clock    *clock.Manual
	sessions *session.Store
	ps       *principal.Principals
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	return &fixture{pool: pool, clock: c, sessions: session.New(pool, c), ps: principal.NewPrincipals(pool, c)}
}

// user creates a principal with role and status, as registration would.
func (f *fixture) user(t *testing.T, role identity.Role, status identity.Status) uuid.UUID {
	t.Helper()
	id := uuid.New()
	f.setPrincipal(t, id, role, status)
	return id
}

func (f *fixture) setPrincipal(t *testing.T, id uuid.UUID, role identity.Role, status identity.Status) {
	t.Helper()
	if err := pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
		st, err := f.ps.UpsertStatement(id, role, status)
		if err != nil {
			return err
		}
		return auth.Exec(context.Background(), tx, st)
	}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) create(t *testing.T, user uuid.UUID) (session.Session, string) {
	t.Helper()
	s, refresh, sts := f.sessions.CreateStatements(user, browser)
	if err := auth.Exec(context.Background(), f.pool, sts...); err != nil {
		t.Fatal(err)
	}
	return s, refresh
}

func (f *fixture) lastSeen(t *testing.T, id uuid.UUID) time.Time {
	t.Helper()
	var at time.Time
	if err := f.pool.QueryRow(context.Background(), `SELECT last_seen_at FROM sessions WHERE id = $1`, id).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at.UTC()
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error = %v, want %v", what, err, want)
	}
}

func TestCreateAndValidate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	s, refresh := f.create(t, user)
	if s.UserID != user || s.FamilyID != s.ID || !s.CreatedAt.Equal(start) || !s.ExpiresAt.Equal(start.Add(12*time.Hour)) ||
		s.IP != browser.IP || s.UserAgent != browser.UserAgent || s.DeviceID != "dev-1" || s.Label() != "Chrome on Windows" {
		t.Errorf("Create = %+v", s)
	}
	if len(refresh) != 43 {
		t.Errorf("refresh token %q is not 32 random bytes in base64url", refresh)
	}
	var plaintextStored bool
	if err := f.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE refresh_hash = $1 OR encode(refresh_hash, 'escape') LIKE '%' || $2 || '%')`,
		[]byte(refresh), refresh).Scan(&plaintextStored); err != nil || plaintextStored {
		t.Errorf("the refresh token is stored in plaintext (%v)", err)
	}
	got, err := f.sessions.Validate(ctx, s.ID, identity.RoleSubscriber, f.clock.Now())
	if err != nil || got.ID != s.ID || got.UserID != user {
		t.Fatalf("Validate = %+v, %v", got, err)
	}
	_, err = f.sessions.Validate(ctx, uuid.New(), identity.RoleSubscriber, f.clock.Now())
	wantErr(t, "Validate(unknown)", err, session.ErrExpired)
	if kind, _, _ := domainerr.KindOf(err); kind != domainerr.Unauthenticated {
		t.Errorf("kind = %v", kind)
	}
}

func TestAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	s, refresh := f.create(t, user)
	// Constant use and refreshing keep the session alive, but not beyond 12 hours.
	for f.clock.Now().Before(start.Add(12*time.Hour - 20*time.Minute)) {
		f.clock.Advance(20 * time.Minute)
		if _, err := f.sessions.Validate(ctx, s.ID, identity.RoleSubscriber, f.clock.Now()); err != nil {
			t.Fatalf("at %v: %v", f.clock.Now().Sub(start), err)
		}
		var err error
		if _, refresh, err = f.sessions.Refresh(ctx, refresh); err != nil {
			t.Fatalf("refresh at %v: %v", f.clock.Now().Sub(start), err)
		}
	}
	f.clock.Set(start.Add(12 * time.Hour))
	_, err := f.sessions.Validate(ctx, s.ID, identity.RoleSubscriber, f.clock.Now())
	wantErr(t, "Validate after 12h", err, session.ErrExpired)
	_, _, err = f.sessions.Refresh(ctx, refresh)
	wantErr(t, "Refresh after 12h", err, session.ErrExpired)
}

func TestIdleTimeoutByRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	for _, tc := range []struct {
		role identity.Role
		idle time.Duration
	}{
		{identity.RoleAdmin, 30 * time.Minute},
		{identity.RoleAuthor, 30 * time.Minute},
		{identity.RoleSubscriber, 12 * time.Hour},
	} {
		if got := session.IdleTimeout(tc.role); got != tc.idle {
			t.Errorf("IdleTimeout(%s) = %v, want %v", tc.role, got, tc.idle)
		}
	}

	admin := f.user(t, identity.RoleAdmin, identity.StatusActive)
	sub := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	adminSession, _ := f.create(t, admin)
	subSession, _ := f.create(t, sub)

	f.clock.Advance(29 * time.Minute)
	if _, err := f.sessions.Validate(ctx, adminSession.ID, identity.RoleAdmin, f.clock.Now()); err != nil {
		t.Fatalf("admin after 29 idle minutes: %v", err)
	}
	f.clock.Advance(30*time.Minute + time.Second)
	_, err := f.sessions.Validate(ctx, adminSession.ID, identity.RoleAdmin, f.clock.Now())
	wantErr(t, "admin after 30 idle minutes", err, session.ErrExpired)
	// The idle session is revoked, not just refused: a later demotion does not revive it.
	_, err = f.sessions.Validate(ctx, adminSession.ID, identity.RoleSubscriber, f.clock.Now())
	wantErr(t, "idle admin session validated as subscriber", err, session.ErrExpired)

	f.clock.Set(start.Add(11 * time.Hour))
	if _, err := f.sessions.Validate(ctx, subSession.ID, identity.RoleSubscriber, f.clock.Now()); err != nil {
		t.Errorf("subscriber after 11 idle hours: %v", err)
	}
}

func TestLastSeenIsWrittenAtMostOncePerMinute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := f.user(t, identity.RoleAdmin, identity.StatusActive)
	s, _ := f.create(t, user)

	f.clock.Advance(59 * time.Second)
	if _, err := f.sessions.Validate(ctx, s.ID, identity.RoleAdmin, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if got := f.lastSeen(t, s.ID); !got.Equal(start) {
		t.Errorf("last_seen_at written after 59 s: %v", got)
	}
	f.clock.Advance(time.Second)
	got, err := f.sessions.Validate(ctx, s.ID, identity.RoleAdmin, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if db := f.lastSeen(t, s.ID); !db.Equal(start.Add(time.Minute)) || !got.LastSeenAt.Equal(db) {
		t.Errorf("last_seen_at after a minute: db %v, returned %v", db, got.LastSeenAt)
	}
	// Activity keeps a staff session alive past the idle timeout.
	for range 4 {
		f.clock.Advance(20 * time.Minute)
		if _, err := f.sessions.Validate(ctx, s.ID, identity.RoleAdmin, f.clock.Now()); err != nil {
			t.Fatalf("an active admin session expired: %v", err)
		}
	}
}

func TestRefreshRotates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	s, first := f.create(t, user)

	f.clock.Advance(10 * time.Minute)
	refreshed, second, err := f.sessions.Refresh(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || refreshed.ID != s.ID || !refreshed.ExpiresAt.Equal(s.ExpiresAt) || !refreshed.LastSeenAt.Equal(f.clock.Now()) {
		t.Errorf("Refresh = %+v, new token equal to old: %v", refreshed, second == first)
	}
	if _, third, err := f.sessions.Refresh(ctx, second); err != nil || third == second {
		t.Errorf("refreshing with the new token: %v", err)
	}
	_, _, err = f.sessions.Refresh(ctx, "never-issued")
	wantErr(t, "Refresh(unknown)", err, session.ErrExpired)
}

func TestRefreshReuseRevokesTheFamily(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	other, _ := f.create(t, user) // another device: reuse on one session must not end it
	s, stolen := f.create(t, user)

	_, current, err := f.sessions.Refresh(ctx, stolen) // the legitimate client rotates
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(session.RotationGrace + time.Second)
	_, _, err = f.sessions.Refresh(ctx, stolen) // the thief replays the old token
	wantErr(t, "Refresh(rotated-out token)", err, session.ErrReused)
	if errors.Is(err, session.ErrExpired) {
		t.Error("ErrReused is indistinguishable from ErrExpired")
	}

	_, _, err = f.sessions.Refresh(ctx, current)
	wantErr(t, "Refresh(current token of a revoked family)", err, session.ErrExpired)
	_, err = f.sessions.Validate(ctx, s.ID, identity.RoleSubscriber, f.clock.Now())
	wantErr(t, "Validate(revoked family)", err, session.ErrExpired)
	var reason string
	if err := f.pool.QueryRow(ctx, `SELECT revoked_reason FROM sessions WHERE id = $1`, s.ID).Scan(&reason); err != nil || reason != session.ReasonRefreshReuse {
		t.Errorf("revoked_reason = %q, %v", reason, err)
	}
	if _, err := f.sessions.Validate(ctx, other.ID, identity.RoleSubscriber, f.clock.Now()); err != nil {
		t.Errorf("reuse on one session ended another: %v", err)
	}
}

// TestRefreshRaceWithinGraceRevokesNothing makes several tabs refresh with one token at the same
// instant. The test holds the session row locked until every refresh is waiting on a lock, so
// they genuinely overlap: exactly one may rotate, the others get ErrRaced, and nothing is
// revoked.
func TestRefreshRaceWithinGraceRevokesNothing(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := newFixture(t)
	cfg := f.pool.Config()
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	sessions := session.New(pool, f.clock)
	user := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	s, token := f.create(t, user)

	gate, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gate.Exec(ctx, `SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE`, s.ID); err != nil {
		t.Fatal(err)
	}

	const tabs = 6
	var wg sync.WaitGroup
	results := make(chan error, tabs)
	fresh := make(chan string, tabs)
	for range tabs {
		wg.Go(func() {
			_, next, err := sessions.Refresh(ctx, token)
			results <- err
			if err == nil {
				fresh <- next
			}
		})
	}
	for {
		var waiting int
		if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatalf("waiting for the refreshes to block: %v", err)
		}
		if waiting == tabs {
			break
		}
	}
	if err := gate.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(results)
	close(fresh)
	ok := 0
	for err := range results {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, session.ErrRaced):
		default:
			t.Errorf("concurrent refresh: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d concurrent refreshes with one token succeeded, want exactly 1", ok, tabs)
	}
	if _, err := f.sessions.Validate(ctx, s.ID, identity.RoleSubscriber, f.clock.Now()); err != nil {
		t.Errorf("a refresh race revoked the session: %v", err)
	}
	if _, _, err := f.sessions.Refresh(ctx, <-fresh); err != nil {
		t.Errorf("the winner's token does not refresh: %v", err)
	}
	if kind, _, _ := domainerr.KindOf(session.ErrRaced); kind != domainerr.Conflict {
		t.Errorf("ErrRaced kind = %v", kind)
	}
}

func TestRefreshChecksThePrincipal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)

	admin := f.user(t, identity.RoleAdmin, identity.StatusActive)
	_, adminToken := f.create(t, admin)
	f.clock.Advance(31 * time.Minute)
	_, _, err := f.sessions.Refresh(ctx, adminToken)
	wantErr(t, "Refresh of an idle admin session", err, session.ErrExpired)

	sub := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	_, subToken := f.create(t, sub)
	f.setPrincipal(t, sub, identity.RoleSubscriber, identity.StatusSuspended)
	_, _, err = f.sessions.Refresh(ctx, subToken)
	wantErr(t, "Refresh by a suspended user", err, identity.ErrSuspended)

	ghost := uuid.New() // no principal row at all
	_, ghostToken := f.create(t, ghost)
	_, _, err = f.sessions.Refresh(ctx, ghostToken)
	wantErr(t, "Refresh without a principal", err, session.ErrExpired)
}

func TestRevokeAndList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	alice := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	bob := f.user(t, identity.RoleSubscriber, identity.StatusActive)

	a1, _ := f.create(t, alice)
	f.clock.Advance(2 * time.Minute)
	a2, _ := f.create(t, alice)
	f.clock.Advance(2 * time.Minute)
	a3, _ := f.create(t, alice)
	b1, _ := f.create(t, bob)
	f.clock.Advance(2 * time.Minute)
	if _, err := f.sessions.Validate(ctx, a1.ID, identity.RoleSubscriber, f.clock.Now()); err != nil {
		t.Fatal(err)
	}

	list, err := f.sessions.List(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if ids := ids(list); len(ids) != 3 || ids[0] != a1.ID || ids[1] != a3.ID || ids[2] != a2.ID {
		t.Errorf("List order = %v, want a1 (just used), a3, a2", ids)
	}

	wantErr(t, "RevokeOwn(bob's session)", f.sessions.RevokeOwn(ctx, alice, b1.ID, "user"), session.ErrNotFound)
	if _, err := f.sessions.Validate(ctx, b1.ID, identity.RoleSubscriber, f.clock.Now()); err != nil {
		t.Errorf("alice revoked bob's session: %v", err)
	}
	if err := f.sessions.RevokeOwn(ctx, alice, a2.ID, "user"); err != nil {
		t.Fatal(err)
	}
	if n, err := f.sessions.RevokeAll(ctx, alice, a1.ID, "password_changed"); err != nil || n != 1 {
		t.Errorf("RevokeAll except the current = %d, %v; want 1 (a3)", n, err)
	}
	if list, _ := f.sessions.List(ctx, alice); len(list) != 1 || list[0].ID != a1.ID {
		t.Errorf("after revocations List = %v, want only a1", ids(list))
	}
	if err := auth.Exec(ctx, f.pool, f.sessions.RevokeStatement(a1.ID, "logout")); err != nil {
		t.Fatal(err)
	}
	_, err = f.sessions.Validate(ctx, a1.ID, identity.RoleSubscriber, f.clock.Now())
	wantErr(t, "Validate after logout", err, session.ErrExpired)
	if n, err := f.sessions.RevokeAll(ctx, bob, uuid.Nil, "suspended"); err != nil || n != 1 {
		t.Errorf("RevokeAll(all) = %d, %v", n, err)
	}
	if list, _ := f.sessions.List(ctx, bob); len(list) != 0 {
		t.Errorf("bob still has %d sessions", len(list))
	}
}

func TestOldSessionsArePrunedOnSignIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	old, oldToken := f.create(t, user)
	if _, _, err := f.sessions.Refresh(ctx, oldToken); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(12*time.Hour + 31*24*time.Hour)
	f.create(t, user)
	var n int
	if err := f.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sessions WHERE id = $1) + (SELECT count(*) FROM session_rotated_tokens WHERE session_id = $1)`, old.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("a session dead for a month left %d rows (%v)", n, err)
	}
}

func ids(list []session.Session) []uuid.UUID {
	out := make([]uuid.UUID, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

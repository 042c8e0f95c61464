package principal_test

import (
	"context"
	"errors"
	"strings"
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
)

var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func inTx(t *testing.T, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	t.Helper()
	return pgx.BeginFunc(context.Background(), pool, fn)
}

// upsert records a principal through tx, as a flow's round trip does with UpsertStatement.
func upsert(tx pgx.Tx, ps *principal.Principals, user uuid.UUID, role identity.Role, status identity.Status) error {
	st, err := ps.UpsertStatement(user, role, status)
	if err != nil {
		return err
	}
	return auth.Exec(context.Background(), tx, st)
}

func TestPrincipals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	ps := principal.NewPrincipals(pool, c)
	user := uuid.New()

	if _, err := ps.Get(ctx, user); !errors.Is(err, principal.ErrUnknown) {
		t.Fatalf("Get(unknown) = %v, want ErrUnknown", err)
	}

	// A rolled-back transaction leaves nothing behind: the statement writes in the caller's tx.
	rollback := errors.New("rollback")
	err := inTx(t, pool, func(tx pgx.Tx) error {
		if err := upsert(tx, ps, user, identity.RoleSubscriber, identity.StatusActive); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if _, err := ps.Get(ctx, user); !errors.Is(err, principal.ErrUnknown) {
		t.Fatalf("a rolled-back Upsert is visible: %v", err)
	}

	if err := inTx(t, pool, func(tx pgx.Tx) error {
		return upsert(tx, ps, user, identity.RoleSubscriber, identity.StatusActive)
	}); err != nil {
		t.Fatal(err)
	}
	p, err := ps.Get(ctx, user)
	if err != nil || p.Role != identity.RoleSubscriber || p.Status != identity.StatusActive || !p.UpdatedAt.Equal(start) {
		t.Fatalf("Get = %+v, %v", p, err)
	}
	if p.CanAct() != nil {
		t.Errorf("an active principal cannot act: %v", p.CanAct())
	}

	c.Advance(time.Hour)
	if err := inTx(t, pool, func(tx pgx.Tx) error {
		return upsert(tx, ps, user, identity.RoleAdmin, identity.StatusSuspended)
	}); err != nil {
		t.Fatal(err)
	}
	p, _ = ps.Get(ctx, user)
	if p.Role != identity.RoleAdmin || p.Status != identity.StatusSuspended || !p.UpdatedAt.Equal(start.Add(time.Hour)) {
		t.Errorf("after the change Get = %+v", p)
	}
	err = p.CanAct()
	kind, msg, _ := domainerr.KindOf(err)
	if !errors.Is(err, identity.ErrSuspended) || kind != domainerr.Forbidden || !strings.Contains(msg, "suspended") {
		t.Errorf("suspended CanAct = %v (kind %v)", err, kind)
	}
	if !errors.Is(principal.Principal{Status: identity.StatusClosed}.CanAct(), principal.ErrClosed) {
		t.Error("a closed principal can act")
	}
}

func TestUpsertRefusesUnknownValues(t *testing.T) {
	t.Parallel()
	pool := authtest.NewDB(t)
	ps := principal.NewPrincipals(pool, clock.System())
	for _, tc := range []struct {
		role   identity.Role
		status identity.Status
	}{{"superuser", identity.StatusActive}, {identity.RoleAdmin, "banned"}, {"", ""}} {
		err := inTx(t, pool, func(tx pgx.Tx) error { return upsert(tx, ps, uuid.New(), tc.role, tc.status) })
		if err == nil {
			t.Errorf("Upsert(role %q, status %q) succeeded", tc.role, tc.status)
		}
	}
}

func TestEmails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	emails := principal.NewEmails(pool)
	alice, mallory := uuid.New(), uuid.New()

	if err := inTx(t, pool, func(tx pgx.Tx) error { return emails.Reserve(ctx, tx, " Alice@Example.com ", alice) }); err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{"alice@example.com", "ALICE@EXAMPLE.COM", "  alice@example.COM"} {
		id, ok, err := emails.Lookup(ctx, form)
		if err != nil || !ok || id != alice {
			t.Errorf("Lookup(%q) = %v, %v, %v", form, id, ok, err)
		}
	}
	if _, ok, err := emails.Lookup(ctx, "bob@example.com"); ok || err != nil {
		t.Errorf("Lookup(unknown) = %v, %v", ok, err)
	}

	// Someone else's address is refused, and the caller's transaction stays usable: the
	// registration handler turns the error into a 409 and rolls back on its own terms.
	err := inTx(t, pool, func(tx pgx.Tx) error {
		err := emails.Reserve(ctx, tx, "ALICE@example.com", mallory)
		if !errors.Is(err, principal.ErrEmailTaken) {
			t.Errorf("Reserve(taken) = %v, want ErrEmailTaken", err)
		}
		if kind, msg, _ := domainerr.KindOf(err); kind != domainerr.Conflict || msg != "Email already in use" {
			t.Errorf("Reserve(taken) kind %v message %q", kind, msg)
		}
		_, err = tx.Exec(ctx, `SELECT 1`)
		return err
	})
	if err != nil {
		t.Fatalf("the transaction was aborted by a refused reservation: %v", err)
	}
	// Reserving what one already holds is harmless.
	if err := inTx(t, pool, func(tx pgx.Tx) error { return emails.Reserve(ctx, tx, "alice@example.com", alice) }); err != nil {
		t.Errorf("re-reserving one's own address: %v", err)
	}

	// Release frees the address for others, but only the holder's release counts.
	if err := inTx(t, pool, func(tx pgx.Tx) error { return emails.Release(ctx, tx, "alice@example.com", mallory) }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := emails.Lookup(ctx, "alice@example.com"); !ok {
		t.Error("another user's Release freed the address")
	}
	if err := inTx(t, pool, func(tx pgx.Tx) error { return emails.Release(ctx, tx, "Alice@example.com", alice) }); err != nil {
		t.Fatal(err)
	}
	if err := inTx(t, pool, func(tx pgx.Tx) error { return emails.Reserve(ctx, tx, "alice@example.com", mallory) }); err != nil {
		t.Errorf("reserving a released address: %v", err)
	}
}

// TestConcurrentRegistrations races two sign-ups with one address: exactly one may win, whatever
// the interleaving.
func TestConcurrentRegistrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	emails := principal.NewEmails(pool)

	for _, iso := range []pgx.TxIsoLevel{pgx.ReadCommitted, pgx.RepeatableRead} {
		email := "race-" + string(iso[:4]) + "@example.com"
		first, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: iso})
		if err != nil {
			t.Fatal(err)
		}
		second, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: iso})
		if err != nil {
			t.Fatal(err)
		}
		// The second transaction takes its snapshot before the first commits.
		if _, err := second.Exec(ctx, `SELECT count(*) FROM user_emails`); err != nil {
			t.Fatal(err)
		}
		if err := emails.Reserve(ctx, first, email, uuid.New()); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- emails.Reserve(ctx, second, email, uuid.New()) }()
		if err := first.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		err = <-done
		_ = second.Rollback(ctx)
		// Under REPEATABLE READ PostgreSQL may instead report a serialization failure, which the
		// caller retries; what must never happen is a second successful claim.
		if err == nil {
			t.Errorf("%s: two transactions reserved %s", iso, email)
		}
		if iso == pgx.ReadCommitted && !errors.Is(err, principal.ErrEmailTaken) {
			t.Errorf("read committed: the losing registration got %v, want ErrEmailTaken", err)
		}
	}
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	creds := principal.NewCredentials(pool, c)
	user := uuid.New()

	if _, ok, err := creds.Get(ctx, user); ok || err != nil {
		t.Fatalf("Get(no password) = %v, %v", ok, err)
	}
	const h1 = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"
	if err := inTx(t, pool, func(tx pgx.Tx) error { return creds.Set(ctx, tx, user, h1) }); err != nil {
		t.Fatal(err)
	}
	got, ok, err := creds.Get(ctx, user)
	if err != nil || !ok || got.Hash != h1 || !got.ChangedAt.Equal(start) {
		t.Fatalf("Get = %+v, %v, %v", got, ok, err)
	}
	c.Advance(time.Minute)
	h2 := strings.Replace(h1, "t=2", "t=3", 1)
	if err := creds.Set(ctx, pool, user, h2); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := creds.Get(ctx, user); got.Hash != h2 || !got.ChangedAt.Equal(start.Add(time.Minute)) {
		t.Errorf("after a rehash Get = %+v", got)
	}
	if err := creds.Set(ctx, pool, user, "hunter2"); err == nil {
		t.Error("Set stored a plaintext password")
	}
	if err := auth.Exec(ctx, pool, principal.DeleteCredentialStatement(user)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := creds.Get(ctx, user); ok {
		t.Error("Delete left the password")
	}
}

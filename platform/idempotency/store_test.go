package idempotency_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	keys "clearvest/platform/idempotency"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// TestStoringTheAnswerUpdatesTheRowInPlace checks that the claim records the owner and that
// storing the answer is a HOT update (the row's new version stays on its page and no index
// changes), the cheap write every idempotent request ends with.
func TestStoringTheAnswerUpdatesTheRowInPlace(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1 // the statistics read below must come from the backend that wrote
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := migratedStore(t, pool)
	owner := uuid.New()
	const n = 20
	for i := range n {
		c, res, err := s.Begin(ctx, "user "+owner.String(), uuid.NewString(), []byte{byte(i)}, owner)
		if err != nil || res != nil {
			t.Fatalf("claim: %v, %v", res, err)
		}
		var recorded uuid.UUID
		if err := pool.QueryRow(ctx, `SELECT owner FROM idempotency_keys WHERE response IS NULL`).Scan(&recorded); err != nil || recorded != owner {
			t.Fatalf("owner of the claim: %v, %v; want %v", recorded, err, owner)
		}
		body := bytes.Repeat([]byte("x"), 400)
		if err := s.Complete(ctx, c, keys.Response{Status: http.StatusOK, Header: http.Header{}, Body: body}, owner); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	var updates, hot int64
	if err := pool.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'idempotency_keys'`).Scan(&updates, &hot); err != nil {
		t.Fatal(err)
	}
	if updates != n || hot != n {
		t.Errorf("%d of %d answers stored in place, want all %d", hot, updates, n)
	}
}

// TestForgettingAUserKeepsTheirRunningRequests checks that closing an account deletes the
// answers stored about the user but not the claim of a request still running, whose answer is
// then stored and repeated as it would have been before claims recorded their owner.
func TestForgettingAUserKeepsTheirRunningRequests(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := migratedStore(t, pool)
	owner := uuid.New()
	scope := "user " + owner.String()
	answer := keys.Response{Status: http.StatusOK, Header: http.Header{}, Body: []byte(`{"ok":true}`)}
	done, _, err := s.Begin(ctx, scope, "done", []byte("a"), owner)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, done, answer, owner); err != nil {
		t.Fatal(err)
	}
	running, _, err := s.Begin(ctx, scope, "running", []byte("b"), owner)
	if err != nil {
		t.Fatal(err)
	}
	forget, args := keys.ForgetStatement(owner)
	if _, err := pool.Exec(ctx, forget, args...); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, running, answer, owner); err != nil {
		t.Fatal(err)
	}
	if c, res, err := s.Begin(ctx, scope, "running", []byte("b"), owner); err != nil || c != nil || res == nil || string(res.Body) != `{"ok":true}` {
		t.Errorf("the request running during the erasure: claim %v, answer %v, %v; want its answer repeated", c, res, err)
	}
	if c, res, err := s.Begin(ctx, scope, "done", []byte("a"), owner); err != nil || c == nil || res != nil {
		t.Errorf("the answer stored before the erasure: claim %v, answer %v, %v; want it gone (a fresh claim)", c, res, err)
	}
}

// migratedStore is a store on pool, with the idempotency table created.
func migratedStore(t *testing.T, pool *pgxpool.Pool) *keys.Store {
	t.Helper()
	if err := pgmigrate.Apply(context.Background(), pool, keys.Migrations); err != nil {
		t.Fatal(err)
	}
	s, err := keys.NewStore(pool, bytes.Repeat([]byte{7}, 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

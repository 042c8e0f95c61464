package idempotency_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/api/idempotency"
	keys "clearvest/platform/idempotency"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

func newStore(t *testing.T) (*idempotency.Store, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, keys.Migrations); err != nil {
		t.Fatal(err)
	}
	s, err := keys.NewStore(pool, bytes.Repeat([]byte{7}, 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, pool
}

// server serves handler behind the middleware, every request in one scope.
func server(t *testing.T, s *idempotency.Store, handler http.HandlerFunc) *httptest.Server {
	t.Helper()
	mw := idempotency.Middleware(s, func(*http.Request) (string, uuid.UUID) { return "user test", uuid.Nil }, func(*http.Request) idempotency.Mode { return idempotency.Ahead })
	srv := httptest.NewServer(mw(handler))
	t.Cleanup(srv.Close)
	return srv
}

type answer struct {
	status int
	header http.Header
	body   string
}

func post(t *testing.T, srv *httptest.Server, key, body string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/things", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(idempotency.HeaderKey, key)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

// A failure that is the server's fault is not an answer to keep: the key is released and a
// retry runs again. A client error is kept like any other answer.
func TestServerFailuresReleaseTheKey(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	var calls atomic.Int32
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			http.Error(w, "database down", http.StatusInternalServerError)
		case 2:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case 3:
			http.Error(w, "no such thing", http.StatusNotFound)
		default:
			t.Error("a kept answer ran again")
		}
	})
	if a := post(t, srv, "k1", `{}`); a.status != http.StatusInternalServerError {
		t.Fatalf("first: %d", a.status)
	}
	if a := post(t, srv, "k1", `{}`); a.status != http.StatusTooManyRequests || a.header.Get(idempotency.HeaderHit) != "" {
		t.Fatalf("after a 500 the retry was not run: %d %v", a.status, a.header)
	}
	if a := post(t, srv, "k1", `{}`); a.status != http.StatusNotFound {
		t.Fatalf("after a 429 the retry was not run: %d", a.status)
	}
	a := post(t, srv, "k1", `{}`)
	if a.status != http.StatusNotFound || a.header.Get(idempotency.HeaderHit) != "true" || a.body != "no such thing\n" {
		t.Fatalf("the 404 was not kept: %d %v %q", a.status, a.header, a.body)
	}
	if calls.Load() != 3 {
		t.Errorf("handler ran %d times, want 3", calls.Load())
	}
}

// A panicking handler is a server failure too.
func TestAPanicReleasesTheKey(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	mw := idempotency.Middleware(s, func(*http.Request) (string, uuid.UUID) { return "user test", uuid.Nil }, func(*http.Request) idempotency.Mode { return idempotency.Ahead })
	h := mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	req := httptest.NewRequest(http.MethodPost, "/things", strings.NewReader(`{}`))
	req.Header.Set(idempotency.HeaderKey, "k-panic")
	func() {
		defer func() { _ = recover() }()
		h.ServeHTTP(httptest.NewRecorder(), req)
	}()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM idempotency_keys`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d keys held after a panic, want 0", n)
	}
}

// Keys are remembered for a day: after that the same key is a new request, and the sweep
// removes what expired.
func TestExpiredKeysAreNewAndSwept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	var calls atomic.Int32
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusCreated)
	})
	post(t, srv, "old", `{"a":1}`)
	post(t, srv, "kept", `{"a":1}`)
	if _, err := pool.Exec(ctx, `UPDATE idempotency_keys SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	// An expired key may even come with another request.
	if a := post(t, srv, "old", `{"a":2}`); a.status != http.StatusCreated || a.header.Get(idempotency.HeaderHit) != "" || calls.Load() != 3 {
		t.Fatalf("an expired key was not treated as new: %d %v, %d calls", a.status, a.header, calls.Load())
	}
	n, err := s.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want the one expired key", n, err)
	}
	if a := post(t, srv, "old", `{"a":2}`); a.header.Get(idempotency.HeaderHit) != "true" {
		t.Errorf("the renewed key was swept")
	}
}

// A key must be something a client could have generated on purpose.
func TestMalformedKeysAreRefused(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) { t.Error("handler ran for a malformed key") })
	for _, key := range []string{strings.Repeat("k", 256), "two words", "tab\tkey"} {
		a := post(t, srv, key, `{}`)
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, "Idempotency-Key") {
			t.Errorf("key %q: %d %s", key, a.status, a.body)
		}
	}
}

// Stored answers are sealed: a copy of the table does not reveal them.
func TestStoredAnswersAreSealed(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "secret-session-token"})
		_, _ = io.WriteString(w, `{"token":"secret-access-token"}`)
	})
	first := post(t, srv, "k", `{}`)
	var raw []byte
	if err := pool.QueryRow(context.Background(), `SELECT response FROM idempotency_keys`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("secret")) {
		t.Fatal("the stored response holds the tokens in plaintext")
	}
	again := post(t, srv, "k", `{}`)
	if again.body != first.body || again.header.Get("Set-Cookie") != first.header.Get("Set-Cookie") {
		t.Errorf("replay = %q %q, want %q %q", again.body, again.header.Get("Set-Cookie"), first.body, first.header.Get("Set-Cookie"))
	}
}

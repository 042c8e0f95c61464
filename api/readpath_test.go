package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/platform/pgtest"
)

// queryCounter counts the queries made while serving requests. The server's base context
// carries a mark that the pool's tracer looks for, so background work on the same pool
// (projection runners, listeners, the mail sender) is not counted.
type queryCounter struct {
	n    atomic.Int64
	last atomic.Value // string: the SQL of the latest counted query
	// auth counts the counted queries that read or write principals or sessions.
	auth atomic.Int64
}

type countedKey struct{}

func (c *queryCounter) count(ctx context.Context, sql string) {
	if ctx.Value(countedKey{}) == nil {
		return
	}
	c.n.Add(1)
	c.last.Store(sql)
	if strings.Contains(sql, "principals") || strings.Contains(sql, "sessions") {
		c.auth.Add(1)
	}
}

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	c.count(ctx, data.SQL)
	return ctx
}

func (c *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *queryCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (c *queryCounter) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	c.count(ctx, data.SQL)
}

func (c *queryCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// serveCounted serves env's accounts like serve does, marking request contexts for counter.
// It logs as serve does, JSON lines to a file, so that benchmarks pay for the access log.
func serveCounted(t testing.TB, env *accountstest.Env) *app {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	srv := httptest.NewUnstartedServer(api.New(api.Deps{
		Logger:         slog.New(slog.NewJSONHandler(logFile, nil)),
		Accounts:       env.Accounts,
		PublicURL:      accountstest.PublicURL,
		MailboxDir:     env.MailDir,
		ReadYourWrites: env.Runner,
		Content:        shippedContent(t),
	}))
	srv.Config.BaseContext = func(net.Listener) context.Context {
		return context.WithValue(context.Background(), countedKey{}, true)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return &app{Env: env, srv: srv}
}

// registerForToken signs a new user up through the API, as a new API client would, and returns
// the bearer token and the user's id.
func registerForToken(t testing.TB, a *app, email string) (token, id string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"name": "Ada Lovelace", "email": email, "password": testPassword, "confirmPassword": testPassword,
		"phone": "+44 20 7946 0018", "country": "United Kingdom", "acceptTerms": true,
	})
	res, err := http.Post(a.srv.URL+"/api/users/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var u struct {
		ID    string `json:"_id"`
		Token string `json:"token"`
	}
	if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &u) != nil || u.Token == "" {
		t.Fatalf("register: status %d, body %s", res.StatusCode, b)
	}
	return u.Token, u.ID
}

func getUserStatus(t testing.TB, client *http.Client, a *app, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.srv.URL+"/api/users/getUser", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// BenchmarkGetUser is the signed-in read path in process: GET /api/users/getUser with a bearer
// token over loopback HTTP, closed loop, with the CPU it costs this process (server and client)
// and PostgreSQL, and the queries each request makes. docs/benchmarks.md has the open-loop
// comparison with a bare handler, which runs the real binary.
func BenchmarkGetUser(b *testing.B) {
	var counter queryCounter
	env := accountstest.New(b, accountstest.WithQueryTracer(&counter))
	a := serveCounted(b, env)
	token, _ := registerForToken(b, a, "ada@example.com")
	env.CatchUp(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.Cleanup(client.CloseIdleConnections)
	if got := getUserStatus(b, client, a, token); got != http.StatusOK {
		b.Fatalf("getUser: %d", got)
	}

	b.Run("impl=clearvest", func(b *testing.B) {
		meter := pgtest.NewCPUMeter(env.Pool)
		before := counter.n.Load()
		b.ResetTimer()
		meter.Start()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if got := getUserStatus(b, client, a, token); got != http.StatusOK {
					b.Errorf("getUser: %d", got)
					return
				}
			}
		})
		meter.Report(b, float64(b.N), "us/op")
		b.ReportMetric(float64(counter.n.Load()-before)/float64(b.N), "queries/op")
	})
}

// TestSignedInReadIsOneQuery: once a session has been checked, GET /api/users/getUser costs
// one indexed read of the users read model and nothing else: the session and principal come
// from memory and the user's stream is not replayed.
func TestSignedInReadIsOneQuery(t *testing.T) {
	t.Parallel()
	var counter queryCounter
	env := accountstest.New(t, accountstest.WithQueryTracer(&counter))
	a := serveCounted(t, env)
	token, _ := registerForToken(t, a, "ada@example.com")
	env.CatchUp(t)
	client := &http.Client{}
	if got := getUserStatus(t, client, a, token); got != http.StatusOK {
		t.Fatalf("getUser: %d", got)
	}
	for range 3 {
		before := counter.n.Load()
		if got := getUserStatus(t, client, a, token); got != http.StatusOK {
			t.Fatalf("getUser: %d", got)
		}
		if n := counter.n.Load() - before; n != 1 {
			t.Fatalf("a signed-in getUser made %d queries, want 1", n)
		}
		if q, _ := counter.last.Load().(string); !strings.Contains(q, "FROM rm_users.users") {
			t.Fatalf("a signed-in getUser read %q, want the users read model", q)
		}
	}
}

// TestDashboardReadIsOneQuery: with the money service, the signed-in read carries the user's
// figures from the books and still costs one query: the figures are joined to the users row.
func TestDashboardReadIsOneQuery(t *testing.T) {
	t.Parallel()
	var counter queryCounter
	a := newMoneyApp(t, accountstest.WithQueryTracer(&counter))
	_, investor := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	ivy := a.apiClient(t, investor.Token)
	d := createUSDT(t, ivy, "100", "")
	staff.position = ivy.position
	expect(t, staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "99.50"}), http.StatusOK)
	ivy.position = staff.position
	expect(t, ivy.do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
	for range 3 {
		before := counter.n.Load()
		res := ivy.do(http.MethodGet, "/api/users/getUser", nil)
		expect(t, res, http.StatusOK)
		if n := counter.n.Load() - before; n != 1 {
			t.Fatalf("a signed-in getUser with money made %d queries, want 1", n)
		}
		if q, _ := counter.last.Load().(string); !strings.Contains(q, "FROM rm_users.users") || !strings.Contains(q, "rm_ledger.figures") {
			t.Fatalf("a signed-in getUser read %q, want the users row joined to the figures", q)
		}
		if b := decodeJSON[balancesJSON](t, res); b.Balance != "99.50" || b.InvestmentBalance != "0.00" || b.Fees != "0.00" || b.HasFees {
			t.Fatalf("figures: %+v", b)
		}
	}
	// A user with no money event reads zeros through the same join.
	_, oscar := a.member(t, "oscar@example.com", "subscriber")
	res := a.apiClient(t, oscar.Token).do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusOK)
	if b := decodeJSON[balancesJSON](t, res); b.Balance != "0.00" || b.TotalMaturityAmount != "0.00" {
		t.Fatalf("figures without money events: %+v", b)
	}
}

// TestRevocationReachesOtherInstances runs two server instances on one database, each with its
// own memory of sessions. Whatever ends a session or lowers a right through instance A is
// refused by instance B on the next request once B has heard of it: the test waits for that
// with SyncSessions (every change committed before the call has reached B), not for a time.
func TestRevocationReachesOtherInstances(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	var counter queryCounter
	b := serveCounted(t, a.SecondProcess(t, accountstest.WithQueryTracer(&counter)))
	_, admin := a.member(t, "admin@example.com", "admin")
	onA := a.apiClient(t, admin.Token)

	// signedIn returns a member's token after B has answered with it once, and checks that B
	// now checks it from memory (no query of principals or sessions).
	signedIn := func(t *testing.T, email, role string) (*client, userJSON) {
		t.Helper()
		browser, u := a.member(t, email, role)
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
		before := counter.auth.Load()
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
		if n := counter.auth.Load() - before; n != 0 {
			t.Fatalf("instance B read principals or sessions %d times for a known session, want none", n)
		}
		return browser, u
	}
	heard := func(t *testing.T) {
		t.Helper()
		if err := b.Accounts.SyncSessions(context.Background()); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("sign-out", func(t *testing.T) {
		_, u := signedIn(t, "leaver@example.com", "subscriber")
		expect(t, a.apiClient(t, u.Token).do(http.MethodGet, "/api/users/logout", nil), http.StatusOK)
		heard(t)
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	})

	t.Run("suspension", func(t *testing.T) {
		_, u := signedIn(t, "rogue@example.com", "subscriber")
		expect(t, onA.do(http.MethodPost, "/api/users/suspend/"+u.ID, map[string]string{"reason": "chargebacks"}), http.StatusOK)
		heard(t)
		res := b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUser", nil)
		expect(t, res, http.StatusForbidden)
		if e := decodeError(t, res); e.Code != "suspended" {
			t.Errorf("got %+v, want the suspended refusal", e)
		}
	})

	t.Run("demotion", func(t *testing.T) {
		_, u := signedIn(t, "editor@example.com", "author")
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUsers", nil), http.StatusOK)
		expect(t, onA.do(http.MethodPost, "/api/users/upgradeUser", map[string]string{"id": u.ID, "role": "subscriber"}), http.StatusOK)
		heard(t)
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUsers", nil), http.StatusForbidden)
	})

	t.Run("closure", func(t *testing.T) {
		_, u := signedIn(t, "gone@example.com", "subscriber")
		expect(t, onA.do(http.MethodDelete, "/api/users/"+u.ID, nil), http.StatusOK)
		heard(t)
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	})

	t.Run("password change ends the other sessions", func(t *testing.T) {
		browser, u := signedIn(t, "mover@example.com", "subscriber")
		// A second sign-in from the same (now trusted) browser is a second session.
		second := decodeUser(t, browser.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword}))
		expect(t, a.apiClient(t, second.Token).do(http.MethodPatch, "/api/users/changePassword", map[string]string{
			"oldPassword": testPassword, "password": "new-harbour-lantern-43", "confirmPassword": "new-harbour-lantern-43",
		}), http.StatusOK)
		heard(t)
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	})

	t.Run("ending the other sessions", func(t *testing.T) {
		browser, u := signedIn(t, "tidy@example.com", "subscriber")
		second := decodeUser(t, browser.do(http.MethodPost, "/api/users/login", map[string]string{"email": u.Email, "password": testPassword}))
		expect(t, a.apiClient(t, second.Token).do(http.MethodPost, "/api/users/sessions/revoke-others", nil), http.StatusOK)
		heard(t)
		expect(t, b.apiClient(t, u.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
		expect(t, b.apiClient(t, second.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)
	})
}

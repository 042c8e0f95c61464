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
type queryCounter struct{ n atomic.Int64 }

type countedKey struct{}

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	if ctx.Value(countedKey{}) != nil {
		c.n.Add(1)
	}
	return ctx
}

func (c *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *queryCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (c *queryCounter) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchQueryData) {
	if ctx.Value(countedKey{}) != nil {
		c.n.Add(1)
	}
}

func (c *queryCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// serveCounted serves env's accounts like serve does, marking request contexts for counter.
func serveCounted(t testing.TB, env *accountstest.Env) *app {
	t.Helper()
	srv := httptest.NewUnstartedServer(api.New(api.Deps{
		Logger:         slog.New(slog.DiscardHandler),
		Accounts:       env.Accounts,
		PublicURL:      accountstest.PublicURL,
		MailboxDir:     env.MailDir,
		ReadYourWrites: env.Runner,
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
	body, _ := json.Marshal(map[string]string{
		"name": "Ada Lovelace", "email": email, "password": testPassword, "confirmPassword": testPassword,
		"phone": "+44 20 7946 0018", "country": "United Kingdom",
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

package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/clock"
	"clearvest/platform/config"
	"clearvest/platform/pgtest"
)

// TestServeKeepsMetricsOffThePublicListener starts serve as an operator would, with
// CLEARVEST_METRICS_ADDR set: metrics answer there, and the public listener has none.
func TestServeKeepsMetricsOffThePublicListener(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("DATABASE_URL", dbURL)
	t.Setenv("CLEARVEST_DATA_DIR", t.TempDir())
	t.Setenv("CLEARVEST_SECRET_KEY", base64.StdEncoding.EncodeToString(make([]byte, 32)))
	t.Setenv("CLEARVEST_ENV", "development")
	t.Setenv("CLEARVEST_ADDR", "127.0.0.1:0")
	t.Setenv("CLEARVEST_METRICS_ADDR", "127.0.0.1:0")
	ctx, stop := context.WithCancel(testCtx(t))
	defer stop()
	out, stdout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, nil, stdout, slog.New(slog.DiscardHandler))
		stdout.Close()
	}()

	var public, metrics string
	lines := bufio.NewScanner(out)
	for (public == "" || metrics == "") && lines.Scan() {
		line := lines.Text()
		if rest, ok := strings.CutPrefix(line, "Clearvest is running at "); ok {
			u, err := url.Parse(rest)
			if err != nil {
				t.Fatal(err)
			}
			public = "http://127.0.0.1:" + u.Port()
		}
		if rest, ok := strings.CutPrefix(line, "Metrics: "); ok {
			metrics = rest
		}
	}
	if public == "" || metrics == "" {
		t.Fatalf("serve stopped before naming both listeners: %v", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()

	get := func(u string) (int, string) {
		t.Helper()
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if status, body := get(public + "/metrics"); status != http.StatusNotFound || strings.Contains(body, "clearvest_") {
		t.Errorf("public GET /metrics = %d %.80s, want a 404 without metrics", status, body)
	}
	if status, body := get(metrics); status != http.StatusOK || !strings.Contains(body, "clearvest_projection") {
		t.Errorf("GET %s = %d %.200s, want the metrics", metrics, status, body)
	}
	// Profiles are the operator's too: on the private listener, never on the public one.
	base := strings.TrimSuffix(metrics, "/metrics")
	if status, body := get(base + "/debug/pprof/"); status != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("GET %s/debug/pprof/ = %d %.80s, want the profile index", base, status, body)
	}
	if status, body := get(public + "/debug/pprof/"); status == http.StatusOK && strings.Contains(body, "goroutine") {
		t.Errorf("public /debug/pprof/ = %d %.80s, want no profiles", status, body)
	}
	if status, _ := get(public + "/healthz"); status != http.StatusOK {
		t.Errorf("public /healthz = %d", status)
	}
	// The first development start seeded the demo: the investor's sample deposits, one confirmed
	// with notes that say it is sample data, one waiting.
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	got := pgtest.Texts(t, pool, `SELECT type || ' ' || coalesce(data->>'amount', data->>'received') || ' ' || coalesce(data->>'notes', '')
		FROM events WHERE type LIKE 'account.deposit%' ORDER BY position`)
	want := []string{"account.deposit_requested 1000.00 ", "account.deposit_confirmed 1000.00 " + sampleDepositNotes, "account.deposit_requested 250.00 "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("demo deposits %q, want %q", got, want)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestAppClock: development installs the test clock as the one clock every service reads;
// production has none.
func TestAppClock(t *testing.T) {
	t.Parallel()
	clk, dev := appClock(config.Config{Env: config.Development})
	if dev == nil || clk != clock.Clock(dev) {
		t.Fatalf("development: clock %T, test clock %v; want the test clock as the application's clock", clk, dev)
	}
	if _, err := dev.Advance(time.Hour); err != nil || clk.Now().Before(time.Now().Add(59*time.Minute)) {
		t.Errorf("advancing the test clock did not move the application's clock (%v)", err)
	}
	clk, dev = appClock(config.Config{Env: config.Production})
	if dev != nil {
		t.Error("production has a test clock")
	}
	if _, ok := clk.(*clock.Offset); ok || clk.Now().Sub(time.Now()).Abs() > time.Minute {
		t.Errorf("production clock %T reads %s", clk, clk.Now())
	}
}

func TestDevDepositAddressesParse(t *testing.T) {
	if _, err := config.ParseDepositAddresses(devDepositAddresses); err != nil {
		t.Fatal(err)
	}
	if got := depositAddresses(config.Config{Env: config.Production}); len(got) != 0 {
		t.Fatalf("production without addresses got %v", got)
	}
	if got := depositAddresses(config.Config{}); len(got) != 4 {
		t.Fatalf("development defaults: %v", got)
	}
}

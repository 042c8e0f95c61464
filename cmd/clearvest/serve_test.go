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
	// Then the rest of the investor's story, so every signed-in screen has a record to show: two
	// identity checks submitted (the sample applicant's, waiting, and the investor's, approved),
	// a running investment and a withdrawal to no one's wallet waiting for staff.
	got = pgtest.Texts(t, pool, `SELECT type || coalesce(' ' || (data->>'amount'), '') || coalesce(' ' || (data->>'address'), '')
		FROM events WHERE type IN ('kyc.submitted', 'kyc.approved', 'account.investment_requested',
			'account.investment_activated', 'account.withdrawal_requested') ORDER BY position`)
	want = []string{"kyc.submitted", "kyc.submitted", "kyc.approved", "account.investment_requested " + sampleInvestment,
		"account.investment_activated " + sampleInvestment, "account.withdrawal_requested " + sampleWithdrawal + " " + sampleWithdrawalAddress}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("demo story %q, want %q", got, want)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestAppClock: development, chosen explicitly on a loopback address, installs the test clock
// as the one clock every service reads; production, and development left unchosen or on a
// network address, have none.
func TestAppClock(t *testing.T) {
	t.Parallel()
	devCfg := config.Config{Env: config.Development, EnvChosen: true, Addr: "127.0.0.1:8080"}
	clk, dev := appClock(devCfg)
	if dev == nil || clk != clock.Clock(dev) {
		t.Fatalf("development: clock %T, test clock %v; want the test clock as the application's clock", clk, dev)
	}
	if _, err := dev.Advance(time.Hour); err != nil || clk.Now().Before(time.Now().Add(59*time.Minute)) {
		t.Errorf("advancing the test clock did not move the application's clock (%v)", err)
	}
	for _, cfg := range []config.Config{
		{Env: config.Production, EnvChosen: true, Addr: "127.0.0.1:8080"},
		{Env: config.Development, Addr: "127.0.0.1:8080"},
		{Env: config.Development, EnvChosen: true, Addr: ":8080"},
	} {
		clk, dev = appClock(cfg)
		if dev != nil {
			t.Errorf("%+v has a test clock", cfg)
		}
		if _, ok := clk.(*clock.Offset); ok || clk.Now().Sub(time.Now()).Abs() > time.Minute {
			t.Errorf("%+v: clock %T reads %s", cfg, clk, clk.Now())
		}
	}
}

// TestServeRefusesUnsafeStarts: serve stops before opening anything when development was not
// chosen, when development would listen beyond this machine, and when production is given a
// development stand-in. The database URL leads nowhere, so a start that went on would fail
// differently.
func TestServeRefusesUnsafeStarts(t *testing.T) {
	nowhere := "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"unset environment", map[string]string{"CLEARVEST_ENV": "", "CLEARVEST_ADDR": "127.0.0.1:0"},
			[]string{"CLEARVEST_ENV is not set", "CLEARVEST_ENV=development", "CLEARVEST_ADDR=127.0.0.1:8080"}},
		{"development on every interface", map[string]string{"CLEARVEST_ENV": "development", "CLEARVEST_ADDR": ":0"},
			[]string{"loopback", "CLEARVEST_ADDR=127.0.0.1:8080"}},
		{"development on the default address", map[string]string{"CLEARVEST_ENV": "development", "CLEARVEST_ADDR": ""},
			[]string{"loopback", `CLEARVEST_ADDR is ":8080"`}},
		{"production with an example deposit address", map[string]string{
			"CLEARVEST_ENV": "production", "CLEARVEST_ADDR": "127.0.0.1:0", "CLEARVEST_MAIL_URL": "smtp://mail.example.com:587",
			"CLEARVEST_DEPOSIT_ADDRESSES": "BTC/BTC=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
		}, []string{"CLEARVEST_DEPOSIT_ADDRESSES", "example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", nowhere)
			t.Setenv("CLEARVEST_DATA_DIR", t.TempDir())
			t.Setenv("CLEARVEST_SECRET_KEY", base64.StdEncoding.EncodeToString(make([]byte, 32)))
			t.Setenv("CLEARVEST_MAIL_URL", "")
			t.Setenv("CLEARVEST_DEPOSIT_ADDRESSES", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			err := runServe(testCtx(t), nil, io.Discard, slog.New(slog.DiscardHandler))
			if err == nil {
				t.Fatal("serve started")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

func TestDevDepositAddressesParse(t *testing.T) {
	if _, err := config.ParseDepositAddresses(config.ExampleDepositAddresses); err != nil {
		t.Fatal(err)
	}
	if got := depositAddresses(config.Config{Env: config.Production}); len(got) != 0 {
		t.Fatalf("production without addresses got %v", got)
	}
	if got := depositAddresses(config.Config{Env: config.Development}); len(got) != 0 {
		t.Fatalf("development not chosen explicitly got the examples: %v", got)
	}
	if got := depositAddresses(config.Config{Env: config.Development, EnvChosen: true}); len(got) != 4 {
		t.Fatalf("development defaults: %v", got)
	}
}

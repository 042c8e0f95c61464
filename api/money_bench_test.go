package api_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/accounts"
	"clearvest/platform/pgtest"
)

// verifiedInvestor registers an investor through the accounts service (each from an address of
// its own, so that sign-up limits do not apply) and verifies their e-mail address with the
// mailed link; it returns the bearer token.
func verifiedInvestor(tb testing.TB, a *app, n int) string {
	tb.Helper()
	ctx := context.Background()
	email := fmt.Sprintf("investor-%d@example.com", n)
	client := accounts.Client{IP: fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255), UserAgent: "bench"}
	in, err := a.Accounts.Register(ctx, accounts.RegisterInput{
		Name: "Bench Investor", Email: email, Password: testPassword, ConfirmPassword: testPassword,
		Phone: "+44 20 7946 0018", Country: "United Kingdom",
		Terms: accounts.Consent{TermsVersion: "2026-11-28", PrivacyVersion: "2026-11-28"},
	}, client)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := a.Accounts.VerifyEmail(ctx, a.LatestLink(tb, email, "/verify/"), client); err != nil {
		tb.Fatal(err)
	}
	return in.AccessToken
}

// BenchmarkMoneyCommand is a money command over loopback HTTP in process (server and client
// in this process): POST /api/payments/create from 10 closed-loop clients, each a signed-in
// investor with a fresh Idempotency-Key per request, with the projections running. Each
// client moves to its next investor every 50 commands (of 10), so that streams grow slowly,
// closer to an investor's than one stream taking every command would be. The open deposit quota
// is off (the deposits stay waiting), and the request limits are, as in every test that does not
// turn them on. docs/benchmarks.md has the
// comparison with a bare handler against the real binary (scripts/bench-money.sh).
func BenchmarkMoneyCommand(b *testing.B) {
	const writers, usersPerWriter, perUser = 10, 10, 50
	// No open deposit quota: each investor leaves its 50 deposits waiting (docs/benchmarks.md).
	a := newMoneyAppQuota(b, nil, -1)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.Cleanup(client.CloseIdleConnections)
	// Investors are signed in ahead of the timed loop (a sign-in hashes a password).
	tokens := make([][]string, writers)
	for w := range tokens {
		for i := range usersPerWriter {
			tokens[w] = append(tokens[w], verifiedInvestor(b, a, w*usersPerWriter+i))
		}
	}
	// RunWriters connects a pool's worth of writers before it starts and meters the database's
	// backends through it; the server's own pool is smaller than that, so the meter gets its own.
	cfg := a.Pool.Config().Copy()
	cfg.MaxConns = writers + 1
	meter, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(meter.Close)
	b.Run("command=create-deposit/writers=10", func(b *testing.B) {
		pgtest.RunWriters(b, meter, writers, "cmds/s", func(ctx context.Context, w, op int) error {
			body, _ := json.Marshal(map[string]string{"amount": fmt.Sprintf("%d.%02d", 10+op%990, op%100), "asset": "USDT", "network": "TRC20"})
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.srv.URL+"/api/payments/create", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tokens[w][op/perUser%usersPerWriter])
			req.Header.Set("Idempotency-Key", rand.Text())
			res, err := client.Do(req)
			if err != nil {
				return err
			}
			defer res.Body.Close()
			out, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d: %s", res.StatusCode, out)
			}
			return nil
		})
	})
}

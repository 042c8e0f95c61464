package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/platform/config"
	"clearvest/platform/pgavail"
	"clearvest/platform/pgembed"
)

// TestServeRidesOutAPostgreSQLCrash runs `clearvest serve` on a private PostgreSQL cluster,
// has signed-in investors send deposit requests and read their history from several
// goroutines, kills every PostgreSQL process with SIGKILL in the middle of it, keeps the load
// going for a few seconds of outage, then starts PostgreSQL again (crash recovery) on the same
// port. It asserts that no request got a 500 (each got 2xx, or 503 with Retry-After and the
// plain message), that /readyz said not ready during the outage and ready after it without a
// restart of serve, that serve's background work resumed, and that the books are whole: each
// deposit that got a 2xx exists exactly once with its reference and hash rows, each that got a
// 503 exists either entirely or not at all, and `clearvest events verify` (trial balance,
// read models against a replay) passes.
func TestServeRidesOutAPostgreSQLCrash(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// fsync=off: what the crash loses is the processes, not the machine, so every write the
	// server made is still in the kernel's page cache and recovery replays the same log; it
	// spares the test the seconds a loaded disk takes to sync the cluster at each recovery.
	// A port found free can be taken by another test's connection before PostgreSQL binds it;
	// then it starts again on another.
	pgOpt := pgembed.Options{DataDir: reachableDir(t), Port: freeTCPPort(t), Settings: []string{"fsync=off"}}
	cluster, err := pgembed.Start(ctx, pgOpt)
	for try := 1; err != nil && try < 5 && strings.Contains(err.Error(), "Address already in use"); try++ {
		pgOpt.Port = freeTCPPort(t)
		cluster, err = pgembed.Start(ctx, pgOpt)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pgembed.Shutdown(context.Background(), pgOpt) })
	env := liveEnv{databaseURL: cluster.URL(), dataDir: t.TempDir(), secret: bytes.Repeat([]byte{0x7a}, 32)}
	// The load sends thousands of deposit requests that nobody confirms: the request limits and
	// the open deposit quota are off (as for the load tests), so that the only refusals are the
	// outage's.
	t.Setenv(config.EnvRequestLimits, "off")
	srv := mustServe(t, env)
	box := newMailbox(t, env)

	// Investors with a verified e-mail address, each signed in in a browser of its own.
	const investors = 3
	browsers := make([]*browser, investors)
	for i := range browsers {
		email := fmt.Sprintf("crash.investor.%d@example.test", i)
		b := newBrowser(t, srv, fmt.Sprintf("127.0.9.%d", i+1), "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0")
		b.must(http.StatusCreated, http.MethodPost, "/api/users/register", map[string]any{
			"name": fmt.Sprintf("Crash Investor %d", i), "email": email, "password": "steady-savings-plan-42",
			"confirmPassword": "steady-savings-plan-42", "phone": fmt.Sprintf("+44770090000%d", i), "country": "GB", "acceptTerms": true,
		})
		b.must(http.StatusOK, http.MethodPatch, "/api/users/verifyUser/"+box.link(box.next(email, "Confirm your e-mail"), "verify"), nil)
		browsers[i] = b
	}

	// The load: per investor one goroutine requesting deposits and one reading history. Each
	// deposit has an amount and a transaction hash of its own, so the books can be searched for
	// it afterwards whatever it was answered.
	var (
		tally      statusTally
		seq        atomic.Int64
		stop       = make(chan struct{})
		wg         sync.WaitGroup
		depositsMu sync.Mutex
		deposits   []sentDeposit
	)
	const maxPerWorker = 20000 // a bound on the run whatever happens (a run sends a tenth of it)
	for _, b := range browsers {
		wg.Go(func() {
			for range maxPerWorker {
				select {
				case <-stop:
					return
				default:
				}
				n := seq.Add(1)
				// From 2,000.00 up: no amount of the demo seed's deposits.
				d := sentDeposit{amount: fmt.Sprintf("%d.%02d", 2000+n/100, n%100), txHash: fmt.Sprintf("%064x", 0xc7a5_0000_0000+n)}
				res, err := send(b, http.MethodPost, "/api/payments/create", map[string]string{
					"amount": d.amount, "asset": "USDT", "network": "TRC20", "txHash": d.txHash,
				}, fmt.Sprintf("crash-deposit-%d", n))
				if err != nil {
					t.Errorf("deposit %s: %v", d.amount, err)
					return
				}
				d.status = res.status
				tally.add(t, "POST /api/payments/create", res)
				depositsMu.Lock()
				deposits = append(deposits, d)
				depositsMu.Unlock()
			}
		})
		wg.Go(func() {
			for range maxPerWorker {
				select {
				case <-stop:
					return
				default:
				}
				res, err := send(b, http.MethodGet, "/api/invest/getTransactionHistory", nil, "")
				if err != nil {
					t.Errorf("history: %v", err)
					return
				}
				tally.add(t, "GET /api/invest/getTransactionHistory", res)
			}
		})
	}
	stopLoad := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopLoad()

	probe := newBrowser(t, srv, "127.0.9.100", "probe")
	ready := func() int {
		res, err := send(probe, http.MethodGet, "/readyz", nil, "")
		if err != nil {
			t.Fatalf("/readyz: %v", err)
		}
		return res.status
	}
	// waitFor polls observed state (counters, the probe) until cond holds.
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v; statuses so far %v\nserve's log:\n%s", what, limit, tally.snapshot(), tail(srv.logs.String(), 40))
			}
			time.Sleep(5 * time.Millisecond) // polling, not waiting for a guess
		}
	}

	const depositOK = "POST /api/payments/create 200"
	waitFor("deposits before the crash", 30*time.Second, func() bool { return tally.route(depositOK) >= 30 })
	if got := ready(); got != http.StatusOK {
		t.Fatalf("/readyz before the crash = %d, want 200", got)
	}

	// The crash, and at least three seconds and a hundred refused requests of outage.
	if err := cluster.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	crashed := time.Now()
	refusedAtCrash := tally.count(http.StatusServiceUnavailable)
	waitFor("/readyz to say not ready", 10*time.Second, func() bool { return ready() == http.StatusServiceUnavailable })
	waitFor("three seconds of refused requests", 30*time.Second, func() bool {
		return time.Since(crashed) >= 3*time.Second && tally.count(http.StatusServiceUnavailable)-refusedAtCrash >= 100
	})
	if got := ready(); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz at the end of the outage = %d, want 503", got)
	}
	okDuringOutage := tally.route(depositOK)

	// PostgreSQL comes back on the same port and replays its log; serve is not restarted.
	starting := time.Now()
	if cluster, err = pgembed.Start(ctx, pgOpt); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	waitFor("/readyz to say ready again", 45*time.Second, func() bool { return ready() == http.StatusOK })
	t.Logf("PostgreSQL down for %v, then starting (crash recovery) for %v; serve ready %v after it accepted connections",
		starting.Sub(crashed).Round(time.Millisecond), restarted.Sub(starting).Round(time.Millisecond), time.Since(restarted).Round(time.Millisecond))
	waitFor("deposits after the restart", 30*time.Second, func() bool { return tally.route(depositOK) >= okDuringOutage+30 })
	stopLoad()

	counts := tally.snapshot()
	t.Logf("responses by route and status: %v", counts)
	for key, n := range counts {
		if !strings.HasSuffix(key, " 200") && !strings.HasSuffix(key, " 503") {
			t.Errorf("%d responses %s, want only 200 and 503", n, key)
		}
	}

	// Serve's background work resumed: the sender delivers a message queued after the outage.
	newBrowser(t, srv, "127.0.9.50", "Mozilla/5.0 Firefox/140.0").must(http.StatusCreated, http.MethodPost, "/api/users/register", map[string]any{
		"name": "After The Outage", "email": "after.outage@example.test", "password": "steady-savings-plan-42",
		"confirmPassword": "steady-savings-plan-42", "phone": "+447700900099", "country": "GB", "acceptTerms": true,
	})

	// The books.
	pool, err := pgxpool.New(ctx, cluster.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	type found struct{ events, refs, hashes int }
	byAmount := map[string]found{}
	rows, err := pool.Query(ctx, `
		SELECT e.data->>'amount', coalesce(e.data->>'txHash', ''),
		       (SELECT count(*) FROM money_deposit_refs r WHERE r.transaction_id = e.data->>'transactionId'),
		       (SELECT count(*) FROM money_chain_tx_hashes h WHERE h.kind = 'deposit' AND h.ref = e.data->>'transactionId')
		FROM events e WHERE e.type = 'account.deposit_requested'`)
	if err != nil {
		t.Fatal(err)
	}
	hashOf := map[string]string{}
	for rows.Next() {
		var amount, hash string
		var refs, hashes int
		if err := rows.Scan(&amount, &hash, &refs, &hashes); err != nil {
			t.Fatal(err)
		}
		f := byAmount[amount]
		f.events++
		f.refs += refs
		f.hashes += hashes
		byAmount[amount], hashOf[amount] = f, hash
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var orphanRefs, orphanHashes int
	if err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM money_deposit_refs r WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.type = 'account.deposit_requested' AND e.data->>'transactionId' = r.transaction_id)),
		(SELECT count(*) FROM money_chain_tx_hashes h WHERE h.kind = 'deposit' AND NOT EXISTS (SELECT 1 FROM events e WHERE e.type = 'account.deposit_requested' AND e.data->>'transactionId' = h.ref))`,
	).Scan(&orphanRefs, &orphanHashes); err != nil {
		t.Fatal(err)
	}
	if orphanRefs != 0 || orphanHashes != 0 {
		t.Errorf("half-made deposits: %d reference rows and %d hash rows without their event", orphanRefs, orphanHashes)
	}
	var acknowledged, refusedMade, refusedAbsent int
	for _, d := range deposits {
		f := byAmount[d.amount]
		whole := f == (found{1, 1, 1}) && hashOf[d.amount] == d.txHash
		switch {
		case d.status == http.StatusOK:
			acknowledged++
			if !whole {
				t.Errorf("deposit of %s was answered 200 but the books hold %+v", d.amount, f)
			}
		case f == found{}:
			refusedAbsent++
		case whole:
			refusedMade++ // its commit went through as the connection broke: whole, and found by a retry with its key
		default:
			t.Errorf("deposit of %s was answered %d and is half-made: %+v", d.amount, d.status, f)
		}
	}
	t.Logf("deposits: %d answered 200, of those answered 503 %d are absent and %d were made whole", acknowledged, refusedAbsent, refusedMade)

	var out bytes.Buffer
	if err := run(ctx, []string{"events", "verify"}, &out, io.Discard); err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "OK") {
		t.Errorf("events verify after the crash: %v\n%s", err, out.String())
	}
	box.next("after.outage@example.test", "Confirm your e-mail")

	logs := srv.logs.String()
	// An outage is news once per component, as warnings; nothing is logged as an error.
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("serve logged an error: %s", line)
		}
	}
	t.Logf("serve logged %d lines, %d of them warnings that the database was unavailable", strings.Count(logs, "\n"), strings.Count(logs, "database unavailable; answering 503"))
	if err := srv.stop(); err != nil {
		t.Errorf("serve: %v\n%s", err, tail(logs, 40))
	}
}

type sentDeposit struct {
	amount, txHash string
	status         int
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

// send is browser.do for the load goroutines: it returns the transport error instead of
// failing the test from a goroutine other than the test's.
func send(b *browser, method, path string, body any, idempotencyKey string) (answer, error) {
	var r io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, b.srv.url+path, r)
	if err != nil {
		return answer{}, err
	}
	for k, vs := range b.header {
		req.Header[k] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	res, err := b.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: data}, err
}

// statusTally counts answers by route and status, and checks each 503 as it arrives.
type statusTally struct {
	mu     sync.Mutex
	counts map[string]int
	status map[int]int
}

func (s *statusTally) add(t *testing.T, route string, a answer) {
	if a.status == http.StatusServiceUnavailable {
		var body struct{ Message string }
		if err := json.Unmarshal(a.body, &body); err != nil || body.Message != pgavail.Message {
			t.Errorf("%s: 503 body %q, want the message %q", route, a.body, pgavail.Message)
		}
		if a.header.Get("Retry-After") != "3" {
			t.Errorf("%s: 503 with Retry-After %q, want 3", route, a.header.Get("Retry-After"))
		}
	}
	if a.status >= 500 && a.status != http.StatusServiceUnavailable {
		t.Errorf("%s: %d %s", route, a.status, a.body)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts, s.status = map[string]int{}, map[int]int{}
	}
	s.counts[fmt.Sprintf("%s %d", route, a.status)]++
	s.status[a.status]++
}

func (s *statusTally) count(status int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status[status]
}

func (s *statusTally) route(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[key]
}

func (s *statusTally) snapshot() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// reachableDir is a fresh directory the PostgreSQL server's user can reach: as root the server
// runs as another user, and t.TempDir's parent is private to the test's user.
func reachableDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "data")
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/platform/pgtest"
)

// moneyCommand is one money command sent over HTTP: the request of a writer's n-th command. New
// money commands (withdrawals, investments) are added here and chosen with -command.
type moneyCommand struct {
	about string
	build func(n int) (method, path string, body any)
}

var moneyCommands = map[string]moneyCommand{
	// A deposit request: the investor says they sent USDT on TRON; a Pending deposit is recorded
	// (account.DepositRequested) and its reference claimed, in the command's transaction.
	"create-deposit": {
		about: "POST /api/payments/create (a USDT deposit request)",
		build: func(n int) (string, string, any) {
			return http.MethodPost, "/api/payments/create", map[string]string{
				"amount": fmt.Sprintf("%d.%02d", 10+n%990, n%100), "asset": "USDT", "network": "TRC20",
			}
		},
	},
}

// httpTarget is the server under test: its URL, its process (for its CPU time) and its
// database (for its backends' CPU time and the projections' checkpoints).
type httpTarget struct {
	url    string
	pid    int
	db     string
	tokens []string // one signed-in user per writer
}

// readTokens reads "TOKEN [USER_ID]" lines (loadgen register's output).
func readTokens(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tokens []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 0 {
			tokens = append(tokens, fields[0])
		}
	}
	return tokens, sc.Err()
}

func newHTTPClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute, DisableCompression: true,
	}}
}

// send makes one request with a fresh Idempotency-Key and returns the position the server
// reports (X-Clearvest-Position; 0 if none).
func send(ctx context.Context, client *http.Client, url, token, method string, body any) (int64, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Idempotency-Key", rand.Text())
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return 0, fmt.Errorf("%s %s: status %d: %s", method, req.URL.Path, res.StatusCode, msg)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	pos, _ := strconv.ParseInt(res.Header.Get("X-Clearvest-Position"), 10, 64)
	return pos, nil
}

// newHTTP is the money command over HTTP against a running `clearvest serve`: authentication,
// JSON, the Idempotency-Key record, load, decide and append, and the projections applying it
// while the load runs, whose lag it measures.
func newHTTP(ctx context.Context, t httpTarget, command string) (*impl, error) {
	cmd, ok := moneyCommands[command]
	if !ok {
		return nil, fmt.Errorf("unknown -command %q", command)
	}
	pool, err := openPool(ctx, t.db)
	if err != nil {
		return nil, err
	}
	lag := newLagMeter(pool)
	client := newHTTPClient()
	return &impl{name: "http", pool: pool, serverPID: t.pid, lag: lag,
		about: cmd.about + " on clearvest serve, each writer a signed-in user, a new Idempotency-Key per command",
		close: func() { lag.stop(); pool.Close() },
		run: func(ctx context.Context, w, n int) error {
			method, path, body := cmd.build(n)
			pos, err := send(ctx, client, t.url+path, t.tokens[w%len(t.tokens)], method, body)
			if err == nil {
				lag.committed(pos)
			}
			return err
		}}, nil
}

// newBareHTTP is the HTTP floor: a bare chi + pgx handler (scripts/bareuser, POST
// /bare/append) that decodes the same JSON body and INSERTs one row into a copy of the events
// table, with no authentication, idempotency record, stream lock, version check or read.
func newBareHTTP(ctx context.Context, url string, pid int, db string, command string) (*impl, error) {
	cmd, ok := moneyCommands[command]
	if !ok {
		return nil, fmt.Errorf("unknown -command %q", command)
	}
	pool, err := openPool(ctx, db)
	if err != nil {
		return nil, err
	}
	client := newHTTPClient()
	return &impl{name: "bare-http", pool: pool, serverPID: pid, close: pool.Close,
		about: "the same request body to a bare chi + pgx handler: JSON decode, one INSERT into a copy of the events table",
		run: func(ctx context.Context, w, n int) error {
			_, _, body := cmd.build(n)
			_, err := send(ctx, client, url+"/bare/append", "", http.MethodPost, body)
			return err
		}}, nil
}

// lagMeter measures projection lag: the time from a command's answer (its events committed)
// until every projection's checkpoint has passed the position it reported. It polls the
// checkpoints every lagPoll, so a lag is measured to within that.
type lagMeter struct {
	pool    *pgxpool.Pool
	mu      sync.Mutex
	pending []pendingPos
	lags    []time.Duration
	done    chan struct{}
	wg      sync.WaitGroup
	// patience is how long take waits for the positions still pending.
	patience time.Duration
}

type pendingPos struct {
	pos int64
	at  time.Time
}

const lagPoll = 2 * time.Millisecond

func newLagMeter(pool *pgxpool.Pool) *lagMeter {
	m := &lagMeter{pool: pool, done: make(chan struct{}), patience: 10 * time.Second}
	m.wg.Go(m.poll)
	return m
}

func (m *lagMeter) committed(pos int64) {
	if pos <= 0 {
		return
	}
	m.mu.Lock()
	m.pending = append(m.pending, pendingPos{pos, time.Now()})
	m.mu.Unlock()
}

func (m *lagMeter) poll() {
	t := time.NewTicker(lagPoll)
	defer t.Stop()
	for {
		select {
		case <-m.done:
			return
		case <-t.C:
		}
		var applied int64
		// Every live projection: the read models as a whole have applied what all of them have.
		if err := m.pool.QueryRow(context.Background(), `SELECT coalesce(min(position), 0) FROM projection_checkpoints`).Scan(&applied); err != nil {
			continue
		}
		now := time.Now()
		m.mu.Lock()
		m.pending = slices.DeleteFunc(m.pending, func(p pendingPos) bool {
			if p.pos <= applied {
				m.lags = append(m.lags, now.Sub(p.at))
				return true
			}
			return false
		})
		m.mu.Unlock()
	}
}

// take waits up to its patience (10 s) for the pending positions to be applied, then returns
// the lags measured since the last take and how many positions were still not applied.
func (m *lagMeter) take() (lags []time.Duration, unapplied int) {
	for deadline := time.Now().Add(m.patience); time.Now().Before(deadline); time.Sleep(lagPoll) {
		m.mu.Lock()
		n := len(m.pending)
		m.mu.Unlock()
		if n == 0 {
			break
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	lags, m.lags = m.lags, nil
	unapplied, m.pending = len(m.pending), nil
	slices.Sort(lags)
	return lags, unapplied
}

func (m *lagMeter) stop() {
	select {
	case <-m.done:
	default:
		close(m.done)
	}
	m.wg.Wait()
}

// lagSummary is a run's projection lag.
type lagSummary struct {
	n, unapplied   int
	p50, p99, max_ time.Duration
}

func summariseLag(m *lagMeter) *lagSummary {
	if m == nil {
		return nil
	}
	lags, unapplied := m.take()
	s := &lagSummary{n: len(lags), unapplied: unapplied}
	if len(lags) > 0 {
		s.p50, s.p99, s.max_ = pgtest.Percentile(lags, 0.50), pgtest.Percentile(lags, 0.99), lags[len(lags)-1]
	}
	return s
}

var errNoTokens = errors.New("-http needs -tokens: a file of signed-in users' tokens, one per writer (loadgen register)")

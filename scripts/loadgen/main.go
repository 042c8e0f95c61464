// Command loadgen is the open-loop load generator of the signed-in read benchmark
// (docs/benchmarks.md, "Signed-in read").
//
//	loadgen register -url BASE_URL [-n 1] [-deposits 0 -admin-file DATA_DIR/demo-logins.txt]
//	    signs new users up through the API and prints "TOKEN USER_ID" for each; with -deposits,
//	    each user also has that many deposits confirmed (money history for the dashboard)
//	loadgen run -token TOKEN -db DATABASE_URL -rates 1000,2000 -duration 20s -rounds 3 \
//	    -target clearvest=URL,pid=PID,app=clearvest -target bare=URL,pid=PID,app=bareuser
//	    sends GET requests with the bearer token to every target at every rate and prints a table;
//	    a target's own token=T (a target on another database) replaces -token for it
//
// Requests leave on a fixed schedule (request i at start + i/rate), each on its own goroutine,
// whatever happened to the ones before, and a request's latency is counted from the time it
// was scheduled to leave, not from when it actually left. A server that stalls therefore
// collects the whole stall in its latencies, instead of slowing the generator down and hiding
// it (coordinated omission). A late generator is charged to the server too, which can only
// make results worse, never better.
//
// CPU per request is read from /proc before and after each run: of the target's process (pid)
// and of the PostgreSQL backends whose application_name starts with app (the server runs on
// this host). Measurements of the targets alternate, rate by rate and round by round, so a
// change in the machine's load falls on both.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "register":
		err = register(os.Args[2:])
	case "run":
		err = runAll(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadgen: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: loadgen register -url BASE_URL | loadgen run -token T -db URL -target NAME=URL[,pid=N][,app=NAME] ...")
	os.Exit(2)
}

// register signs up new users as API clients would and prints "TOKEN USER_ID" for each. With
// -deposits, each user also verifies their e-mail address (the link from the development
// mailbox) and gets that many deposits confirmed by the demo admin (signed in with the
// credentials from -admin-file and the e-mailed code), so that their dashboard has money
// history: the signed-in read then joins real figures.
func register(args []string) error {
	fs := flag.NewFlagSet("register", flag.ExitOnError)
	base := fs.String("url", "", "the server's base URL")
	n := fs.Int("n", 1, "users to sign up")
	deposits := fs.Int("deposits", 0, "confirmed deposits per user (needs -admin-file; implies -verify)")
	verify := fs.Bool("verify", false, "verify each user's e-mail address (needed for money commands)")
	adminFile := fs.String("admin-file", "", "the server's demo-logins.txt (the demo admin's credentials)")
	_ = fs.Parse(args)
	if *base == "" {
		return errors.New("register: -url is required")
	}
	c := api{base: strings.TrimRight(*base, "/")}
	var staff api
	if *deposits > 0 {
		if *adminFile == "" {
			return errors.New("register: -deposits needs -admin-file")
		}
		var err error
		if staff, err = c.signInAdmin(*adminFile); err != nil {
			return err
		}
	}
	for range *n {
		email := "bench-" + strings.ToLower(rand.Text()) + "@example.com"
		password := "Bench-" + rand.Text()
		var u struct {
			ID    string `json:"_id"`
			Token string `json:"token"`
		}
		if err := c.call(http.MethodPost, "/api/users/register", map[string]any{
			"name": "Benchmark User", "email": email, "password": password, "confirmPassword": password,
			"phone": "+44 20 7946 0018", "country": "United Kingdom", "acceptTerms": true,
		}, http.StatusCreated, &u); err != nil {
			return fmt.Errorf("register: %w", err)
		}
		if *deposits > 0 || *verify {
			user := api{base: c.base, token: u.Token}
			link, err := c.mail(nil, email, "confirm your e-mail", regexp.MustCompile(`/verify/([A-Za-z0-9_-]+)`))
			if err != nil {
				return err
			}
			if err := user.call(http.MethodPatch, "/api/users/verifyUser/"+link, nil, http.StatusOK, nil); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
			for i := range *deposits {
				var d struct {
					TransactionID string `json:"transactionId"`
				}
				amount := fmt.Sprintf("%d.25", 100*(i+1))
				if err := user.call(http.MethodPost, "/api/payments/create", map[string]string{
					"amount": amount, "asset": "USDT", "network": "TRC20",
				}, http.StatusOK, &d); err != nil {
					return fmt.Errorf("deposit: %w", err)
				}
				if err := staff.call(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{
					"transactionId": d.TransactionID, "amount": amount,
				}, http.StatusOK, nil); err != nil {
					return fmt.Errorf("confirm: %w", err)
				}
			}
		}
		fmt.Println(u.Token, u.ID)
	}
	return nil
}

// api is a client of the server's JSON API, signed in when token is set.
type api struct {
	base, token string
}

// call sends body as JSON (with an Idempotency-Key, as the UI does) and decodes the answer
// into out, which must come with status want.
func (c api) call(method, path string, body any, want int, out any) error {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if method != http.MethodGet {
		req.Header.Set("Idempotency-Key", rand.Text())
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: status %d: %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// mailIDs are the ids of the e-mails in the development mailbox now.
func (c api) mailIDs() (map[string]bool, error) {
	var list []struct{ ID string }
	if err := c.call(http.MethodGet, "/api/dev/mail", nil, http.StatusOK, &list); err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, m := range list {
		ids[m.ID] = true
	}
	return ids, nil
}

// mail waits up to 30 s for an e-mail to `to`, not among before, whose subject contains subject
// (any case) in the development mailbox, and returns the first submatch of re in its text.
func (c api) mail(before map[string]bool, to, subject string, re *regexp.Regexp) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var list []struct{ ID, To, Subject string }
		if err := c.call(http.MethodGet, "/api/dev/mail", nil, http.StatusOK, &list); err != nil {
			return "", err
		}
		for _, m := range list {
			if before[m.ID] || !strings.Contains(strings.ToLower(m.To), strings.ToLower(to)) || !strings.Contains(strings.ToLower(m.Subject), subject) {
				continue
			}
			var full struct{ Text string }
			if err := c.call(http.MethodGet, "/api/dev/mail/"+url.PathEscape(m.ID), nil, http.StatusOK, &full); err != nil {
				return "", err
			}
			if sub := re.FindStringSubmatch(full.Text); sub != nil {
				return sub[1], nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("no e-mail to %s about %q within 30 s", to, subject)
}

// signInAdmin signs the demo admin in (password, then the e-mailed code) and returns the
// signed-in client.
func (c api) signInAdmin(file string) (api, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return api{}, err
	}
	var email, password string
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Split(line, "\t"); len(f) >= 3 && f[0] == "admin" {
			email, password = f[1], f[2]
		}
	}
	if email == "" {
		return api{}, fmt.Errorf("%s: no admin line", file)
	}
	// A new device (every API client) is asked for the e-mailed code.
	before, err := c.mailIDs()
	if err != nil {
		return api{}, err
	}
	var pending struct {
		PendingLogin string `json:"pendingLogin"`
	}
	if err := c.call(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": password},
		http.StatusAccepted, &pending); err != nil {
		return api{}, fmt.Errorf("admin sign-in: %w", err)
	}
	code, err := c.mail(before, email, "code", regexp.MustCompile(`\b(\d{6})\b`))
	if err != nil {
		return api{}, err
	}
	var u struct {
		Token string `json:"token"`
	}
	if err := c.call(http.MethodPost, "/api/users/loginWithCode/"+url.PathEscape(email),
		map[string]string{"loginCode": code, "pendingLogin": pending.PendingLogin}, http.StatusOK, &u); err != nil {
		return api{}, fmt.Errorf("admin sign-in: %w", err)
	}
	return api{base: c.base, token: u.Token}, nil
}

type target struct {
	name  string
	url   string
	pid   int
	app   string
	token string // when set, sent instead of -token (targets on different databases)
}

type targets []target

func (t *targets) String() string { return fmt.Sprint(*t) }

func (t *targets) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return errors.New("want NAME=URL[,pid=N][,app=NAME][,token=T]")
	}
	parts := strings.Split(rest, ",")
	tg := target{name: name, url: parts[0]}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "pid":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("pid %q: %w", v, err)
			}
			tg.pid = n
		case "app":
			tg.app = v
		case "token":
			tg.token = v
		default:
			return fmt.Errorf("unknown option %q", k)
		}
	}
	*t = append(*t, tg)
	return nil
}

// result is one run of one target at one rate.
type result struct {
	target    string
	rate      int
	sent      int
	errors    int64
	latencies []time.Duration // sorted; a failed request counts with the time it took to fail
	serverCPU time.Duration   // -1 when unknown
	pgCPU     time.Duration   // -1 when unknown
}

func (r result) quantile(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(q * float64(len(r.latencies)))
	return r.latencies[min(i, len(r.latencies)-1)]
}

func runAll(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	var tgs targets
	fs.Var(&tgs, "target", "NAME=URL[,pid=N][,app=NAME][,token=T], repeatable; the last one is the baseline")
	token := fs.String("token", "", "bearer token sent with every request")
	dbURL := fs.String("db", "", "database URL, to find the targets' PostgreSQL backends (optional)")
	rates := fs.String("rates", "1000,2000", "request rates per second, comma-separated")
	duration := fs.Duration("duration", 20*time.Second, "length of each measured run")
	warmup := fs.Duration("warmup", 3*time.Second, "unmeasured run before each measured one")
	rounds := fs.Int("rounds", 3, "measurements of each target at each rate; the table shows medians")
	_ = fs.Parse(args)
	if len(tgs) == 0 {
		return errors.New("run: at least one -target is required")
	}
	var rateList []int
	for _, s := range strings.Split(*rates, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("run: rate %q", s)
		}
		rateList = append(rateList, n)
	}

	ctx := context.Background()
	var db *pgx.Conn
	if *dbURL != "" {
		cfg, err := pgx.ParseConfig(*dbURL)
		if err != nil {
			return err
		}
		cfg.RuntimeParams["application_name"] = "loadgen"
		if db, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return err
		}
		defer db.Close(ctx)
	}
	client := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns: 10_000, MaxIdleConnsPerHost: 10_000, IdleConnTimeout: time.Minute,
			DisableCompression: true,
		},
	}

	all := map[string][]result{}
	for round := 1; round <= *rounds; round++ {
		for _, rate := range rateList {
			order := slices.Clone(tgs)
			if round%2 == 0 {
				slices.Reverse(order)
			}
			for _, tg := range order {
				fmt.Fprintf(os.Stderr, "round %d/%d: %s at %d req/s ... ", round, *rounds, tg.name, rate)
				tok := *token
				if tg.token != "" {
					tok = tg.token
				}
				attack(client, tg, tok, rate, *warmup)
				before := cpu(ctx, db, tg)
				r := attack(client, tg, tok, rate, *duration)
				after := cpu(ctx, db, tg)
				r.serverCPU, r.pgCPU = after.server-before.server, after.pg-before.pg
				if before.server < 0 || after.server < 0 {
					r.serverCPU = -1
				}
				if before.pg < 0 || after.pg < 0 {
					r.pgCPU = -1
				}
				fmt.Fprintf(os.Stderr, "p50 %s p99 %s p99.9 %s, %d errors\n",
					ms(r.quantile(0.5)), ms(r.quantile(0.99)), ms(r.quantile(0.999)), r.errors)
				key := fmt.Sprintf("%s@%d", tg.name, rate)
				all[key] = append(all[key], r)
			}
		}
	}
	report(os.Stdout, tgs, rateList, all, *duration, *rounds)
	return nil
}

// attack sends GET requests to tg at rate for d, open loop, and returns what came back.
func attack(client *http.Client, tg target, token string, rate int, d time.Duration) result {
	interval := time.Second / time.Duration(rate)
	n := int(d / interval)
	latencies := make([]time.Duration, n)
	var errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now().Add(10 * time.Millisecond)
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		wg.Go(func() {
			ok := get(client, tg.url, token)
			latencies[i] = time.Since(due)
			if !ok {
				errs.Add(1)
			}
		})
	}
	wg.Wait()
	slices.Sort(latencies)
	return result{target: tg.name, rate: rate, sent: n, errors: errs.Load(), latencies: latencies}
}

func get(client *http.Client, url, token string) bool {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

type cpuTimes struct{ server, pg time.Duration }

// cpu reads the CPU time used so far by the target's process and its PostgreSQL backends; -1
// for what cannot be read.
func cpu(ctx context.Context, db *pgx.Conn, tg target) cpuTimes {
	t := cpuTimes{server: -1, pg: -1}
	if tg.pid > 0 {
		if d, ok := procCPU(strconv.Itoa(tg.pid)); ok {
			t.server = d
		}
	}
	if db == nil || tg.app == "" {
		return t
	}
	rows, err := db.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1 || '%'`, tg.app)
	if err != nil {
		return t
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return t
	}
	var total time.Duration
	for _, pid := range pids {
		d, ok := procCPU(strconv.Itoa(int(pid)))
		if !ok {
			return t
		}
		total += d
	}
	t.pg = total
	return t
}

// procCPU is a process's user and system time from /proc/<pid>/stat, in the kernel's USER_HZ
// ticks of 10 ms. (platform/pgtest has the same reader for the Go benchmarks; scripts may not
// import the application's packages.)
func procCPU(pid string) (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// median of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func report(w io.Writer, tgs targets, rates []int, all map[string][]result, d time.Duration, rounds int) {
	fmt.Fprintf(w, "\nOpen loop, %s per run, medians of %d rounds; latency from each request's scheduled send time.\n\n", d, rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| target\t req/s\t requests\t errors\t p50 ms\t p99 ms\t p99.9 ms\t server CPU µs/req\t PostgreSQL CPU µs/req\t")
	fmt.Fprintln(tw, "|---\t--:\t--:\t--:\t--:\t--:\t--:\t--:\t--:\t")
	p99 := map[string]float64{}
	for _, rate := range rates {
		for _, tg := range tgs {
			rs := all[fmt.Sprintf("%s@%d", tg.name, rate)]
			if len(rs) == 0 {
				continue
			}
			var p50s, p99s, p999s, srv, pg []float64
			var sent int
			var errs int64
			for _, r := range rs {
				sent += r.sent
				errs += r.errors
				p50s = append(p50s, float64(r.quantile(0.5))/1e6)
				p99s = append(p99s, float64(r.quantile(0.99))/1e6)
				p999s = append(p999s, float64(r.quantile(0.999))/1e6)
				if r.serverCPU >= 0 && r.sent > 0 {
					srv = append(srv, float64(r.serverCPU)/1e3/float64(r.sent))
				}
				if r.pgCPU >= 0 && r.sent > 0 {
					pg = append(pg, float64(r.pgCPU)/1e3/float64(r.sent))
				}
			}
			p99[fmt.Sprintf("%s@%d", tg.name, rate)] = median(p99s)
			cell := func(xs []float64) string {
				if len(xs) == 0 {
					return "–"
				}
				return fmt.Sprintf("%.0f", median(xs))
			}
			fmt.Fprintf(tw, "| %s\t %d\t %d\t %d\t %.2f\t %.2f\t %.2f\t %s\t %s\t\n", tg.name, rate, sent, errs,
				median(p50s), median(p99s), median(p999s), cell(srv), cell(pg))
		}
	}
	tw.Flush()
	if len(tgs) < 2 {
		return
	}
	base := tgs[len(tgs)-1].name
	fmt.Fprintf(w, "\n| req/s | target | p99 | %s p99 | ratio | p99 ≤ 5 ms | ratio ≤ 1.5 |\n|--:|---|--:|--:|--:|---|---|\n", base)
	for _, rate := range rates {
		b := p99[fmt.Sprintf("%s@%d", base, rate)]
		for _, tg := range tgs[:len(tgs)-1] {
			v := p99[fmt.Sprintf("%s@%d", tg.name, rate)]
			ratio := v / b
			fmt.Fprintf(w, "| %d | %s | %.2f ms | %.2f ms | %.2f | %s | %s |\n", rate, tg.name, v, b, ratio,
				verdict(v <= 5), verdict(ratio <= 1.5))
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

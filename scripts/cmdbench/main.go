// Command cmdbench compares command throughput in one run: Clearvest's command path as serve
// wires it, the bare INSERT of the same row, and a peer event-sourcing library
// (github.com/hallgren/eventsourcing with its PostgreSQL store), all on the same workload as
// BenchmarkCommand (app/command): one-event commands, every writer on its own streams, a new
// stream every 20 commands. It lives in a module of its own so that the product does not
// depend on the peer.
//
// For each impl it runs a closed loop (the writers as fast as they go: the most they complete)
// and then an open loop at each offered rate (a fixed arrival rate whatever the system does,
// latency counted from each command's scheduled send time), and prints one table:
//
//	go run . -db "$TEST_DATABASE_URL"                   (from scripts/cmdbench)
//
// Each impl gets a fresh database on the server of -db. CPU per command is this process's and
// the impl's database backends' (read from /proc, so when PostgreSQL runs on this host); it
// depends much less than wall time on what else the machine is doing.
package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "cmdbench: %v\n", err)
		os.Exit(1)
	}
}

// Targets for the command path on 2 cores (docs/benchmarks.md).
const (
	// The money commands over HTTP (the http impl), closed loop.
	httpTargetRate = 3000
	httpTargetP99  = 20 * time.Millisecond

	targetRate  = 4000
	targetP99   = 10 * time.Millisecond
	targetRatio = 1.1
)

func run() error {
	admin := flag.String("db", os.Getenv("TEST_DATABASE_URL"), "PostgreSQL server (an admin URL; a database per impl is created and dropped)")
	nWriters := flag.Int("writers", 10, "concurrent writers (goroutines, each with its own streams)")
	rateList := flag.String("rates", "1000,2000,3000,4000,5000,6000", "offered rates, commands per second")
	dur := flag.Duration("duration", 10*time.Second, "length of each run")
	warmup := flag.Duration("warmup", 2*time.Second, "closed-loop warm-up of each impl before the first run")
	streamLength := flag.Int("stream-length", 20, "commands per stream before a writer moves to a new one")
	implList := flag.String("impls", "clearvest,raw-sql,peer", "impls to run, in order (http and bare-http need the -http flags)")
	httpURL := flag.String("http", "", "base URL of a running clearvest serve, for the http impl")
	httpPID := flag.Int("http-pid", 0, "its process id (its CPU time counts as go-cpu)")
	httpDB := flag.String("http-db", "", "its database URL (its backends' CPU time, the projections' checkpoints)")
	tokensFile := flag.String("tokens", "", "signed-in users' tokens, one line per writer (loadgen register)")
	command := flag.String("command", "create-deposit", "the money command the http impls send")
	bareURL := flag.String("bare", "", "base URL of scripts/bareuser, for the bare-http impl")
	barePID := flag.Int("bare-pid", 0, "its process id")
	flag.Parse()
	if *admin == "" {
		return fmt.Errorf("-db (or TEST_DATABASE_URL) is required")
	}
	rates, err := parseRates(*rateList)
	if err != nil {
		return err
	}
	ctx := context.Background()

	var impls []*impl
	defer func() {
		for _, im := range impls {
			im.close()
		}
	}()
	for _, name := range strings.Split(*implList, ",") {
		var im *impl
		if name == "http" || name == "bare-http" {
			// Over HTTP, against servers already running on their own database.
			if *httpDB == "" {
				return fmt.Errorf("%s needs -http-db", name)
			}
			if name == "http" {
				tokens, err := readTokens(*tokensFile)
				if err != nil || len(tokens) == 0 {
					return errors.Join(errNoTokens, err)
				}
				im, err = newHTTP(ctx, httpTarget{url: *httpURL, pid: *httpPID, db: *httpDB, tokens: tokens}, *command)
				if err != nil {
					return err
				}
			} else {
				if im, err = newBareHTTP(ctx, *bareURL, *barePID, *httpDB, *command); err != nil {
					return err
				}
			}
			impls = append(impls, im)
			continue
		}
		dbURL, drop, err := createDatabase(ctx, *admin, strings.ReplaceAll(name, "-", "_"))
		if err != nil {
			return err
		}
		defer drop()
		switch name {
		case "clearvest":
			im, err = newClearvest(ctx, dbURL, *streamLength)
		case "raw-sql":
			im, err = newRawSQL(ctx, dbURL, *streamLength)
		case "peer":
			im, err = newPeer(ctx, dbURL, *streamLength)
		default:
			err = fmt.Errorf("unknown impl %q", name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		impls = append(impls, im)
	}

	fmt.Printf("cmdbench: %d writers, %v per run, new stream every %d commands; load average %s\n",
		*nWriters, *dur, *streamLength, loadAverage())
	for _, im := range impls {
		fmt.Printf("  %-13s %s\n", im.name, im.about)
	}
	states := map[string]*writers{}
	for i, im := range impls {
		// Writers start at distinct offsets per impl only for readability of the logs; every
		// impl has its own database.
		states[im.name] = newWriters(*nWriters, make([]int64, *nWriters))
		_ = i
		if *warmup > 0 {
			closedLoop(ctx, im, states[im.name], *warmup)
		}
	}

	var results []result
	// Impls take turns at every step, each step starting with the next impl, so that a change in
	// the machine's load falls on all of them alike.
	steps := append([]float64{0}, rates...)
	for s, rate := range steps {
		for k := range impls {
			im := impls[(s+k)%len(impls)]
			var r result
			if rate == 0 {
				r = closedLoop(ctx, im, states[im.name], *dur)
			} else {
				r = openLoop(ctx, im, states[im.name], rate, *dur)
			}
			fmt.Fprintf(os.Stderr, "  %-13s %-8s %8.0f cmds/s  p99 %6.2f ms  (load %s)\n", r.impl, label(rate), r.achieved, ms(r.p99), loadAverage())
			if r.firstErr != nil {
				fmt.Fprintf(os.Stderr, "  %s: %d commands failed; first: %v\n", r.impl, r.failed, r.firstErr)
			}
			results = append(results, r)
		}
	}
	report(os.Stdout, impls, results, rates)
	return nil
}

func label(rate float64) string {
	if rate == 0 {
		return "closed"
	}
	return fmt.Sprintf("%.0f/s", rate)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func us(d time.Duration, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond))
}

// report prints the runs as a markdown table, then each impl's most sustained rate and the
// targets. p50/p99/p99.9 are of the commands sent; a run that dropped commands was overloaded,
// and its percentiles stop at maxLag.
func report(w io.Writer, impls []*impl, results []result, rates []float64) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| impl\t offered/s\t achieved/s\t p50 ms\t p99 ms\t p99.9 ms\t go-cpu µs/cmd\t pg-cpu µs/cmd\t failed\t dropped\t")
	fmt.Fprintln(tw, "|---\t--:\t--:\t--:\t--:\t--:\t--:\t--:\t--:\t--:\t")
	for _, im := range impls {
		for _, r := range results {
			if r.impl != im.name {
				continue
			}
			offered := "closed loop"
			if r.offered > 0 {
				offered = fmt.Sprintf("%.0f", r.offered)
			}
			fmt.Fprintf(tw, "| %s\t %s\t %.0f\t %.2f\t %.2f\t %.2f\t %s\t %s\t %d\t %d\t\n", r.impl, offered, r.achieved,
				ms(r.p50), ms(r.p99), ms(r.p999), us(r.goCPU, r.goCPUok), us(r.pgCPU, r.pgCPUok), r.failed, r.dropped)
		}
	}
	tw.Flush()

	lagHeader := false
	for _, r := range results {
		if r.lag == nil {
			continue
		}
		if !lagHeader {
			fmt.Fprintf(w, "\nProjection lag: from a command's answer until every projection's checkpoint passed its position (polled every %v).\n\n", lagPoll)
			fmt.Fprintln(w, "| impl | offered/s | commands | lag p50 ms | lag p99 ms | lag max ms | not applied after 10 s | p99 < 200 ms |")
			fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|---|")
			lagHeader = true
		}
		offered := "closed loop"
		if r.offered > 0 {
			offered = fmt.Sprintf("%.0f", r.offered)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.2f | %.2f | %.2f | %d | %s |\n", r.impl, offered, r.lag.n, ms(r.lag.p50), ms(r.lag.p99),
			ms(r.lag.max_), r.lag.unapplied, verdictOf(r.lag.unapplied == 0 && r.lag.p99 < 200*time.Millisecond))
	}

	fmt.Fprintf(w, "\nMost sustained: the highest offered rate completed in full (≥ 99%%) with p99 ≤ %v.\n\n", targetP99)
	sustained := map[string]float64{}
	closed := map[string]result{}
	for _, r := range results {
		if r.offered == 0 {
			closed[r.impl] = r
		} else if r.failed == 0 && r.dropped == 0 && r.achieved >= 0.99*r.offered && r.p99 <= targetP99 && r.offered > sustained[r.impl] {
			sustained[r.impl] = r.offered
		}
	}
	fmt.Fprintln(w, "| impl | most sustained/s | closed loop cmds/s | closed loop p99 ms |")
	fmt.Fprintln(w, "|---|--:|--:|--:|")
	for _, im := range impls {
		c := closed[im.name]
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.2f |\n", im.name, sustained[im.name], c.achieved, ms(c.p99))
	}
	if c, ok := closed["http"]; ok {
		fmt.Fprintf(w, "\nTarget (http, 10 clients closed loop): ≥ %d cmds/s with p99 ≤ %v: %s (%.0f cmds/s, p99 %.2f ms)\n",
			httpTargetRate, httpTargetP99, verdictOf(c.achieved >= httpTargetRate && c.p99 <= httpTargetP99), c.achieved, ms(c.p99))
	}
	cv, peer := sustained["clearvest"], sustained["peer"]
	if _, ok := closed["clearvest"]; ok && len(rates) > 0 {
		verdict := func(ok bool) string {
			if ok {
				return "met"
			}
			return "missed"
		}
		fmt.Fprintf(w, "\nTargets (clearvest): ≥ %d cmds/s sustained with p99 ≤ %v: %s (%.0f)", targetRate, targetP99, verdict(cv >= targetRate), cv)
		if _, ok := closed["peer"]; ok {
			ratio := cv / max(peer, 1)
			fmt.Fprintf(w, "; ≥ %.1f× the peer: %s (%.2f× sustained; closed loop %.2f×)", targetRatio, verdict(peer > 0 && ratio >= targetRatio),
				ratio, closed["clearvest"].achieved/max(closed["peer"].achieved, 1))
		}
		fmt.Fprintln(w)
		if len(rates) > 0 && cv == rates[len(rates)-1] {
			fmt.Fprintf(w, "(clearvest sustained the highest rate offered; offer more with -rates to find its limit)\n")
		}
	}
}

func verdictOf(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

func parseRates(s string) ([]float64, error) {
	var out []float64
	if strings.TrimSpace(s) == "" {
		return nil, nil // closed loop only
	}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("-rates: %q is not a positive number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// createDatabase makes a fresh database on the admin URL's server and returns its URL and a
// function that drops it.
// dbPrefix starts the names of the databases cmdbench creates (DB_PREFIX, default cmdbench).
var dbPrefix = cmp.Or(os.Getenv("DB_PREFIX"), "cmdbench")

func createDatabase(ctx context.Context, admin, tag string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", redact(admin), err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := dbPrefix + "_" + tag + "_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cmdbench: drop %s: %v\n", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "cmdbench: drop %s: %v\n", name, err)
		}
	}
	return u.String(), drop, nil
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the database URL"
	}
	return u.Redacted()
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

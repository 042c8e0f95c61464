package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"clearvest/eventstore/postgres"
	"clearvest/projections"
)

func runProjections(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: projections needs status, rebuild, retry or skip", errUsage)
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("projections "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "rebuild every projection")
	jobs := fs.Int("jobs", defaultRebuildJobs, "rebuild: how many projections to rebuild at once")
	interval := fs.Duration("interval", time.Second, "status: time between the two samples used for the rate")
	position := fs.Int64("position", 0, "skip: position of the event to pass")
	reason := fs.String("reason", "", "skip: why the event is passed, kept with it")
	by := fs.String("by", "", "retry, skip: who decides (default: the operating-system user)")
	names, err := parseInterspersed(fs, rest)
	if err != nil {
		return fmt.Errorf("%w: projections %s: %v", errUsage, sub, err)
	}
	switch sub {
	case "status":
		if len(names) > 0 || *all {
			return fmt.Errorf("%w: projections status takes no arguments", errUsage)
		}
	case "rebuild":
		if *all == (len(names) > 0) {
			return fmt.Errorf("%w: projections rebuild needs either projection names or --all", errUsage)
		}
		if *jobs < 1 {
			return fmt.Errorf("%w: projections rebuild --jobs must be at least 1", errUsage)
		}
	case "retry", "skip":
		if len(names) != 1 || *all {
			return fmt.Errorf("%w: projections %s needs exactly one projection name", errUsage, sub)
		}
		if sub == "skip" && (*position == 0 || *reason == "") {
			return fmt.Errorf("%w: projections skip needs --position and --reason", errUsage)
		}
		if *by == "" {
			if *by = operator(); *by == "" {
				return fmt.Errorf("%w: projections %s: no operating-system user name; say who decides with --by", errUsage, sub)
			}
		}
	default:
		return fmt.Errorf("%w: unknown projections command %q", errUsage, sub)
	}

	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	pool, _, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := requireSchema(ctx, pool, projections.Migrations); err != nil {
		return err
	}
	codec, _, err := newCodec(ctx, pool, cfg)
	if err != nil {
		return err
	}
	store := postgres.New(pool, postgres.WithLogger(logger))
	defer store.Close()
	runner, err := projections.NewRunner(pool, store, allProjections(codec), projections.WithLogger(logger))
	if err != nil {
		return err
	}
	switch sub {
	case "status":
		if err := printStatus(ctx, runner, stdout, *interval); err != nil {
			return err
		}
		return printReactors(ctx, pool, store, stdout)
	case "retry":
		f, err := runner.Retry(ctx, names[0], *by)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: the runners will try the event at position %d again (%s, %s in %s; failed %d time(s)).\n"+
			"Run clearvest projections status to see whether it passes.\n", names[0], f.Position, f.EventID, f.EventType, f.StreamID, f.Attempts)
		return nil
	case "skip":
		s, err := runner.Skip(ctx, projections.SkipRequest{Name: names[0], Position: *position, Reason: *reason, By: *by})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: the event at position %d (%s, %s in %s) is skipped, recorded as decided by %s.\n",
			names[0], s.Position, s.EventID, s.EventType, s.StreamID, s.By)
		if s.Applied {
			fmt.Fprintf(stdout, "The live read model had applied it already; it stays there, and rebuilds will pass it.\n")
		}
		return nil
	}
	if *all {
		names = runner.Names()
	}
	if err := runner.Prepare(ctx); err != nil {
		return withSkipHint(err)
	}
	return rebuildAll(ctx, runner, names, *jobs, stdout)
}

// defaultRebuildJobs is how many projections `projections rebuild` rebuilds at once. Each
// rebuild alternates between decoding and applying in this process and writing in the
// database's, so two at once keep both busy: on two cores, three of the money read models
// rebuilt in 61 s two at a time against 88 s one after another.
const defaultRebuildJobs = 2

// rebuildAll rebuilds the named projections, jobs at a time, each reported as it finishes. The
// first failure stops the others; their read models stay as they were (Rebuild swaps a new one
// in only when it is complete).
func rebuildAll(ctx context.Context, runner *projections.Runner, names []string, jobs int, stdout io.Writer) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	var mu sync.Mutex
	for _, name := range names {
		g.Go(func() error {
			res, err := runner.Rebuild(ctx, name)
			if err != nil {
				return withSkipHint(err)
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stdout, "%s: rebuilt from %d events in %s (%.0f events/s), now at position %d\n",
				name, res.Events, res.Duration.Round(time.Millisecond), res.EventsPerSecond(), res.Position)
			return nil
		})
	}
	return g.Wait()
}

// parseInterspersed parses flags that may come before or after the positional arguments
// ("skip users --position 5" as well as "skip --position 5 users"), which flag.Parse alone
// does not allow.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// operator names who runs the command when --by is not given.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// withSkipHint adds to an event a projection refused how to get past it.
func withSkipHint(err error) error {
	var refused *projections.EventError
	if !errors.As(err, &refused) {
		return err
	}
	return fmt.Errorf("%w\nfix the projection, or pass the event with:\n  clearvest projections skip %s --position %d --reason \"...\"",
		err, refused.Projection, refused.Event.Position)
}

// printStatus samples twice so the rate is measured, not estimated.
func printStatus(ctx context.Context, runner *projections.Runner, w io.Writer, interval time.Duration) error {
	first, err := runner.Status(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(interval):
	}
	second, err := runner.Status(ctx)
	if err != nil {
		return err
	}
	elapsed := time.Since(start).Seconds()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROJECTION\tSTATE\tPOSITION\tHEAD\tLAG EVENTS\tLAG SECONDS\tRATE EVENTS/S\tAPPLIED\t")
	for i, s := range second {
		rate := float64(s.EventsApplied-first[i].EventsApplied) / elapsed
		if rate < 0 { // a rebuild reset the counter between samples
			rate = 0
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.1f\t%.0f\t%d\t\n", s.Name, s.State, s.Position, s.Head, s.LagEvents, s.LagSeconds, rate, s.EventsApplied)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range second {
		printDetails(w, s)
	}
	return nil
}

// printReactors lists the reactors (process managers) and how far behind the log each is.
func printReactors(ctx context.Context, pool *pgxpool.Pool, store *postgres.Store, w io.Writer) error {
	reactors, err := projections.ReactorStatuses(ctx, pool, store)
	if err != nil || len(reactors) == 0 {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "REACTOR\tPOSITION\tHEAD\tLAG EVENTS\tLAG SECONDS\tLAST BATCH\t")
	for _, r := range reactors {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%s\t\n", r.Name, r.Position, r.Head, r.LagEvents, r.LagSeconds, r.UpdatedAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

// printDetails says what keeps a projection from running and which events it skips.
func printDetails(w io.Writer, s projections.Status) {
	if s.Mismatch != "" {
		fmt.Fprintf(w, "\n%s stood down in this binary: %s.\n", s.Name, s.Mismatch)
	}
	if f := s.Failure; f != nil {
		fmt.Fprintf(w, "\n%s failed at position %d: event %s (%s in %s), %d attempt(s), first %s, last %s.\n",
			s.Name, f.Position, f.EventID, f.EventType, f.StreamID, f.Attempts, f.FirstFailedAt.UTC().Format(time.RFC3339), f.FailedAt.UTC().Format(time.RFC3339))
		fmt.Fprintf(w, "  error: %s\n", strings.ReplaceAll(f.Error, "\n", "\n    "))
		if f.Parked() {
			fmt.Fprintf(w, "  after a fix, or once the cause is gone: clearvest projections retry %s\n", s.Name)
			fmt.Fprintf(w, "  to pass the event instead:             clearvest projections skip %s --position %d --reason \"...\"\n", s.Name, f.Position)
		} else {
			fmt.Fprintf(w, "  retry requested by %s at %s; the runner has not passed the event yet.\n", f.RetryRequestedBy, f.RetryRequestedAt.UTC().Format(time.RFC3339))
		}
	}
	if len(s.Skips) > 0 {
		fmt.Fprintf(w, "\n%s skips %d event(s):\n", s.Name, len(s.Skips))
		for _, k := range s.Skips {
			note := ""
			if k.Applied {
				note = " (applied by the live read model before the skip; rebuilds pass it)"
			}
			fmt.Fprintf(w, "  position %d: event %s (%s in %s), skipped by %s at %s%s: %s\n",
				k.Position, k.EventID, k.EventType, k.StreamID, k.By, k.At.UTC().Format(time.RFC3339), note, k.Reason)
			if k.Error != "" {
				first, _, _ := strings.Cut(k.Error, "\n")
				fmt.Fprintf(w, "    it had failed with: %s\n", first)
			}
		}
	}
}

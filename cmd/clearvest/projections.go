package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"clearvest/eventstore/postgres"
	"clearvest/projections"
)

func runProjections(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: projections needs status or rebuild", errUsage)
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("projections "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "rebuild every projection")
	interval := fs.Duration("interval", time.Second, "status: time between the two samples used for the rate")
	if err := fs.Parse(rest); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	var names []string
	switch sub {
	case "status":
		if fs.NArg() > 0 || *all {
			return fmt.Errorf("%w: projections status takes no arguments", errUsage)
		}
	case "rebuild":
		names = fs.Args()
		if *all == (len(names) > 0) {
			return fmt.Errorf("%w: projections rebuild needs either projection names or --all", errUsage)
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
	if sub == "status" {
		return printStatus(ctx, runner, stdout, *interval)
	}
	if *all {
		names = runner.Names()
	}
	if err := runner.Prepare(ctx); err != nil {
		return err
	}
	for _, name := range names {
		res, err := runner.Rebuild(ctx, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: rebuilt from %d events in %s (%.0f events/s), now at position %d\n",
			name, res.Events, res.Duration.Round(time.Millisecond), res.EventsPerSecond(), res.Position)
	}
	return nil
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
	fmt.Fprintln(tw, "PROJECTION\tPOSITION\tHEAD\tLAG EVENTS\tLAG SECONDS\tRATE EVENTS/S\tAPPLIED\t")
	for i, s := range second {
		rate := float64(s.EventsApplied-first[i].EventsApplied) / elapsed
		if rate < 0 { // a rebuild reset the counter between samples
			rate = 0
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%.0f\t%d\t\n", s.Name, s.Position, s.Head, s.LagEvents, s.LagSeconds, rate, s.EventsApplied)
	}
	return tw.Flush()
}

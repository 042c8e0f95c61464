package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"clearvest/platform/config"
	"clearvest/platform/pgembed"
)

const postgresUsage = `Usage: clearvest postgres start|stop|status|url [--data-dir DIR]

  start    start the data directory's PostgreSQL cluster (creating it on first use) and leave
           it running after this command exits; prints its URL
  stop     stop it, whichever process started it
  status   say whether it runs, and where; exits 1 when it does not
  url      print the URL of the running cluster; exits 1 when it does not run

  --data-dir DIR   the data directory (default: $CLEARVEST_DATA_DIR, else ./data)
`

// runPostgres manages the embedded cluster from the outside: scripts start one for a test run,
// and operators inspect or stop the one a crashed `serve` left behind.
func runPostgres(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: postgres: missing subcommand (start, stop, status or url)", errUsage)
	}
	sub := args[0]
	switch sub {
	case "start", "stop", "status", "url":
	case "help", "-h", "--help":
		fmt.Fprint(stdout, postgresUsage)
		return nil
	default:
		return fmt.Errorf("%w: postgres: unknown subcommand %q (want start, stop, status or url)", errUsage, sub)
	}

	fs := flag.NewFlagSet("postgres "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, postgresUsage)
			return nil
		}
		return fmt.Errorf("%w: postgres %s: %v", errUsage, sub, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: postgres %s: unexpected argument %q", errUsage, sub, fs.Arg(0))
	}
	dir := *dataDir
	if dir == "" {
		// Only the data directory matters here; a full config.Load would refuse to stop a
		// cluster just because, say, production secrets are not in this shell's environment.
		var err error
		if dir, err = config.DataDir(os.Getenv); err != nil {
			return err
		}
	}
	opt := pgembed.Options{DataDir: dir, Logger: logger}

	switch sub {
	case "start":
		c, err := pgembed.Start(ctx, opt)
		if err != nil {
			return fmt.Errorf("postgres start: %w", err)
		}
		fmt.Fprintln(stdout, c.URL())
	case "stop":
		err := pgembed.Shutdown(ctx, opt)
		if errors.Is(err, pgembed.ErrNotRunning) {
			// Stopping what is already stopped succeeds, so cleanup traps can call it blindly.
			logger.Info("embedded PostgreSQL was not running", "data_dir", dir)
			return nil
		}
		if err != nil {
			return fmt.Errorf("postgres stop: %w", err)
		}
	case "status", "url":
		c, err := pgembed.Attach(ctx, opt)
		if err != nil {
			return fmt.Errorf("postgres %s: %w: %s", sub, err, dir)
		}
		if sub == "url" {
			fmt.Fprintln(stdout, c.URL())
		} else {
			fmt.Fprintf(stdout, "running: pid %d, 127.0.0.1:%d, cluster %s, log %s\n", c.PID(), c.Port(), c.Dir(), c.LogFile())
		}
	}
	return nil
}

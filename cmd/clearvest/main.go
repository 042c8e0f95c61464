// Command clearvest is the single Clearvest binary: the web server and every operator tool.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

const usage = `clearvest — fixed-term crypto savings plans

Usage:
  clearvest serve                         start the web server (embedded PostgreSQL unless DATABASE_URL is set)
  clearvest migrate                       apply database migrations (after a restore into another
                                          cluster, also move event positions on) and exit
  clearvest admin create --email E --password P --name N
                                          create an admin account (e-mail already verified)
  clearvest seed                          create the DEMO accounts (development only) and print their logins
  clearvest projections status            state, position, lag and rate of every projection,
                                          failed and skipped events
  clearvest projections rebuild NAME|--all
                                          rebuild read models from position 0 and swap them in
  clearvest projections retry NAME [--by WHO]
                                          try a projection's failed event again (after a fix)
  clearvest projections skip NAME --position P --reason TEXT [--by WHO]
                                          pass one event without applying it, recording why
  clearvest events export --stream S | --all
                                          write events as JSON lines to standard output
  clearvest events verify                 replay every event through the codec and check invariants
  clearvest events books [--position P]   the trial balance and reconciliation folded from the log
  clearvest kyc purge --older-than DURATION
                                          delete identity document files of closed accounts and of
                                          checks decided longer ago than DURATION (e.g. 90d)
  clearvest keys rotate                   seal every stored key and secret with the current CLEARVEST_SECRET_KEY
  clearvest postgres start|stop|status|url
                                          manage the embedded PostgreSQL cluster of the data directory

Configuration comes from the environment (DATABASE_URL, CLEARVEST_ADDR, CLEARVEST_DATA_DIR, ...);
see README.md.
`

// errUsage marks errors caused by how the command was called (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		fmt.Fprintf(os.Stderr, "clearvest: %v\n\n%s", err, usage)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "clearvest: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return nil
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	slog.SetDefault(logger)
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, stdout, logger)
	case "migrate":
		return runMigrate(ctx, rest, stdout, logger)
	case "admin":
		return runAdmin(ctx, rest, stdout, logger)
	case "seed":
		return runSeed(ctx, rest, stdout, logger)
	case "projections":
		return runProjections(ctx, rest, stdout, logger)
	case "events":
		return runEvents(ctx, rest, stdout, logger)
	case "keys":
		return runKeys(ctx, rest, stdout, logger)
	case "kyc":
		return runKYC(ctx, rest, stdout, logger)
	case "postgres":
		return runPostgres(ctx, rest, stdout, logger)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
	}
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"clearvest/projections"
)

const kycUsage = `Usage: clearvest kyc purge --older-than DURATION

Deletes the identity document files of closed accounts, and of submissions decided more than
DURATION ago (for example 90d, 720h), and records each deletion on the user's stream: the case
then shows the file as deleted and downloads answer 410. Prints what it deleted. Safe to run
while serve is running, and again after an interruption.
`

func runKYC(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 || args[0] != "purge" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, kycUsage)
			return nil
		}
		return fmt.Errorf("%w: kyc needs a subcommand: purge", errUsage)
	}
	fs := flag.NewFlagSet("kyc purge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	olderThan := fs.String("older-than", "", "retention period, e.g. 90d or 720h")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, kycUsage)
			return nil
		}
		return fmt.Errorf("%w: kyc purge: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: kyc purge: unexpected argument %q", errUsage, fs.Arg(0))
	}
	period, err := parseRetention(*olderThan)
	if err != nil {
		return fmt.Errorf("%w: kyc purge --older-than: %v", errUsage, err)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	ident, done, err := openIdentity(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer done()
	// Which users to look at comes from the users read model: bring it up to date first, as a
	// server would (safe beside a running one: projections take turns).
	runner, err := projections.NewRunner(ident.pool, ident.store, allProjections(ident.codec), projections.WithLogger(logger))
	if err != nil {
		return err
	}
	if err := runner.Prepare(ctx); err != nil {
		return withSkipHint(err)
	}
	if err := runner.CatchUp(ctx); err != nil {
		return withSkipHint(err)
	}
	deleted, err := ident.kyc.Purge(ctx, period)
	count := 0
	for _, d := range deleted {
		count += len(d.Documents)
		var docs []string
		for _, ref := range d.Documents {
			docs = append(docs, fmt.Sprintf("%d/%s", ref.Submission, ref.Side))
		}
		fmt.Fprintf(stdout, "deleted %s of user %s (%s)\n", strings.Join(docs, ", "), d.UserID, d.Reason)
	}
	fmt.Fprintf(stdout, "%d user(s), %d document(s) deleted\n", len(deleted), count)
	return err
}

// parseRetention reads a period as Go durations are written, plus whole days ("90d").
func parseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("a retention period is required, e.g. 90d")
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, err
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not a positive period", s)
	}
	return d, nil
}

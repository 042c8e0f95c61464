package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"clearvest/app/accounts"
)

const adminUsage = `Usage: clearvest admin create --email E --password P --name N

Creates an admin account with a verified e-mail address. The password must meet the usual
policy (at least 8 characters, not a common password). Works while serve is running.
`

func runAdmin(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 || args[0] != "create" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, adminUsage)
			return nil
		}
		return fmt.Errorf("%w: admin needs a subcommand: create", errUsage)
	}
	fs := flag.NewFlagSet("admin create", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("email", "", "e-mail address")
	password := fs.String("password", "", "password")
	name := fs.String("name", "", "display name")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, adminUsage)
			return nil
		}
		return fmt.Errorf("%w: admin create: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: admin create: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if strings.TrimSpace(*email) == "" || *password == "" || strings.TrimSpace(*name) == "" {
		return fmt.Errorf("%w: admin create needs --email, --password and --name", errUsage)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	svc, done, err := openAccounts(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer done()
	u, err := svc.CreateUser(ctx, accounts.CreateUserInput{
		Name: *name, Email: *email, Password: *password, Role: "admin", Verified: true,
	})
	if err != nil {
		return fmt.Errorf("admin create: %w", err)
	}
	fmt.Fprintf(stdout, "created admin %s (%s)\n", u.Email, u.ID)
	return nil
}

package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"clearvest/domain/clock"

	"clearvest/app/accounts"
	appkyc "clearvest/app/kyc"
	"clearvest/app/money"
	"clearvest/eventstore/postgres"
	"clearvest/platform/config"
	"clearvest/platform/pgmigrate"
)

// The demo seed gives a fresh development installation three accounts to try the product with:
// an admin; an investor with a sample money history (seedmoney.go: deposits confirmed and
// waiting, an approved identity check, a running investment, a withdrawal waiting for staff); and
// a sample applicant whose (sample) documents wait in the staff queue; and the demo plans
// (seedplans.go).
// Their passwords are generated per data directory (never fixed strings that would work on
// every developer's machine, or on a server someone forgot to switch to production) and kept
// in <data>/demo-logins.txt, readable only by its owner, so `serve` can print them at every
// start.

// DemoLoginsFile holds the demo accounts' credentials, relative to the data directory.
const DemoLoginsFile = "demo-logins.txt"

type demoLogin struct {
	Role, Name, Email, Password string
	// sampleKYC submits sample identity documents for the account when it is created.
	sampleKYC bool
	// sampleMoney gives the account the sample money history (seedmoney.go), decided by the demo
	// admin.
	sampleMoney bool
}

var demoAccounts = []demoLogin{
	{Role: "admin", Name: "Demo Admin", Email: "admin@clearvest.local"},
	{Role: "subscriber", Name: "Demo Investor", Email: "investor@clearvest.local", sampleMoney: true},
	{Role: "subscriber", Name: "Sample Applicant", Email: "applicant@clearvest.local", sampleKYC: true},
}

const seedUsage = `Usage: clearvest seed

Creates the demo accounts and, while the plan catalogue is empty, the demo plans (development
only) unless they exist, and prints the accounts' logins. serve does this by itself on the first
start of a development data directory.
`

func runSeed(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, seedUsage)
			return nil
		}
		return fmt.Errorf("%w: seed: %v", errUsage, err)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	// Demo accounts only where development was chosen on purpose: an unset CLEARVEST_ENV
	// pointed at a real database must not fill it with them.
	if !cfg.DevelopmentChosen() {
		return fmt.Errorf("seed: demo accounts are for development only; set %s=%s (it is %q)", config.EnvEnv, config.Development, cfg.Env)
	}
	ident, done, err := openIdentity(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer done()
	// The plans first: the demo investor's sample investment is in one of them.
	if err := seedDemoPlans(ctx, ident.plans, logger); err != nil {
		return err
	}
	logins, err := seedDemo(ctx, cfg, ident.accounts, ident.kyc, ident.money, logger)
	if err != nil {
		return err
	}
	printDemoLogins(stdout, logins, cfg.PublicURL, true)
	return nil
}

// openAccounts is the accounts service for a CLI tool: the database of the configuration
// (the running server's embedded cluster, if there is one), migrated.
func openAccounts(ctx context.Context, cfg config.Config, logger *slog.Logger) (*accounts.Service, func(), error) {
	ident, done, err := openIdentity(ctx, cfg, logger)
	if err != nil {
		return nil, nil, err
	}
	return ident.accounts, done, nil
}

// openIdentity is openAccounts with the parts beneath the service (the personal-data cipher).
func openIdentity(ctx context.Context, cfg config.Config, logger *slog.Logger) (identityParts, func(), error) {
	pool, _, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return identityParts{}, nil, err
	}
	// Writing tools migrate (it is safe while serve runs): `admin create` is often the very
	// first command run against a new database.
	if err := pgmigrate.Apply(ctx, pool, allMigrations()...); err != nil {
		closeDB()
		return identityParts{}, nil, err
	}
	codec, cipher, err := newCodec(ctx, pool, cfg)
	if err != nil {
		closeDB()
		return identityParts{}, nil, err
	}
	store := postgres.New(pool, postgres.WithLogger(logger))
	ident, err := newIdentity(ctx, cfg, clock.System(), pool, store, codec, cipher, nil, logger)
	if err != nil {
		store.Close()
		closeDB()
		return identityParts{}, nil, err
	}
	return ident, func() { store.Close(); closeDB() }, nil
}

// seedDemo creates the demo accounts the first time a development data directory is used and
// returns their logins; afterwards it returns the logins recorded then. If the accounts exist
// but the file was deleted, nothing is recreated: their passwords are unknown, and printing
// new ones that do not work would mislead. Without a kyc service no sample documents are sent,
// and without a money service no sample deposits are made.
func seedDemo(ctx context.Context, cfg config.Config, svc *accounts.Service, kycSvc *appkyc.Service, moneySvc *money.Service,
	logger *slog.Logger) ([]demoLogin, error) {
	path := filepath.Join(cfg.DataDir, DemoLoginsFile)
	if logins, err := readDemoLogins(path); err == nil {
		return logins, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var created []demoLogin
	var adminID string
	type investor struct{ id, name string }
	var sampleMoney []investor // accounts to give the sample money history
	for _, d := range demoAccounts {
		d.Password = demoPassword()
		u, err := svc.CreateUser(ctx, accounts.CreateUserInput{
			Name: d.Name, Email: d.Email, Password: d.Password, Role: d.Role, Verified: true,
		})
		if errors.Is(err, accounts.ErrEmailTaken) {
			logger.Info("demo account exists already; its password is not in the data directory", "email", d.Email)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("creating demo account %s: %w", d.Email, err)
		}
		if d.Role == "admin" {
			adminID = u.ID
		}
		if d.sampleMoney {
			sampleMoney = append(sampleMoney, investor{id: u.ID, name: d.Name})
		}
		if d.sampleKYC && kycSvc != nil {
			if err := submitSampleKYC(ctx, kycSvc, u.ID, d.Name); err != nil {
				return nil, err
			}
		}
		created = append(created, demoLogin{Role: d.Role, Name: d.Name, Email: d.Email, Password: d.Password})
	}
	if moneySvc != nil && adminID != "" {
		for _, inv := range sampleMoney {
			if err := seedDemoMoney(ctx, moneySvc, kycSvc, inv.id, adminID, inv.name); err != nil {
				return nil, err
			}
		}
	}
	if len(created) == 0 {
		return nil, nil
	}
	if err := writeDemoLogins(path, created); err != nil {
		return nil, err
	}
	return created, nil
}

// demoPassword is 20 random characters from an alphabet without look-alikes, in groups for
// reading aloud: about 100 bits, and never on a common-password list.
func demoPassword() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%5 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return sb.String()
}

const demoHeader = "# Clearvest DEMO logins for this development data directory. Not for production.\n"

func writeDemoLogins(path string, logins []demoLogin) error {
	var sb strings.Builder
	sb.WriteString(demoHeader)
	for _, l := range logins {
		fmt.Fprintf(&sb, "%s\t%s\t%s\t%s\n", l.Role, l.Email, l.Password, l.Name)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func readDemoLogins(path string) ([]demoLogin, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []demoLogin
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.SplitN(line, "\t", 4)
		if len(parts) != 4 {
			return nil, fmt.Errorf("malformed line %q", line)
		}
		out = append(out, demoLogin{Role: parts[0], Email: parts[1], Password: parts[2], Name: parts[3]})
	}
	return out, sc.Err()
}

// printDemoLogins shows the demo logins under the server's URL.
func printDemoLogins(w io.Writer, logins []demoLogin, base string, mailbox bool) {
	if len(logins) == 0 {
		return
	}
	fmt.Fprintln(w, "\nDEMO logins (development only; also in the data directory's "+DemoLoginsFile+"):")
	for _, l := range logins {
		fmt.Fprintf(w, "  %-10s %-26s %s\n", l.Role, l.Email, l.Password)
	}
	if mailbox {
		fmt.Fprintf(w, "E-mails (verification links, login codes for new browsers): %s/api/dev/mail\n", base)
	}
	fmt.Fprintln(w)
}

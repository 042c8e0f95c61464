package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/platform/config"
	"clearvest/platform/pgtest"
)

func TestSeedDemoCreatesLoginsOnce(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	cfg := config.Config{DataDir: t.TempDir(), Env: config.Development}
	logger := slog.New(slog.DiscardHandler)

	first, err := seedDemo(testCtx(t), cfg, env.Accounts, nil, nil, logger)
	if err != nil || len(first) != len(demoAccounts) {
		t.Fatalf("seed: %v, %d logins", err, len(first))
	}
	path := filepath.Join(cfg.DataDir, DemoLoginsFile)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, mode %v; want 0600", path, err, st.Mode())
	}
	for _, l := range first {
		// A correct password on a new browser answers "new device": the login works.
		_, err := env.Accounts.Login(testCtx(t), accounts.LoginInput{Email: l.Email, Password: l.Password}, accounts.Client{})
		if !errors.Is(err, accounts.ErrNewDevice) {
			t.Errorf("demo login %s: %v", l.Email, err)
		}
	}
	again, err := seedDemo(testCtx(t), cfg, env.Accounts, nil, nil, logger)
	if err != nil || len(again) != len(first) || again[0] != first[0] || again[1] != first[1] || again[2].Password != first[2].Password {
		t.Fatalf("second start: %v %+v, want the same logins", err, again)
	}
	var out bytes.Buffer
	printDemoLogins(&out, again, "http://localhost:8080", true)
	for _, want := range []string{"DEMO", "admin@clearvest.local", "investor@clearvest.local", "applicant@clearvest.local", first[0].Password, "/api/dev/mail"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed logins lack %q:\n%s", want, out.String())
		}
	}
	// With the file gone the accounts exist but their passwords are unknown: nothing is printed
	// rather than passwords that do not work.
	_ = os.Remove(path)
	if none, err := seedDemo(testCtx(t), cfg, env.Accounts, nil, nil, logger); err != nil || len(none) != 0 {
		t.Errorf("after deleting the file: %v %+v", err, none)
	}
}

// TestAdminCreate drives `clearvest admin create` as an operator would. It sets environment
// variables, so it cannot run in parallel.
func TestAdminCreate(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	dir := t.TempDir()
	t.Setenv("CLEARVEST_DATA_DIR", dir)
	t.Setenv("CLEARVEST_SECRET_KEY", base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	t.Setenv("CLEARVEST_ENV", "development")
	t.Setenv("CLEARVEST_MAIL_URL", "file://"+filepath.ToSlash(filepath.Join(dir, "mail")))
	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(testCtx(t), args, &out, io.Discard)
		return out.String(), err
	}
	if _, err := cli("admin", "create", "--email", "boss@example.com"); !errors.Is(err, errUsage) {
		t.Errorf("missing flags: %v, want a usage error", err)
	}
	out, err := cli("admin", "create", "--email", "boss@example.com", "--password", "run the whole show", "--name", "The Boss")
	if err != nil || !strings.HasPrefix(out, "created admin boss@example.com") {
		t.Fatalf("admin create: %v %q", err, out)
	}
	if _, err := cli("admin", "create", "--email", "BOSS@example.com", "--password", "run the whole show", "--name", "Twin"); err == nil {
		t.Error("a second account with the same address was created")
	}
	if _, err := cli("admin", "create", "--email", "weak@example.com", "--password", "password", "--name", "Weak"); err == nil {
		t.Error("a common password was accepted")
	}
	out, err = cli("seed")
	if err != nil || !strings.Contains(out, "admin@clearvest.local") {
		t.Errorf("seed: %v %q", err, out)
	}
}

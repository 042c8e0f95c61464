package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clearvest/platform/config"
)

// production is a complete production configuration; tests change one thing each.
func production(dataDir string) map[string]string {
	return map[string]string{
		"CLEARVEST_ENV":               "production",
		"CLEARVEST_DATA_DIR":          dataDir,
		"CLEARVEST_SECRET_KEY":        validKey(),
		"CLEARVEST_MAIL_URL":          "smtp://mailer:pw@mail.example.com:587",
		"CLEARVEST_DEPOSIT_ADDRESSES": "BTC/BTC=3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
	}
}

func TestProductionRefusesDevelopmentStandIns(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	if _, err := config.Load(env(production(dataDir))); err != nil {
		t.Fatalf("a complete production configuration: %v", err)
	}

	// The data directory's generated development key is no production key.
	devDir := t.TempDir()
	dev, err := config.Load(env(map[string]string{"CLEARVEST_ENV": "development", "CLEARVEST_DATA_DIR": devDir}))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(devDir, config.SecretKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	prod := production(devDir)
	prod["CLEARVEST_SECRET_KEY"] = strings.TrimSpace(string(raw))
	_, err = config.Load(env(prod))
	wantErr(t, "the development key", err, "CLEARVEST_SECRET_KEY", config.SecretKeyFile, "openssl rand -base64 32")
	if len(dev.SecretKey) != 32 {
		t.Fatal("no development key")
	}
	// Another key beside that file is fine: the file alone proves nothing.
	prod["CLEARVEST_SECRET_KEY"] = validKey()
	if _, err := config.Load(env(prod)); err != nil {
		t.Errorf("a key of its own beside a development key file: %v", err)
	}

	// Each example address, alone or among real ones, in any letter case the network allows.
	examples, err := config.ParseDepositAddresses(config.ExampleDepositAddresses)
	if err != nil || len(examples) != 4 {
		t.Fatalf("examples: %v %v", err, examples)
	}
	for _, e := range examples {
		prod := production(dataDir)
		prod["CLEARVEST_DEPOSIT_ADDRESSES"] = "BTC/BTC=3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"
		if e.Asset != "BTC" {
			prod["CLEARVEST_DEPOSIT_ADDRESSES"] += ","
		} else {
			prod["CLEARVEST_DEPOSIT_ADDRESSES"] = ""
		}
		prod["CLEARVEST_DEPOSIT_ADDRESSES"] += string(e.Asset) + "/" + string(e.Network) + "=" + e.Address
		_, err := config.Load(env(prod))
		wantErr(t, "example "+e.Address, err, "CLEARVEST_DEPOSIT_ADDRESSES", e.Address, "example")
	}
	prod = production(dataDir)
	prod["CLEARVEST_DEPOSIT_ADDRESSES"] = "BTC/BTC=BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4"
	_, err = config.Load(env(prod))
	wantErr(t, "upper-case example", err, "CLEARVEST_DEPOSIT_ADDRESSES", "example")

	// No mail URL: production has no mailbox to fall back on.
	prod = production(dataDir)
	delete(prod, "CLEARVEST_MAIL_URL")
	_, err = config.Load(env(prod))
	wantErr(t, "no mail URL", err, "CLEARVEST_MAIL_URL", "required in production")

	// No secret key: none is generated for production.
	prod = production(dataDir)
	delete(prod, "CLEARVEST_SECRET_KEY")
	_, err = config.Load(env(prod))
	wantErr(t, "no secret key", err, "CLEARVEST_SECRET_KEY", "required in production")

	// Development keeps its examples usable (the deposit pages work out of the box).
	devExamples := map[string]string{"CLEARVEST_ENV": "development", "CLEARVEST_DATA_DIR": dataDir, "CLEARVEST_DEPOSIT_ADDRESSES": config.ExampleDepositAddresses}
	if _, err := config.Load(env(devExamples)); err != nil {
		t.Errorf("development with the examples: %v", err)
	}
}

func TestCheckServe(t *testing.T) {
	t.Parallel()
	load := func(m map[string]string) config.Config {
		t.Helper()
		m["CLEARVEST_DATA_DIR"] = t.TempDir()
		c, err := config.Load(env(m))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// Unset: the CLI tools work as in development, but serve names both ways forward.
	unset := load(map[string]string{"CLEARVEST_ADDR": "127.0.0.1:8080"})
	if unset.Env != config.Development || unset.DevelopmentChosen() || unset.DevTools() {
		t.Errorf("unset: env %q, chosen %v, tools %v", unset.Env, unset.DevelopmentChosen(), unset.DevTools())
	}
	wantErr(t, "unset", unset.CheckServe(), "CLEARVEST_ENV is not set", "CLEARVEST_ENV=production", "CLEARVEST_ENV=development", "CLEARVEST_ADDR=127.0.0.1:8080")

	// Development on every interface, the default address included.
	for _, addr := range []string{"", ":8080", "0.0.0.0:8080", "[::]:8080", "192.0.2.10:8080", "example.com:8080", "127.0.0.1.nip.io:8080"} {
		c := load(map[string]string{"CLEARVEST_ENV": "development", "CLEARVEST_ADDR": addr})
		if c.DevTools() {
			t.Errorf("%q: development tools on", addr)
		}
		wantErr(t, "development on "+addr, c.CheckServe(), "CLEARVEST_ADDR", "loopback", "CLEARVEST_ADDR=127.0.0.1:8080", "CLEARVEST_ENV=production")
	}

	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.1:0", "127.1.2.3:80", "[::1]:8080", "localhost:8080", "LOCALHOST:0", "[::ffff:127.0.0.1]:8080"} {
		c := load(map[string]string{"CLEARVEST_ENV": "development", "CLEARVEST_ADDR": addr})
		if err := c.CheckServe(); err != nil || !c.DevTools() {
			t.Errorf("%q: %v, tools %v; want development to serve", addr, err, c.DevTools())
		}
	}

	prod := production(t.TempDir())
	prod["CLEARVEST_ADDR"] = ":8080"
	c, err := config.Load(env(prod))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckServe(); err != nil || c.DevTools() {
		t.Errorf("production on :8080: %v, tools %v", err, c.DevTools())
	}
}

func TestLoopbackAddr(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.255.255.254:1": true, "[::1]:0": true, "localhost:8080": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "10.0.0.1:8080": false, "[fe80::1%lo]:8080": false,
		"localhost.example.com:8080": false, "127.0.0.1": false, "": false,
	} {
		if got := config.LoopbackAddr(addr); got != want {
			t.Errorf("LoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %q does not say %q", what, err, p)
		}
	}
}

package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/clock"
	"clearvest/platform/auth"
	"clearvest/platform/auth/internal/authtest"
	"clearvest/platform/auth/session"
)

func TestTrustedDevices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	devices := session.NewDevices(pool, c)
	alice, bob := uuid.New(), uuid.New()
	trust := func(user uuid.UUID, label string) (string, error) {
		token, sts := devices.TrustStatements(user, label)
		return token, auth.Exec(ctx, pool, sts...)
	}

	cookie, err := trust(alice, "Firefox on Linux")
	if err != nil {
		t.Fatal(err)
	}
	check := func(user uuid.UUID, token string, want bool) {
		t.Helper()
		got, err := devices.IsTrusted(ctx, user, token)
		if err != nil || got != want {
			t.Errorf("IsTrusted = %v, %v; want %v", got, err, want)
		}
	}
	check(alice, cookie, true)
	check(bob, cookie, false)
	check(alice, "", false)
	check(alice, cookie+"x", false)

	var stored bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM trusted_devices WHERE token_hash = $1)`, []byte(cookie)).Scan(&stored); err != nil || stored {
		t.Errorf("the device token is stored in plaintext (%v)", err)
	}

	c.Advance(session.DeviceLifetime - time.Hour)
	check(alice, cookie, true)
	c.Advance(time.Hour)
	check(alice, cookie, false)

	again, _ := trust(alice, "Firefox on Linux")
	other, _ := trust(alice, "Safari on iPhone")
	if err := auth.Exec(ctx, pool, session.ForgetAllStatement(alice)); err != nil {
		t.Fatal(err)
	}
	check(alice, again, false)
	check(alice, other, false)
}

func TestTrustedDevicesAreBoundedPerUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	devices := session.NewDevices(pool, c)
	user := uuid.New()
	trust := func(user uuid.UUID, label string) (string, error) {
		token, sts := devices.TrustStatements(user, label)
		return token, auth.Exec(ctx, pool, sts...)
	}
	var tokens []string
	for range 25 {
		c.Advance(time.Minute)
		tok, err := trust(user, "browser")
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM trusted_devices WHERE user_id = $1`, user).Scan(&n); err != nil || n != 20 {
		t.Errorf("%d trusted devices kept, want 20", n)
	}
	if ok, _ := devices.IsTrusted(ctx, user, tokens[0]); ok {
		t.Error("the least recently used device survived the bound")
	}
	if ok, _ := devices.IsTrusted(ctx, user, tokens[24]); !ok {
		t.Error("the newest device was dropped")
	}
}

func TestDeviceLabel(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36":                         "Chrome on Windows",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0":           "Edge on Windows",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15":                      "Safari on macOS",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1": "Safari on iPhone",
		"Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0":                                                                  "Firefox on Linux",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36":                   "Chrome on Android",
		"curl/8.5.0": "Unknown device",
		"":           "Unknown device",
	}
	for ua, want := range tests {
		if got := session.DeviceLabel(ua); got != want {
			t.Errorf("DeviceLabel(%q) = %q, want %q", ua, got, want)
		}
	}
}

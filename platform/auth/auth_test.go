package auth_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"regexp"
	"slices"
	"testing"

	"clearvest/platform/auth"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

var secret = bytes.Repeat([]byte{0x5A}, 32)

func TestDeriveKey(t *testing.T) {
	t.Parallel()
	a, err := auth.DeriveKey(secret, "purpose a")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := auth.DeriveKey(secret, "purpose a")
	b, _ := auth.DeriveKey(secret, "purpose b")
	other, _ := auth.DeriveKey(bytes.Repeat([]byte{1}, 32), "purpose a")
	if len(a) != 32 || !bytes.Equal(a, again) {
		t.Fatalf("DeriveKey is not a deterministic 32-byte key: %x / %x", a, again)
	}
	if bytes.Equal(a, b) || bytes.Equal(a, other) || bytes.Equal(a, secret) {
		t.Error("keys for different purposes or secrets coincide, or equal the secret")
	}
	if _, err := auth.DeriveKey(secret[:31], "x"); err == nil {
		t.Error("a 31-byte secret was accepted")
	}
	if id := auth.KeyID(a); !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(id) || id == auth.KeyID(b) {
		t.Errorf("KeyID = %q", id)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	a, b := auth.NewToken(), auth.NewToken()
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(a) || a == b {
		t.Errorf("NewToken = %q, %q", a, b)
	}
	sum := sha256.Sum256([]byte(a))
	if !bytes.Equal(auth.HashToken(a), sum[:]) {
		t.Error("HashToken is not SHA-256")
	}
}

func TestSealer(t *testing.T) {
	t.Parallel()
	s, err := auth.NewSealer("test seal", secret)
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte("JBSWY3DPEHPK3PXP")
	aad := []byte("user-1")
	sealed := s.Seal(plain, aad)
	if bytes.Contains(sealed, plain) {
		t.Fatal("sealed value contains the plaintext")
	}
	if bytes.Equal(sealed, s.Seal(plain, aad)) {
		t.Error("sealing twice gives the same bytes: the nonce is not random")
	}
	got, err := s.Open(sealed, aad)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v", got, err)
	}

	tampered := slices.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	for name, tc := range map[string]struct {
		sealed, aad []byte
	}{
		"other record": {sealed, []byte("user-2")},
		"tampered":     {tampered, aad},
		"truncated":    {sealed[:10], aad},
		"empty":        {nil, aad},
		"bad version":  {append([]byte{9}, sealed[1:]...), aad},
	} {
		if _, err := s.Open(tc.sealed, tc.aad); !errors.Is(err, auth.ErrUnseal) {
			t.Errorf("%s: Open = %v, want ErrUnseal", name, err)
		}
	}

	newSecret := bytes.Repeat([]byte{0x11}, 32)
	rotated, _ := auth.NewSealer("test seal", newSecret, secret)
	if got, err := rotated.Open(sealed, aad); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("a value sealed before rotation: %q, %v", got, err)
	}
	if _, err := s.Open(rotated.Seal(plain, aad), aad); !errors.Is(err, auth.ErrUnseal) {
		t.Error("a sealer without the new secret opened a value sealed with it")
	}
	otherPurpose, _ := auth.NewSealer("another seal", secret)
	if _, err := otherPurpose.Open(sealed, aad); !errors.Is(err, auth.ErrUnseal) {
		t.Error("a sealer for another purpose opened the value")
	}
}

// TestMigrations checks that the set applies (twice, as every start does) and creates the
// tables docs/identity.md promises, with their columns.
func TestMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	if auth.Migrations.Name != "auth" || len(auth.Migrations.Migrations) == 0 {
		t.Fatalf("Migrations = %s with %d scripts", auth.Migrations.Name, len(auth.Migrations.Migrations))
	}
	for range 2 {
		if err := pgmigrate.Apply(ctx, pool, auth.Migrations); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{
		"user_emails":        {"email_lower", "user_id"},
		"principals":         {"user_id", "role", "status", "updated_at"},
		"credentials":        {"user_id", "password_hash", "changed_at"},
		"sessions":           {"id", "user_id", "refresh_hash", "family_id", "created_at", "last_seen_at", "expires_at", "revoked_at", "revoked_reason", "ip", "user_agent", "device_id"},
		"trusted_devices":    {"id", "user_id", "token_hash", "created_at", "last_used_at"},
		"one_time_codes":     {"id", "user_id", "purpose", "code_hash", "expires_at", "attempts", "used_at", "created_at"},
		"totp":               {"user_id", "secret_sealed", "enabled_at", "recovery_hashes"},
		"rate_limits":        {"key", "window_start", "count"},
		"passkey_challenges": {"id_hash", "purpose", "user_id", "session_id", "rp_id", "origin", "data", "expires_at"},
	}
	for table, cols := range want {
		rows, err := pool.Query(ctx, `SELECT column_name FROM information_schema.columns WHERE table_name = $1`, table)
		if err != nil {
			t.Fatal(err)
		}
		var have []string
		for rows.Next() {
			var c string
			_ = rows.Scan(&c)
			have = append(have, c)
		}
		rows.Close()
		for _, c := range cols {
			if !slices.Contains(have, c) {
				t.Errorf("table %s lacks column %s (has %v)", table, c, have)
			}
		}
	}
}

// TestSealerReseal moves a value sealed with the previous secret over to the current one, after
// which a sealer without the previous secret opens it.
func TestSealerReseal(t *testing.T) {
	t.Parallel()
	newSecret := bytes.Repeat([]byte{0x22}, 32)
	old, _ := auth.NewSealer("test seal", secret)
	rotating, err := auth.NewSealer("test seal", newSecret, secret)
	if err != nil {
		t.Fatal(err)
	}
	current, _ := auth.NewSealer("test seal", newSecret)
	aad := []byte("user-1")
	sealed := old.Seal([]byte("seed"), aad)

	if rotating.SealedWithCurrent(sealed) || !old.SealedWithCurrent(sealed) {
		t.Error("SealedWithCurrent does not tell which secret sealed the value")
	}
	if ids := rotating.KeyIDs(); len(ids) != 2 || !bytes.Equal(ids[1], sealed[1:5]) || bytes.Equal(ids[0], ids[1]) {
		t.Errorf("KeyIDs = %x; want the current key's id, then the previous one's %x", ids, sealed[1:5])
	}
	resealed, err := rotating.Reseal(sealed, aad)
	if err != nil {
		t.Fatal(err)
	}
	if !rotating.SealedWithCurrent(resealed) || !bytes.Equal(resealed[1:5], rotating.KeyIDs()[0]) {
		t.Errorf("Reseal did not seal with the current secret")
	}
	if got, err := current.Open(resealed, aad); err != nil || string(got) != "seed" {
		t.Errorf("the resealed value with only the new secret: %q, %v", got, err)
	}
	if again, err := rotating.Reseal(resealed, aad); err != nil || !bytes.Equal(again, resealed) {
		t.Errorf("resealing a current value changed it (%v)", err)
	}
	if _, err := current.Reseal(sealed, aad); !errors.Is(err, auth.ErrUnseal) {
		t.Errorf("Reseal without the secret that sealed the value: %v, want ErrUnseal", err)
	}
	if _, err := rotating.Reseal(sealed, []byte("user-2")); !errors.Is(err, auth.ErrUnseal) {
		t.Errorf("Reseal for another record: %v, want ErrUnseal", err)
	}
}

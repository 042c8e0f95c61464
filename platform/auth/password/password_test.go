package password_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"clearvest/domain/domainerr"
	"clearvest/platform/auth/password"
)

// cheap keeps most tests fast; the format and logic do not depend on the cost.
var cheap = password.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashFormatAndVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := password.NewHasher(password.DefaultParams, 0)
	encoded, err := h.Hash(ctx, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	// 16-byte salt and 32-byte key are 22 and 43 characters of unpadded base64.
	phc := regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)
	if !phc.MatchString(encoded) {
		t.Fatalf("hash %q is not the expected PHC string", encoded)
	}
	ok, err := h.Verify(ctx, "correct horse battery staple", encoded)
	if err != nil || !ok {
		t.Errorf("Verify(right password) = %v, %v", ok, err)
	}
	ok, err = h.Verify(ctx, "correct horse battery stapler", encoded)
	if err != nil || ok {
		t.Errorf("Verify(wrong password) = %v, %v", ok, err)
	}
	if h.NeedsRehash(encoded) {
		t.Error("a hash with the current parameters needs a rehash")
	}
}

func TestSaltMakesHashesDiffer(t *testing.T) {
	t.Parallel()
	h := password.NewHasher(cheap, 0)
	a, _ := h.Hash(context.Background(), "same password")
	b, _ := h.Hash(context.Background(), "same password")
	if a == b {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
}

func TestVerifyUsesTheHashsOwnParameters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	old := password.NewHasher(password.Params{Memory: 128, Time: 3, Threads: 2, SaltLen: 16, KeyLen: 32}, 0)
	encoded, err := old.Hash(ctx, "hunter2hunter2")
	if err != nil {
		t.Fatal(err)
	}
	current := password.NewHasher(cheap, 0)
	if ok, err := current.Verify(ctx, "hunter2hunter2", encoded); err != nil || !ok {
		t.Errorf("Verify of a hash made with older parameters = %v, %v", ok, err)
	}
	if !current.NeedsRehash(encoded) {
		t.Error("a hash with other parameters does not need a rehash")
	}
}

func TestMalformedHashes(t *testing.T) {
	t.Parallel()
	h := password.NewHasher(cheap, 0)
	good, _ := h.Hash(context.Background(), "whatever-password")
	parts := strings.Split(good, "$")
	tests := map[string]string{
		"empty":               "",
		"bcrypt":              "$2a$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
		"argon2i":             strings.Replace(good, "argon2id", "argon2i", 1),
		"old version":         strings.Replace(good, "v=19", "v=16", 1),
		"huge memory":         strings.Replace(good, "m=64", "m=4194304", 1),
		"zero time":           strings.Replace(good, "t=1", "t=0", 1),
		"bad salt":            strings.Join([]string{parts[0], parts[1], parts[2], parts[3], "!!!", parts[5]}, "$"),
		"short key":           strings.Join([]string{parts[0], parts[1], parts[2], parts[3], parts[4], "AAAA"}, "$"),
		"extra field":         good + "$x",
		"trailing garbage":    strings.Replace(good, "p=1", "p=1x", 1),
		"non-canonical param": strings.Replace(good, "m=64", "m=064", 1),
	}
	for name, encoded := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ok, err := h.Verify(context.Background(), "whatever-password", encoded)
			if ok || !errors.Is(err, password.ErrMalformedHash) {
				t.Errorf("Verify = %v, %v; want ErrMalformedHash", ok, err)
			}
			if !h.NeedsRehash(encoded) {
				t.Error("an unreadable hash does not need a rehash")
			}
		})
	}
}

func TestTamperedHashDoesNotVerify(t *testing.T) {
	t.Parallel()
	h := password.NewHasher(cheap, 0)
	encoded, _ := h.Hash(context.Background(), "tamper-proof-pass")
	// Swap the key for another valid one: the format still parses, the password no longer fits.
	other, _ := h.Hash(context.Background(), "another-password")
	tampered := encoded[:strings.LastIndex(encoded, "$")] + other[strings.LastIndex(other, "$"):]
	if ok, err := h.Verify(context.Background(), "tamper-proof-pass", tampered); ok || err != nil {
		t.Errorf("Verify(tampered) = %v, %v", ok, err)
	}
}

// TestDummyVerifyCostsAsMuchAsVerify guards against an unknown e-mail answering faster than a
// wrong password. Each side takes its fastest of several runs, which is stable under load.
func TestDummyVerifyCostsAsMuchAsVerify(t *testing.T) {
	ctx := context.Background()
	h := password.NewHasher(password.DefaultParams, 0)
	encoded, _ := h.Hash(ctx, "some-password-1")
	fastest := func(f func()) time.Duration {
		best := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			f()
			best = min(best, time.Since(start))
		}
		return best
	}
	verify := fastest(func() { _, _ = h.Verify(ctx, "wrong-password", encoded) })
	dummy := fastest(func() { _ = h.DummyVerify(ctx, "wrong-password") })
	if dummy < verify/3 || dummy > verify*3 {
		t.Errorf("DummyVerify takes %v, Verify %v: an attacker can tell unknown accounts apart", dummy, verify)
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		password string
		personal []string
		want     error
	}{
		{"seven characters", "abc-123", nil, password.ErrTooShort},
		{"empty", "", nil, password.ErrTooShort},
		{"eight characters", "tr0ub4d&", nil, nil},
		{"counts characters, not bytes", "ééééééé", nil, password.ErrTooShort},
		{"eight multibyte characters", "ééééééée", nil, nil},
		{"128 characters", strings.Repeat("ab", 64), nil, nil},
		{"129 characters", strings.Repeat("ab", 64) + "c", nil, password.ErrTooLong},
		{"common", "password", nil, password.ErrTooCommon},
		{"common, other case", "PassWord123", nil, password.ErrTooCommon},
		{"keyboard walk", "qwerty123", nil, password.ErrTooCommon},
		{"digits", "12345678", nil, password.ErrTooCommon},
		{"word and year", "Summer2024", nil, password.ErrTooCommon},
		{"the e-mail", "Alice.Smith@example.com", []string{"alice.smith@example.com", "Alice"}, password.ErrPersonal},
		{"the e-mail's local part", "alice.smith", []string{"alice.smith@example.com"}, password.ErrPersonal},
		{"the name", "Alice Smithson", []string{"a@example.com", "alice smithson"}, password.ErrPersonal},
		{"containing the name is fine", "alice smithson rides north", []string{"alice smithson"}, nil},
		{"passphrase", "correct horse battery staple", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := password.Check(tt.password, tt.personal...)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("Check(%q) = %v, want %v", tt.password, err, tt.want)
			}
			if err != nil {
				kind, _, _ := domainerr.KindOf(err)
				if kind != domainerr.Invalid {
					t.Errorf("kind = %v, want Invalid", kind)
				}
			}
		})
	}
}

func TestPolicyMessages(t *testing.T) {
	t.Parallel()
	if got := password.Check("short").Error(); got != "Password must be at least 8 characters" {
		t.Errorf("too short: %q", got)
	}
	if got := password.Check("iloveyou").Error(); got != "This password is too common. Please choose another." {
		t.Errorf("too common: %q", got)
	}
}

func BenchmarkHash(b *testing.B) {
	h := password.NewHasher(password.DefaultParams, 0)
	ctx := context.Background()
	for b.Loop() {
		if _, err := h.Hash(ctx, "benchmark password"); err != nil {
			b.Fatal(err)
		}
	}
}

package totp_test

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"image/png"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
	"clearvest/platform/auth/internal/authtest"
	"clearvest/platform/auth/totp"
)

var (
	start  = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	secret = bytes.Repeat([]byte{3}, 32)
)

type fixture struct {
	pool  *pgxpool.Pool
	clock *clock.Manual
	store *totp.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	s, err := totp.New(pool, c, secret)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{pool: pool, clock: c, store: s}
}

func (f *fixture) code(t *testing.T, e totp.Enrollment, offset time.Duration) string {
	t.Helper()
	c, err := totp.Code(e.Secret, f.clock.Now().Add(offset))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrol enables TOTP for a new user and returns the enrolment and recovery codes.
func (f *fixture) enrol(t *testing.T) (uuid.UUID, totp.Enrollment, []string) {
	t.Helper()
	user := uuid.New()
	e, err := f.store.Begin(context.Background(), user, "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	codes, err := f.store.Confirm(context.Background(), user, f.code(t, e, 0))
	if err != nil {
		t.Fatal(err)
	}
	return user, e, codes
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

func TestEnrolment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := uuid.New()
	e, err := f.store.Begin(ctx, user, "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(e.Secret)
	if err != nil || len(raw) != 20 {
		t.Errorf("secret %q: %d bytes, %v", e.Secret, len(raw), err)
	}
	u, err := url.Parse(e.URL)
	if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Path != "/Clearvest:alice@example.com" {
		t.Errorf("URL = %s (%v)", e.URL, err)
	}
	q := u.Query()
	if q.Get("secret") != e.Secret || q.Get("issuer") != "Clearvest" || q.Get("digits") != "6" || q.Get("period") != "30" || q.Get("algorithm") != "SHA1" {
		t.Errorf("URL query = %v", q)
	}
	data, ok := strings.CutPrefix(e.QRCode, "data:image/png;base64,")
	if !ok {
		t.Fatalf("QR code is not a PNG data URL: %.40s", e.QRCode)
	}
	pngBytes, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(pngBytes)); err != nil || img.Bounds().Dx() < 100 {
		t.Errorf("QR code PNG does not decode to a usable image: %v", err)
	}

	if on, _ := f.store.Enabled(ctx, user); on {
		t.Error("enabled before the first code was confirmed")
	}
	_, err = f.store.Verify(ctx, user, f.code(t, e, 0))
	wantErr(t, "Verify during enrolment", err, totp.ErrNotEnabled)

	_, err = f.store.Confirm(ctx, user, "000000")
	wantErr(t, "Confirm(wrong code)", err, totp.ErrConfirmCode)
	if kind, _, _ := domainerr.KindOf(err); kind != domainerr.Invalid {
		t.Errorf("a wrong first code is %v; a 401 would sign the user out", kind)
	}
	codes, err := f.store.Confirm(ctx, user, f.code(t, e, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes, want 10", len(codes))
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if !regexp.MustCompile(`^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$`).MatchString(c) || seen[c] {
			t.Errorf("recovery code %q is malformed or repeated", c)
		}
		seen[c] = true
	}
	if on, _ := f.store.Enabled(ctx, user); !on {
		t.Error("not enabled after Confirm")
	}
	_, err = f.store.Begin(ctx, user, "alice@example.com")
	wantErr(t, "Begin while enabled", err, totp.ErrAlreadyEnabled)
	_, err = f.store.Confirm(ctx, uuid.New(), "123456")
	wantErr(t, "Confirm without Begin", err, totp.ErrNotEnrolling)
}

func TestRestartedEnrolmentUsesTheNewSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user := uuid.New()
	first, _ := f.store.Begin(ctx, user, "a@example.com")
	second, _ := f.store.Begin(ctx, user, "a@example.com")
	if first.Secret == second.Secret {
		t.Fatal("Begin reused the secret")
	}
	_, err := f.store.Confirm(ctx, user, f.code(t, first, 0))
	wantErr(t, "Confirm with the abandoned secret", err, totp.ErrConfirmCode)
	if _, err := f.store.Confirm(ctx, user, f.code(t, second, 0)); err != nil {
		t.Errorf("Confirm with the new secret: %v", err)
	}
}

func TestVerifyWindowAndReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user, e, _ := f.enrol(t)

	// The code that confirmed enrolment cannot sign in: its step is used.
	_, err := f.store.Verify(ctx, user, f.code(t, e, 0))
	wantErr(t, "the confirmation code replayed", err, totp.ErrInvalidCode)

	f.clock.Advance(5 * time.Minute)
	_, err = f.store.Verify(ctx, user, f.code(t, e, -60*time.Second))
	wantErr(t, "a code two steps old", err, totp.ErrInvalidCode)
	_, err = f.store.Verify(ctx, user, f.code(t, e, 60*time.Second))
	wantErr(t, "a code two steps ahead", err, totp.ErrInvalidCode)

	previous := f.code(t, e, -30*time.Second)
	if used, err := f.store.Verify(ctx, user, previous); err != nil || used {
		t.Fatalf("a code one step old (slow typing) = %v, %v", used, err)
	}
	_, err = f.store.Verify(ctx, user, previous)
	wantErr(t, "the same code again", err, totp.ErrInvalidCode)
	if _, err := f.store.Verify(ctx, user, f.code(t, e, 0)); err != nil {
		t.Errorf("the current code after the previous one: %v", err)
	}
	// After the current step is used, an earlier step's code is a replay even if unused.
	_, err = f.store.Verify(ctx, user, previous)
	wantErr(t, "an older step after a newer one", err, totp.ErrInvalidCode)
	if _, err := f.store.Verify(ctx, user, f.code(t, e, 30*time.Second)); err != nil {
		t.Errorf("a code one step ahead (phone clock fast): %v", err)
	}
	if kind, _, _ := domainerr.KindOf(totp.ErrInvalidCode); kind != domainerr.Unauthenticated {
		t.Errorf("ErrInvalidCode kind = %v", kind)
	}
}

func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user, _, codes := f.enrol(t)

	typed := strings.ToUpper(strings.ReplaceAll(codes[3], "-", " "))
	used, err := f.store.Verify(ctx, user, typed)
	if err != nil || !used {
		t.Fatalf("Verify(recovery code as typed) = %v, %v", used, err)
	}
	_, err = f.store.Verify(ctx, user, codes[3])
	wantErr(t, "a recovery code used twice", err, totp.ErrInvalidCode)
	if n, _ := f.store.RecoveryCodesLeft(ctx, user); n != 9 {
		t.Errorf("%d recovery codes left, want 9", n)
	}
	other, _, _ := f.enrol(t)
	_, err = f.store.Verify(ctx, other, codes[4])
	wantErr(t, "another user's recovery code", err, totp.ErrInvalidCode)

	fresh, err := f.store.RegenerateRecoveryCodes(ctx, user)
	if err != nil || len(fresh) != 10 {
		t.Fatalf("RegenerateRecoveryCodes = %d codes, %v", len(fresh), err)
	}
	_, err = f.store.Verify(ctx, user, codes[5])
	wantErr(t, "a recovery code from before regeneration", err, totp.ErrInvalidCode)
	if _, err := f.store.Verify(ctx, user, fresh[0]); err != nil {
		t.Errorf("a regenerated code: %v", err)
	}
}

func TestSecretIsSealedAndBoundToItsUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	alice, e, _ := f.enrol(t)
	mallory, _, _ := f.enrol(t)
	raw, _ := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(e.Secret)
	var sealed []byte
	if err := f.pool.QueryRow(ctx, `SELECT secret_sealed FROM totp WHERE user_id = $1`, alice).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, raw) || bytes.Contains(sealed, []byte(e.Secret)) {
		t.Fatal("the TOTP secret is stored in the clear")
	}
	// Copying alice's sealed secret into mallory's row must not let mallory's account accept
	// alice's codes.
	if _, err := f.pool.Exec(ctx, `UPDATE totp SET secret_sealed = $1 WHERE user_id = $2`, sealed, mallory); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.store.Verify(ctx, mallory, f.code(t, e, 0)); err == nil {
		t.Error("a sealed secret opened under another user's id")
	}

	rotated, err := totp.New(f.pool, f.clock, bytes.Repeat([]byte{4}, 32), secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rotated.Verify(ctx, alice, f.code(t, e, 0)); err != nil {
		t.Errorf("a secret sealed before the app secret was rotated: %v", err)
	}
}

func TestDisable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	user, e, codes := f.enrol(t)
	if err := auth.Exec(ctx, f.pool, totp.ForgetStatement(user)); err != nil {
		t.Fatal(err)
	}
	if on, _ := f.store.Enabled(ctx, user); on {
		t.Error("still enabled")
	}
	f.clock.Advance(time.Minute)
	_, err := f.store.Verify(ctx, user, f.code(t, e, 0))
	wantErr(t, "a code after Disable", err, totp.ErrNotEnabled)
	_, err = f.store.Verify(ctx, user, codes[0])
	wantErr(t, "a recovery code after Disable", err, totp.ErrNotEnabled)
	if _, err := f.store.Begin(ctx, user, "a@example.com"); err != nil {
		t.Errorf("enrolling again after Disable: %v", err)
	}
}

// TestResealAfterRotation: after the application secret changes, secrets sealed with the old one
// still work while it is configured as previous; Reseal moves them to the new one, after which
// the old one can go.
func TestResealAfterRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	alice, e, _ := f.enrol(t)
	bob, _, _ := f.enrol(t)
	newSecret := bytes.Repeat([]byte{9}, 32)
	onlyNew, err := totp.New(f.pool, f.clock, newSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := onlyNew.CheckSecret(ctx); !errors.Is(err, totp.ErrWrongSecret) {
		t.Errorf("CheckSecret without the old secret = %v, want ErrWrongSecret", err)
	}
	rotating, err := totp.New(f.pool, f.clock, newSecret, secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := rotating.CheckSecret(ctx); err != nil {
		t.Errorf("CheckSecret with the old secret as previous = %v", err)
	}
	f.clock.Advance(time.Minute)
	if _, err := rotating.Verify(ctx, alice, f.code(t, e, 0)); err != nil {
		t.Errorf("a code during rotation: %v", err)
	}
	if n, err := rotating.Reseal(ctx); err != nil || n != 2 {
		t.Fatalf("Reseal = %d, %v; want both secrets resealed", n, err)
	}
	if n, err := rotating.Reseal(ctx); err != nil || n != 0 {
		t.Errorf("a second Reseal = %d, %v; want nothing to do", n, err)
	}
	if err := onlyNew.CheckSecret(ctx); err != nil {
		t.Errorf("CheckSecret after Reseal with only the new secret = %v", err)
	}
	f.clock.Advance(time.Minute)
	if _, err := onlyNew.Verify(ctx, alice, f.code(t, e, 0)); err != nil {
		t.Errorf("a code after Reseal with only the new secret: %v", err)
	}
	if on, _ := onlyNew.Enabled(ctx, bob); !on {
		t.Error("Reseal turned two-factor sign-in off")
	}
}

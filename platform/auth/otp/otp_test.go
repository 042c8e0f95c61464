package otp_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth/internal/authtest"
	"clearvest/platform/auth/otp"
)

var (
	start  = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	secret = bytes.Repeat([]byte{7}, 32)
)

func newCodes(t *testing.T) (*otp.Codes, *clock.Manual, *pgxpool.Pool) {
	t.Helper()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	codes, err := otp.New(pool, c, secret)
	if err != nil {
		t.Fatal(err)
	}
	return codes, c, pool
}

func issue(t *testing.T, codes *otp.Codes, user uuid.UUID, p otp.Purpose) string {
	t.Helper()
	code, err := codes.Issue(context.Background(), nil, user, p, 0)
	if err != nil {
		t.Fatalf("Issue(%s): %v", p, err)
	}
	return code
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

// wrongCode returns a valid-looking code different from code.
func wrongCode(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}

// TestTypedCode covers the 6-digit codes Issue makes (a Google link's); login codes, which
// belong to a sign-in attempt, are TestSignInAttempt's.
func TestTypedCode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, _ := newCodes(t)
	alice, bob := uuid.New(), uuid.New()
	code := issue(t, codes, alice, otp.LinkGoogle)
	if !regexp.MustCompile(`^[0-9]{6}$`).MatchString(code) {
		t.Fatalf("code %q is not 6 digits", code)
	}
	_, err := codes.Consume(ctx, otp.LinkGoogle, code, bob)
	wantErr(t, "someone else's code", err, otp.ErrInvalidCode)
	_, err = codes.Consume(ctx, otp.LinkGoogle, code, uuid.Nil)
	wantErr(t, "a code without its user", err, otp.ErrInvalidCode)
	wantErr(t, "a link code used to sign in", codes.Redeem(ctx, otp.Login, "any-token", code, alice), otp.ErrNoAttempt)

	got, err := codes.Consume(ctx, otp.LinkGoogle, " "+code[:3]+" "+code[3:]+" ", alice)
	if err != nil || got != alice {
		t.Fatalf("Consume(right code, typed with spaces) = %v, %v", got, err)
	}
	_, err = codes.Consume(ctx, otp.LinkGoogle, code, alice)
	wantErr(t, "a code used twice", err, otp.ErrInvalidCode)
	kind, msg, _ := domainerr.KindOf(err)
	if kind != domainerr.Unauthenticated || msg != "Invalid or expired code" {
		t.Errorf("ErrInvalidCode = %v %q", kind, msg)
	}
}

func TestWrongGuessesBurnTheCode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, _ := newCodes(t)
	user := uuid.New()
	code := issue(t, codes, user, otp.LinkGoogle)
	for i := 1; i < otp.MaxAttempts; i++ {
		_, err := codes.Consume(ctx, otp.LinkGoogle, wrongCode(code), user)
		wantErr(t, fmt.Sprintf("wrong guess %d", i), err, otp.ErrInvalidCode)
	}
	_, err := codes.Consume(ctx, otp.LinkGoogle, wrongCode(code), user)
	wantErr(t, "fifth wrong guess", err, otp.ErrTooManyWrongCodes)
	_, err = codes.Consume(ctx, otp.LinkGoogle, code, user)
	wantErr(t, "the right code after the fifth wrong guess", err, otp.ErrTooManyWrongCodes)
	if _, msg, _ := domainerr.KindOf(err); msg != "Too many wrong codes. Request a new one." {
		t.Errorf("message = %q", msg)
	}
	// Malformed input is not a guess and does not count.
	c.Advance(otp.Cooldown)
	fresh := issue(t, codes, user, otp.LinkGoogle)
	for range 10 {
		_, err := codes.Consume(ctx, otp.LinkGoogle, "12ab56", user)
		wantErr(t, "malformed code", err, otp.ErrInvalidCode)
	}
	if _, err := codes.Consume(ctx, otp.LinkGoogle, fresh, user); err != nil {
		t.Errorf("malformed inputs burnt the code: %v", err)
	}
}

func TestConcurrentWrongGuessesAllCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, _ := newCodes(t)
	user := uuid.New()
	code := issue(t, codes, user, otp.LinkGoogle)
	var wg sync.WaitGroup
	for range 2 * otp.MaxAttempts {
		wg.Go(func() { _, _ = codes.Consume(ctx, otp.LinkGoogle, wrongCode(code), user) })
	}
	wg.Wait()
	_, err := codes.Consume(ctx, otp.LinkGoogle, code, user)
	wantErr(t, "the right code after a burst of wrong guesses", err, otp.ErrTooManyWrongCodes)
}

func TestLifetimes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		purpose otp.Purpose
		ttl     time.Duration
	}{
		{otp.LinkGoogle, 10 * time.Minute},
		{otp.ResetPassword, time.Hour},
		{otp.VerifyEmail, 24 * time.Hour},
	} {
		t.Run(string(tc.purpose), func(t *testing.T) {
			t.Parallel()
			codes, c, _ := newCodes(t)
			if otp.TTL(tc.purpose) != tc.ttl {
				t.Errorf("TTL = %v, want %v", otp.TTL(tc.purpose), tc.ttl)
			}
			user := uuid.New()
			code := issue(t, codes, user, tc.purpose)
			c.Advance(tc.ttl - time.Second)
			if _, err := codes.Consume(ctx, tc.purpose, code, user); err != nil {
				t.Errorf("a code a second before its end: %v", err)
			}
			code = issue(t, codes, user, tc.purpose)
			c.Advance(tc.ttl)
			_, err := codes.Consume(ctx, tc.purpose, code, user)
			if !errors.Is(err, otp.ErrInvalidCode) && !errors.Is(err, otp.ErrInvalidLink) {
				t.Errorf("an expired code: %v", err)
			}
		})
	}
	t.Run("explicit ttl", func(t *testing.T) {
		t.Parallel()
		codes, c, _ := newCodes(t)
		user := uuid.New()
		code, err := codes.Issue(ctx, nil, user, otp.ResetPassword, 5*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(5 * time.Minute)
		_, err = codes.Consume(ctx, otp.ResetPassword, code, uuid.Nil)
		wantErr(t, "past an explicit ttl", err, otp.ErrInvalidLink)
	})
}

func TestNewCodeReplacesOld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, _ := newCodes(t)
	user := uuid.New()
	first := issue(t, codes, user, otp.ResetPassword)
	verify := issue(t, codes, user, otp.VerifyEmail) // another purpose is unaffected
	c.Advance(otp.Cooldown)
	second := issue(t, codes, user, otp.ResetPassword)
	_, err := codes.Consume(ctx, otp.ResetPassword, first, uuid.Nil)
	wantErr(t, "a replaced link", err, otp.ErrInvalidLink)
	if got, err := codes.Consume(ctx, otp.ResetPassword, second, uuid.Nil); err != nil || got != user {
		t.Errorf("the newest link: %v, %v", got, err)
	}
	if _, err := codes.Consume(ctx, otp.VerifyEmail, verify, user); err != nil {
		t.Errorf("a reset request replaced the verification link: %v", err)
	}
}

func TestCooldown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, _ := newCodes(t)
	user := uuid.New()
	issue(t, codes, user, otp.LinkGoogle)
	c.Advance(20 * time.Second)
	_, err := codes.Issue(ctx, nil, user, otp.LinkGoogle, 0)
	var cd *otp.CooldownError
	if !errors.As(err, &cd) || !errors.Is(err, otp.ErrCooldown) {
		t.Fatalf("a second code after 20 s: %v, want a CooldownError", err)
	}
	if cd.RetryAfter() != 40*time.Second || cd.Kind() != domainerr.RateLimited ||
		cd.Error() != "Please wait 40 seconds before requesting a new code." {
		t.Errorf("CooldownError: retry %v, kind %v, %q", cd.RetryAfter(), cd.Kind(), cd.Error())
	}
	if kind, _, _ := domainerr.KindOf(err); kind != domainerr.RateLimited {
		t.Errorf("kind = %v", kind)
	}
	issue(t, codes, user, otp.VerifyEmail)      // other purposes have their own cooldown
	issue(t, codes, uuid.New(), otp.LinkGoogle) // and other users too
	c.Advance(40 * time.Second)
	issue(t, codes, user, otp.LinkGoogle)
}

// TestIssueForLeavesTheWriteToTheCommand: IssueFor stores nothing; its statement stores a code
// that redeems like Issue's, replacing the older ones. Within the cooldown IssueFor refuses, and
// a statement decided before another code was issued fails with a check violation naming
// CooldownConstraint, storing nothing.
func TestIssueForLeavesTheWriteToTheCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, pool := newCodes(t)
	user := uuid.New()
	old := issue(t, codes, user, otp.ResetPassword)
	c.Advance(otp.Cooldown - time.Second)
	if _, err := codes.IssueFor(ctx, user, otp.ResetPassword, 0); !errors.Is(err, otp.ErrCooldown) {
		t.Fatalf("IssueFor within the cooldown: %v, want a CooldownError", err)
	}
	c.Advance(time.Second)
	first, err := codes.IssueFor(ctx, user, otp.ResetPassword, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codes.Consume(ctx, otp.ResetPassword, first.Plaintext, uuid.Nil); !errors.Is(err, otp.ErrInvalidLink) {
		t.Fatalf("a code IssueFor made, not stored yet: %v, want ErrInvalidLink", err)
	}
	second, err := codes.IssueFor(ctx, user, otp.ResetPassword, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, first.Statement.SQL, first.Statement.Args...); err != nil {
		t.Fatal(err)
	}
	_, err = pool.Exec(ctx, second.Statement.SQL, second.Statement.Args...)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.ConstraintName != otp.CooldownConstraint {
		t.Fatalf("a second statement within the cooldown: %v, want a violation of %s", err, otp.CooldownConstraint)
	}
	if got, err := codes.Consume(ctx, otp.ResetPassword, first.Plaintext, uuid.Nil); err != nil || got != user {
		t.Fatalf("the stored code: %v, %v", got, err)
	}
	for _, code := range []string{old, second.Plaintext} {
		if _, err := codes.Consume(ctx, otp.ResetPassword, code, uuid.Nil); !errors.Is(err, otp.ErrInvalidLink) {
			t.Errorf("a replaced or refused code redeemed: %v", err)
		}
	}
}

func TestConcurrentIssuesRespectTheCooldown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, _ := newCodes(t)
	user := uuid.New()
	var wg sync.WaitGroup
	var mu sync.Mutex
	issued := 0
	for range 8 {
		wg.Go(func() {
			_, err := codes.Issue(ctx, nil, user, otp.LinkGoogle, 0)
			if err == nil {
				mu.Lock()
				issued++
				mu.Unlock()
			} else if !errors.Is(err, otp.ErrCooldown) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if issued != 1 {
		t.Errorf("%d codes issued by simultaneous requests, want 1", issued)
	}
}

func TestLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, pool := newCodes(t)
	alice, bob := uuid.New(), uuid.New()
	for _, p := range []otp.Purpose{otp.VerifyEmail, otp.ResetPassword, otp.WasntMe} {
		token := issue(t, codes, alice, p)
		if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(token) {
			t.Fatalf("%s token %q is not 32 bytes of base64url", p, token)
		}
		_, err := codes.Consume(ctx, p, token, bob)
		wantErr(t, string(p)+" consumed as someone else", err, otp.ErrInvalidLink)
		other := otp.ResetPassword
		if p == otp.ResetPassword {
			other = otp.VerifyEmail
		}
		_, err = codes.Consume(ctx, other, token, uuid.Nil)
		wantErr(t, string(p)+" used for "+string(other), err, otp.ErrInvalidLink)
		if got, err := codes.Consume(ctx, p, token, uuid.Nil); err != nil || got != alice {
			t.Fatalf("Consume(%s) = %v, %v", p, got, err)
		}
		_, err = codes.Consume(ctx, p, token, uuid.Nil)
		wantErr(t, string(p)+" used twice", err, otp.ErrInvalidLink)
	}
	kind, msg, _ := domainerr.KindOf(otp.ErrInvalidLink)
	if kind != domainerr.Invalid || msg != "Invalid or expired link" {
		t.Errorf("ErrInvalidLink = %v %q", kind, msg)
	}
	_, err := codes.Consume(ctx, otp.ResetPassword, "", uuid.Nil)
	wantErr(t, "empty token", err, otp.ErrInvalidLink)

	// Nothing in the table is the plaintext or its bare SHA-256.
	token := issue(t, codes, bob, otp.VerifyEmail)
	sum := sha256.Sum256([]byte(token))
	var leaked bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM one_time_codes WHERE code_hash = $1 OR code_hash = $2)`,
		[]byte(token), sum[:]).Scan(&leaked); err != nil || leaked {
		t.Errorf("the token is stored in plaintext or unkeyed (%v)", err)
	}
}

func TestWasntMeLinksDoNotReplaceEachOther(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, _ := newCodes(t)
	user := uuid.New()
	first := issue(t, codes, user, otp.WasntMe)
	second := issue(t, codes, user, otp.WasntMe)
	for _, tok := range []string{first, second} {
		if _, err := codes.Consume(ctx, otp.WasntMe, tok, uuid.Nil); err != nil {
			t.Errorf("a wasn't-me link from an earlier alert: %v", err)
		}
	}
}

func TestConcurrentClicksSpendALinkOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, _ := newCodes(t)
	token := issue(t, codes, uuid.New(), otp.ResetPassword)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 8 {
		wg.Go(func() {
			if _, err := codes.Consume(ctx, otp.ResetPassword, token, uuid.Nil); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != 1 {
		t.Errorf("a reset link worked %d times", ok)
	}
}

func TestIssueJoinsTheCallersTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, pool := newCodes(t)
	user := uuid.New()
	var token string
	rollback := errors.New("rollback")
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		token, err = codes.Issue(ctx, tx, user, otp.VerifyEmail, 0)
		if err != nil {
			return err
		}
		return rollback
	})
	wantErr(t, "transaction", err, rollback)
	_, err = codes.Consume(ctx, otp.VerifyEmail, token, uuid.Nil)
	wantErr(t, "a link whose transaction rolled back", err, otp.ErrInvalidLink)
	// The rolled-back code did not start a cooldown either.
	if _, err := codes.Issue(ctx, pool, user, otp.VerifyEmail, 0); err != nil {
		t.Errorf("Issue after a rolled-back issue: %v", err)
	}
}

func TestSecretRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	old, _ := otp.New(pool, c, secret)
	link := issue(t, old, uuid.New(), otp.VerifyEmail)
	user := uuid.New()
	code := issue(t, old, user, otp.LinkGoogle)

	newSecret := bytes.Repeat([]byte{9}, 32)
	rotated, err := otp.New(pool, c, newSecret, secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rotated.Consume(ctx, otp.VerifyEmail, link, uuid.Nil); err != nil {
		t.Errorf("a link from before the rotation: %v", err)
	}
	if _, err := rotated.Consume(ctx, otp.LinkGoogle, code, user); err != nil {
		t.Errorf("a code from before the rotation: %v", err)
	}
	dropped, _ := otp.New(pool, c, newSecret)
	c.Advance(otp.Cooldown)
	code = issue(t, old, user, otp.LinkGoogle)
	_, err = dropped.Consume(ctx, otp.LinkGoogle, code, user)
	wantErr(t, "a code of a retired secret", err, otp.ErrInvalidCode)
}

package otp_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
	"clearvest/platform/auth/otp"
)

// begin starts an attempt and stores it, as a sign-in sends Begin's statements with its e-mail.
func begin(t *testing.T, codes *otp.Codes, pool *pgxpool.Pool, user uuid.UUID, current string) otp.Attempt {
	t.Helper()
	ctx := context.Background()
	a, sts, err := codes.Begin(ctx, user, otp.Login, current)
	if err == nil {
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return auth.Exec(ctx, tx, sts...) })
	}
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	return a
}

// resend makes a new code for an attempt and stores it, as the resend sends Resend's statement
// with its e-mail.
func resend(ctx context.Context, codes *otp.Codes, pool *pgxpool.Pool, user uuid.UUID, token string) (otp.Attempt, error) {
	a, st, err := codes.Resend(ctx, user, otp.Login, token)
	if err != nil {
		return otp.Attempt{}, err
	}
	return a, auth.Exec(ctx, pool, st)
}

// TestSignInAttempt: a login code is redeemed only together with the token of the attempt it
// was sent for, so the code alone signs nobody in.
func TestSignInAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, _, pool := newCodes(t)
	alice, bob := uuid.New(), uuid.New()
	a := begin(t, codes, pool, alice, "")
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(a.Token) || !regexp.MustCompile(`^[0-9]{6}$`).MatchString(a.Code) {
		t.Fatalf("attempt %+v: want a 256-bit token and a 6-digit code", a)
	}
	other := begin(t, codes, pool, bob, "")

	wantErr(t, "the code without the token", codes.Redeem(ctx, otp.Login, "", a.Code, alice), otp.ErrNoAttempt)
	wantErr(t, "the code with another attempt's token", codes.Redeem(ctx, otp.Login, other.Token, a.Code, alice), otp.ErrNoAttempt)
	wantErr(t, "the attempt as another user", codes.Redeem(ctx, otp.Login, a.Token, a.Code, bob), otp.ErrNoAttempt)
	if _, err := codes.Consume(ctx, otp.Login, a.Code, alice); err == nil {
		t.Fatal("Consume redeemed a login code without its attempt")
	}
	if _, err := codes.Issue(ctx, nil, alice, otp.Login, 0); err == nil {
		t.Fatal("Issue made a login code without an attempt")
	}
	wantErr(t, "a wrong code", codes.Redeem(ctx, otp.Login, a.Token, wrongCode(a.Code), alice), otp.ErrInvalidCode)
	wantErr(t, "a wrong code, checked", codes.Check(ctx, otp.Login, a.Token, wrongCode(a.Code), alice), otp.ErrInvalidCode)
	wantErr(t, "a checked code without the token", codes.Check(ctx, otp.Login, "", a.Code, alice), otp.ErrNoAttempt)
	// Checking the right code leaves it to be redeemed.
	for range 2 {
		if err := codes.Check(ctx, otp.Login, a.Token, a.Code, alice); err != nil {
			t.Fatalf("checking the attempt's token and code: %v", err)
		}
	}
	if err := codes.Redeem(ctx, otp.Login, a.Token, " "+a.Code+" ", alice); err != nil {
		t.Fatalf("the attempt's token and code: %v", err)
	}
	wantErr(t, "an attempt used twice", codes.Redeem(ctx, otp.Login, a.Token, a.Code, alice), otp.ErrNoAttempt)
	if _, msg, _ := domainerr.KindOf(otp.ErrNoAttempt); msg != "This sign-in has expired. Please log in again." {
		t.Errorf("ErrNoAttempt message %q", msg)
	}

	// Only hashes are stored.
	var leaked bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM one_time_codes WHERE attempt_hash = $1 OR code_hash = $1)`,
		[]byte(other.Token)).Scan(&leaked); err != nil || leaked {
		t.Errorf("the attempt token is stored in plaintext (%v)", err)
	}
}

// TestAFreshCodeAfterAUsedOne: a sign-in right after another one used its code gets a code of
// its own, cooldown or not; only the same browser pressing "Sign in" again within the cooldown
// goes on with the code it was already sent.
func TestAFreshCodeAfterAUsedOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, pool := newCodes(t)
	user := uuid.New()
	first := begin(t, codes, pool, user, "")
	if err := codes.Redeem(ctx, otp.Login, first.Token, first.Code, user); err != nil {
		t.Fatal(err)
	}
	c.Advance(5 * time.Second)
	second := begin(t, codes, pool, user, "")
	if second.Code == "" || second.Token == first.Token {
		t.Fatalf("a new browser a few seconds after a used code: %+v, want a new attempt and code", second)
	}
	if again := begin(t, codes, pool, user, first.Token); again.Code == "" || again.Token == first.Token {
		t.Fatalf("the browser whose code was used, signing in again: %+v, want a new attempt and code", again)
	}
	third := begin(t, codes, pool, user, "")
	if again := begin(t, codes, pool, user, third.Token); again.Token != third.Token || again.Code != "" {
		t.Fatalf("the same browser within the cooldown: %+v, want the same attempt and no new code", again)
	}
	c.Advance(otp.Cooldown)
	if again := begin(t, codes, pool, user, third.Token); again.Code == "" || again.Token == third.Token {
		t.Fatalf("the same browser after the cooldown: %+v, want a new attempt and code", again)
	}
	// Each new attempt replaced the one before.
	wantErr(t, "a replaced attempt", codes.Redeem(ctx, otp.Login, third.Token, third.Code, user), otp.ErrNoAttempt)
}

func TestResendIsForTheSameAttemptOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, pool := newCodes(t)
	user := uuid.New()
	a := begin(t, codes, pool, user, "")
	_, err := resend(ctx, codes, pool, user, a.Token)
	var cd *otp.CooldownError
	if !errors.As(err, &cd) || cd.RetryAfter() != otp.Cooldown {
		t.Fatalf("a resend at once: %v, want a cooldown of a minute", err)
	}
	for _, tok := range []string{"", "not-the-token"} {
		if _, err := resend(ctx, codes, pool, user, tok); !errors.Is(err, otp.ErrNoAttempt) {
			t.Errorf("resend with token %q: %v, want ErrNoAttempt", tok, err)
		}
	}
	c.Advance(otp.Cooldown)
	re, err := resend(ctx, codes, pool, user, a.Token)
	if err != nil || re.Token != a.Token || re.Code == "" {
		t.Fatalf("resend after the cooldown: %+v, %v", re, err)
	}
	if re.Code != a.Code {
		wantErr(t, "the code the resend replaced", codes.Redeem(ctx, otp.Login, a.Token, a.Code, user), otp.ErrInvalidCode)
	}
	// A resent code lives its full life from the resend.
	c.Advance(otp.TTL(otp.Login) - time.Second)
	if err := codes.Redeem(ctx, otp.Login, a.Token, re.Code, user); err != nil {
		t.Fatalf("the resent code: %v", err)
	}
	if _, err := resend(ctx, codes, pool, user, a.Token); !errors.Is(err, otp.ErrNoAttempt) {
		t.Errorf("resend for a finished attempt: %v, want ErrNoAttempt", err)
	}
}

func TestWrongCodesBurnTheAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, pool := newCodes(t)
	user := uuid.New()
	a := begin(t, codes, pool, user, "")
	for range otp.MaxAttempts {
		if err := codes.Redeem(ctx, otp.Login, a.Token, wrongCode(a.Code), user); err == nil {
			t.Fatal("a wrong code worked")
		}
	}
	wantErr(t, "the right code after the last wrong one", codes.Redeem(ctx, otp.Login, a.Token, a.Code, user), otp.ErrTooManyWrongCodes)
	c.Advance(otp.Cooldown)
	_, err := resend(ctx, codes, pool, user, a.Token)
	wantErr(t, "a resend for a burnt attempt", err, otp.ErrNoAttempt)

	b := begin(t, codes, pool, user, "")
	c.Advance(otp.TTL(otp.Login))
	wantErr(t, "an expired attempt", codes.Redeem(ctx, otp.Login, b.Token, b.Code, user), otp.ErrNoAttempt)
}

// TestResendDecidedBeforeTheAttemptChanged: Resend decides on the attempt as it read it, and
// its statement stores the new code only if the attempt is still that one. Of two resends read
// at once, the second fails naming the cooldown; a resend read before the attempt was spent
// fails naming the attempt's end. Neither stores its code.
func TestResendDecidedBeforeTheAttemptChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes, c, pool := newCodes(t)
	user := uuid.New()
	a := begin(t, codes, pool, user, "")
	c.Advance(otp.Cooldown)
	constraintOf := func(err error) string {
		var pg *pgconn.PgError
		if errors.As(err, &pg) {
			return pg.ConstraintName
		}
		return ""
	}
	first, firstSt, err := codes.Resend(ctx, user, otp.Login, a.Token)
	if err != nil {
		t.Fatal(err)
	}
	second, secondSt, err := codes.Resend(ctx, user, otp.Login, a.Token)
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.Exec(ctx, pool, firstSt); err != nil {
		t.Fatal(err)
	}
	if err := auth.Exec(ctx, pool, secondSt); constraintOf(err) != otp.CooldownConstraint {
		t.Fatalf("the second resend's statement: %v, want a violation of %s", err, otp.CooldownConstraint)
	}
	if second.Code != first.Code {
		wantErr(t, "the code of the resend that lost", codes.Redeem(ctx, otp.Login, a.Token, second.Code, user), otp.ErrInvalidCode)
	}
	c.Advance(otp.Cooldown)
	_, late, err := codes.Resend(ctx, user, otp.Login, a.Token)
	if err != nil {
		t.Fatal(err)
	}
	if err := codes.Redeem(ctx, otp.Login, a.Token, first.Code, user); err != nil {
		t.Fatalf("the stored code: %v", err)
	}
	if err := auth.Exec(ctx, pool, late); constraintOf(err) != otp.AttemptGoneConstraint {
		t.Fatalf("a resend of a spent attempt: %v, want a violation of %s", err, otp.AttemptGoneConstraint)
	}
}

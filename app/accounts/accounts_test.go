package accounts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/domain/clock"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/platform/auth/google"
	"clearvest/platform/auth/otp"
	"clearvest/platform/auth/totp"
)

// agreed is the consent a sign-up carries: the person ticked the box for these versions.
var agreed = accounts.Consent{TermsVersion: "2026-11-28", PrivacyVersion: "2026-11-28"}

var browser = accounts.Client{IP: "192.0.2.10", UserAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15"}

func register(t *testing.T, env *accountstest.Env, email string) accounts.SignIn {
	t.Helper()
	in, err := env.Accounts.Register(context.Background(), accounts.RegisterInput{
		Name: "Ada Lovelace", Email: email, Password: "analytical engine notes", Phone: "+447700900123", Country: "GB",
		Terms: agreed,
	}, browser)
	if err != nil {
		t.Fatalf("register %s: %v", email, err)
	}
	return in
}

func count(t *testing.T, env *accountstest.Env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := env.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestRegistrationCommitsEverythingOrNothing(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	in := register(t, env, "ada@example.com")
	uid := uuid.MustParse(in.User.ID)

	for what, n := range map[string]int{
		"user.registered events": count(t, env, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'user.registered'`, "user-"+in.User.ID),
		"principal rows":         count(t, env, `SELECT count(*) FROM principals WHERE user_id = $1 AND status = 'active' AND role = 'subscriber'`, uid),
		"credential rows":        count(t, env, `SELECT count(*) FROM credentials WHERE user_id = $1`, uid),
		"e-mail claims":          count(t, env, `SELECT count(*) FROM user_emails WHERE email_lower = 'ada@example.com'`),
		"sessions":               count(t, env, `SELECT count(*) FROM sessions WHERE user_id = $1`, uid),
		"trusted browsers":       count(t, env, `SELECT count(*) FROM trusted_devices WHERE user_id = $1`, uid),
		"queued e-mails":         count(t, env, `SELECT count(*) FROM mail_outbox`),
	} {
		if n != 1 {
			t.Errorf("%s: %d, want 1", what, n)
		}
	}
	if in.AccessToken == "" || in.RefreshToken == "" || in.DeviceToken == "" || in.Position == 0 {
		t.Errorf("sign-in result lacks tokens or position: %+v", in)
	}
	// Personal fields are sealed in the log, readable through the codec.
	var raw string
	if err := env.Pool.QueryRow(context.Background(), `SELECT data::text FROM events WHERE stream_id = $1`, "user-"+in.User.ID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(raw, "ada@example.com") || strings.Contains(raw, "Lovelace") {
		t.Errorf("personal data stored in the clear: %s", raw)
	}

	// The same address again, in another case: refused, and nothing of it is left behind.
	_, err := env.Accounts.Register(context.Background(), accounts.RegisterInput{
		Name: "Impostor", Email: "ADA@example.com", Password: "another long phrase", Phone: "+447700900124", Country: "GB",
		Terms: agreed,
	}, browser)
	if !errors.Is(err, accounts.ErrEmailTaken) {
		t.Fatalf("second registration: %v, want ErrEmailTaken", err)
	}
	// The first registration's two: user.registered and user.terms_accepted.
	if n := count(t, env, `SELECT count(*) FROM events`); n != 2 {
		t.Errorf("%d events after a refused registration, want 2", n)
	}
	if n := count(t, env, `SELECT count(*) FROM mail_outbox`); n != 1 {
		t.Errorf("%d queued e-mails after a refused registration, want 1", n)
	}
}

func TestConcurrentRegistrationsClaimAnAddressOnce(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	spellings := []string{"race@example.com", "Race@example.com", "RACE@EXAMPLE.COM", "race@Example.com", " race@example.com", "rAce@example.com"}
	n := len(spellings)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = env.Accounts.Register(context.Background(), accounts.RegisterInput{
				Name: fmt.Sprintf("Racer %d", i), Email: spellings[i],
				Password: "all at the same time", Phone: "+447700900123", Country: "GB", Terms: agreed,
			}, accounts.Client{})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, accounts.ErrEmailTaken):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d registrations succeeded, want exactly 1", ok)
	}
	if got := count(t, env, `SELECT count(DISTINCT stream_id) FROM events`); got != 1 {
		t.Errorf("%d user streams, want 1", got)
	}
}

func TestClosingAnAccountErasesItsPersonalData(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	ctx := context.Background()
	admin, err := env.Accounts.CreateUser(ctx, accounts.CreateUserInput{Name: "Admin", Email: "admin@example.com", Password: "keys to the kingdom", Role: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	in := register(t, env, "leaving@example.com")
	actor := accounts.Actor{UserID: admin.ID, Role: "admin"}
	if _, _, err := env.Accounts.UploadPhoto(ctx, accounts.Actor{UserID: in.User.ID}, bytes.NewReader(pngOf(t, 40, 40))); err != nil {
		t.Fatal(err)
	}

	if _, err := env.Accounts.Close(ctx, actor, in.User.ID); err != nil {
		t.Fatal(err)
	}
	// History stays, personal fields read as erased.
	envs, err := env.Store.ReadStream(ctx, eventstore.StreamID("user-"+in.User.ID), 1, 100)
	if err != nil || len(envs) < 3 {
		t.Fatalf("stream after closure: %d events, %v", len(envs), err)
	}
	ev, err := env.Codec.Decode(envs[0])
	if err != nil {
		t.Fatal(err)
	}
	if reg := ev.(identity.Registered); reg.Email != eventstore.ErasedValue || reg.Name != eventstore.ErasedValue {
		t.Errorf("registration after erasure: %+v", reg)
	}
	// Nor does the command runner keep them decoded in memory.
	if u, err := command.Load(ctx, env.Commands, eventstore.StreamID("user-"+in.User.ID), identity.New); err != nil || u.Profile().Name != eventstore.ErasedValue {
		t.Errorf("the runner still holds the closed account's name: %q, %v", u.Profile().Name, err)
	}
	uid := uuid.MustParse(in.User.ID)
	if n := count(t, env, `SELECT count(*) FROM sessions WHERE user_id = $1 AND revoked_at IS NULL`, uid); n != 0 {
		t.Errorf("%d sessions still active", n)
	}
	if n := count(t, env, `SELECT count(*) FROM credentials WHERE user_id = $1`, uid) + count(t, env, `SELECT count(*) FROM user_emails WHERE user_id = $1`, uid); n != 0 {
		t.Errorf("credentials or e-mail claim left behind")
	}
	if _, err := env.Accounts.Authenticate(ctx, in.AccessToken); err == nil {
		t.Error("the closed account's token still works")
	}
	env.CatchUp(t)
	if n := count(t, env, `SELECT count(*) FROM rm_users.users WHERE id = $1 AND status = 'closed' AND name = '' AND email = ''`, in.User.ID); n != 1 {
		t.Error("the users read model still shows the closed account's personal data")
	}
	list, err := env.Accounts.ListUsers(ctx, "")
	if err != nil || len(list) != 1 {
		t.Errorf("staff list after closure: %d users, %v; want only the admin", len(list), err)
	}
	// Closing again is harmless (and repeats only the erasure).
	if _, err := env.Accounts.Close(ctx, actor, in.User.ID); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	// A closed account refers no one.
	if _, err := env.Accounts.Register(ctx, accounts.RegisterInput{
		Name: "Late Friend", Email: "friend@example.com", Password: "analytical engine notes", Phone: "+447700900123", Country: "GB",
		Terms: agreed, ReferralCode: in.User.ReferralCode,
	}, browser); !errors.Is(err, accounts.ErrUnknownReferral) {
		t.Errorf("signing up with a closed account's referral code: %v, want ErrUnknownReferral", err)
	}
	// The address is free again.
	register(t, env, "leaving@example.com")
	// Nobody closes their own admin account.
	if _, err := env.Accounts.Close(ctx, actor, admin.ID); !errors.Is(err, identity.ErrOwnClosure) {
		t.Errorf("closing one's own admin account: %v", err)
	}
}

func TestTwoFactorSignIn(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	env := accountstest.New(t, accountstest.WithClock(clk))
	ctx := context.Background()
	in := register(t, env, "careful@example.com")
	c := browser
	c.DeviceToken = in.DeviceToken
	actor := accounts.Actor{UserID: in.User.ID, SessionID: "", Client: c}

	setup, err := env.Accounts.SetupTOTP(ctx, actor)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(setup.URL, "otpauth://") || !strings.HasPrefix(setup.QRCode, "data:image/png;base64,") {
		t.Errorf("setup %+v", setup)
	}
	if _, _, err := env.Accounts.EnableTOTP(ctx, actor, "000000"); err == nil {
		t.Fatal("a wrong first code turned two-factor sign-in on")
	}
	code := totpCode(t, setup.Secret, clk.Now())
	recovery, _, err := env.Accounts.EnableTOTP(ctx, actor, code)
	if err != nil || len(recovery) == 0 {
		t.Fatalf("enable: %v (%d recovery codes)", err, len(recovery))
	}
	env.CatchUp(t) // User reads the read model, as getUser does
	u, err := env.Accounts.User(ctx, in.User.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !u.TwoFactorEnabled {
		t.Fatal("user does not show two-factor sign-in on")
	}

	login := accounts.LoginInput{Email: "careful@example.com", Password: "analytical engine notes"}
	if _, err := env.Accounts.Login(ctx, login, c); !errors.Is(err, accounts.ErrTOTPRequired) {
		t.Fatalf("password alone: %v, want ErrTOTPRequired", err)
	}
	login.TOTPCode = "123456"
	if _, err := env.Accounts.Login(ctx, login, c); !errors.Is(err, accounts.ErrTOTPInvalid) || accounts.ErrTOTPInvalid.Code != "totp_required" {
		t.Fatalf("wrong code: %v, want a totp_required refusal", err)
	}
	clk.Advance(totp.Period * time.Second)
	login.TOTPCode = totpCode(t, setup.Secret, clk.Now())
	if _, err := env.Accounts.Login(ctx, login, c); err != nil {
		t.Fatalf("password and code: %v", err)
	}
	// The same code cannot be replayed; a recovery code works once.
	if _, err := env.Accounts.Login(ctx, login, c); err == nil {
		t.Fatal("a used code worked again")
	}
	login.TOTPCode = recovery[0]
	if _, err := env.Accounts.Login(ctx, login, c); err != nil {
		t.Fatalf("recovery code: %v", err)
	}
	if _, err := env.Accounts.Login(ctx, login, c); err == nil {
		t.Fatal("a used recovery code worked again")
	}

	// Turning it off needs the password and a code.
	clk.Advance(totp.Period * time.Second)
	now := totpCode(t, setup.Secret, clk.Now())
	if _, err := env.Accounts.DisableTOTP(ctx, actor, "wrong password", now); err == nil {
		t.Fatal("disabled with a wrong password")
	}
	if _, err := env.Accounts.DisableTOTP(ctx, actor, "analytical engine notes", now); err != nil {
		t.Fatal(err)
	}
	login.TOTPCode = ""
	if _, err := env.Accounts.Login(ctx, login, c); err != nil {
		t.Fatalf("after disabling: %v", err)
	}
}

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.Code(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// fakeGoogle stands in for Google's token verification: the credential names the identity,
// and every token carries the nonce googleNonce.
type fakeGoogle map[string]google.Identity

const googleNonce = "nonce-of-this-browser"

func (f fakeGoogle) Verify(_ context.Context, raw, nonce string) (google.Identity, error) {
	id, ok := f[raw]
	if !ok || nonce != googleNonce {
		return google.Identity{}, google.ErrInvalidToken
	}
	return id, nil
}

func TestGoogleNeverLinksAnExistingAccountByEmailAlone(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	ctx := context.Background()
	env.Accounts.SetGoogleVerifier(fakeGoogle{
		"owner":    {Subject: "g-1", Email: "owner@example.com", Name: "Owner"},
		"newcomer": {Subject: "g-2", Email: "newcomer@example.com", Name: "New Comer"},
	})
	owner := register(t, env, "owner@example.com")

	// Unknown address, from the sign-in page (no consent given): nothing is created.
	if _, err := env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "newcomer", Nonce: googleNonce}, browser); !errors.Is(err, identity.ErrTermsNotAccepted) {
		t.Fatalf("a new Google user without consent: %v, want ErrTermsNotAccepted", err)
	}
	if n := count(t, env, `SELECT count(*) FROM events WHERE type = 'user.registered'`); n != 1 {
		t.Fatalf("%d registrations after a Google sign-up without consent, want only the owner's", n)
	}
	// From the sign-up page with the box ticked: a verified account is created and signed in.
	in, err := env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "newcomer", Nonce: googleNonce, Terms: agreed}, browser)
	if err != nil || !in.User.Verified || in.AccessToken == "" {
		t.Fatalf("new Google user: %+v, %v", in.User, err)
	}
	if _, err := env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "forged", Nonce: googleNonce}, browser); err == nil {
		t.Fatal("a forged token signed in")
	}
	// A genuine token without the nonce of this browser's sign-in (one obtained elsewhere).
	if _, err := env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "newcomer"}, browser); !errors.Is(err, accounts.ErrGoogleInvalid) {
		t.Fatalf("a token without its nonce: %v, want ErrGoogleInvalid", err)
	}

	// An existing account is not taken over by a Google account with its address.
	_, err = env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "owner", Nonce: googleNonce}, browser)
	if !errors.Is(err, accounts.ErrLinkRequired) {
		t.Fatalf("existing account: %v, want ErrLinkRequired", err)
	}
	if _, err := env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "owner", Password: "guess", Nonce: googleNonce}, browser); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Fatalf("wrong password: %v", err)
	}
	code := env.LatestCode(t, "owner@example.com", "sign-in code")
	in, err = env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "owner", Code: code, Nonce: googleNonce}, browser)
	if err != nil || in.User.ID != owner.User.ID {
		t.Fatalf("link with the e-mailed code: %+v, %v", in.User, err)
	}
	// Linked now: Google alone signs in.
	if in, err = env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "owner", Nonce: googleNonce}, browser); err != nil || in.User.ID != owner.User.ID {
		t.Fatalf("linked sign-in: %v", err)
	}
}

// TestForgotPasswordIsTheSameEitherWay: whether or not an account exists, the answer is the
// same, it comes at the same deadline (counted from when the request began, through the
// service's waiter rather than measured), and the requester can observe no other difference:
// no events either way, and the same limits counted. Only the mailbox of a real account gets
// the link.
func TestForgotPasswordIsTheSameEitherWay(t *testing.T) {
	t.Parallel()
	start := time.Now().Add(time.Hour) // ahead of the database's clock, which stamps the outbox
	clk := clock.NewManual(start)
	var waits []time.Time
	var mu sync.Mutex
	env := accountstest.New(t, accountstest.WithClock(clk), accountstest.WithWaitUntil(func(_ context.Context, until time.Time) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, until)
		return nil
	}))
	register(t, env, "known@example.com")

	type observed struct {
		err         error
		deadline    time.Duration // after the request began
		events      int
		limitCounts int
	}
	ask := func(email string) observed {
		t.Helper()
		clk.Advance(time.Minute)
		began := clk.Now()
		events := count(t, env, `SELECT count(*) FROM events`)
		limits := count(t, env, `SELECT coalesce(sum(count), 0) FROM rate_limits`)
		mu.Lock()
		waits = nil
		mu.Unlock()
		err := env.Accounts.ForgotPassword(context.Background(), email, browser)
		mu.Lock()
		defer mu.Unlock()
		if len(waits) != 1 {
			t.Fatalf("%s: waited %d times, want once", email, len(waits))
		}
		return observed{
			err: err, deadline: waits[0].Sub(began),
			events:      count(t, env, `SELECT count(*) FROM events`) - events,
			limitCounts: count(t, env, `SELECT coalesce(sum(count), 0) FROM rate_limits`) - limits,
		}
	}
	known, unknown := ask("known@example.com"), ask("unknown@example.com")
	if known != unknown {
		t.Fatalf("known account: %+v; unknown: %+v", known, unknown)
	}
	if known.err != nil || known.deadline <= 0 {
		t.Fatalf("answer %+v: want success at a deadline after the request began", known)
	}
	if n := len(env.MailsTo(t, "known@example.com", "password")); n != 1 {
		t.Errorf("the account holder got %d reset e-mails, want 1", n)
	}
	if n := len(env.MailsTo(t, "unknown@example.com", "")); n != 0 {
		t.Errorf("an unknown address got %d e-mails", n)
	}
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAResetLinkMadeMeanwhileIsTheOneSent: another request makes a reset link after a "forgot
// password" made its own and before the round trip that stores it. The round trip fails on the
// cooldown, the flow runs again, finds the link just made and sends nothing more: the owner has
// one valid link, the one made in between.
func TestAResetLinkMadeMeanwhileIsTheOneSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := accountstest.New(t, accountstest.WithWaitUntil(func(context.Context, time.Time) error { return nil }))
	in := register(t, env, "ada@example.com")
	uid := uuid.MustParse(in.User.ID)
	var other string
	env.Accounts.AfterCodeMade(func(user uuid.UUID, purpose otp.Purpose) {
		if purpose != otp.ResetPassword || other != "" {
			return
		}
		var err error
		if other, err = env.Accounts.IssueCode(ctx, user, purpose); err != nil {
			t.Error(err)
		}
	})
	if err := env.Accounts.ForgotPassword(ctx, "ada@example.com", browser); err != nil {
		t.Fatalf("forgot password: %v, want it answered as usual", err)
	}
	if other == "" {
		t.Fatal("no link was made in between")
	}
	if n := count(t, env, `SELECT count(*) FROM one_time_codes WHERE user_id = $1 AND purpose = 'reset_password'`, uid); n != 1 {
		t.Errorf("%d reset links stored, want the one made in between", n)
	}
	if n := count(t, env, `SELECT count(*) FROM mail_outbox WHERE dedupe_key LIKE 'reset/%'`); n != 0 {
		t.Errorf("%d reset e-mails queued by the flow, want none: its link lost", n)
	}
	if _, err := env.Accounts.ResetPassword(ctx, other, "a brand new passphrase 77", "", browser); err != nil {
		t.Fatalf("the link made in between: %v", err)
	}
}

package accounts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/domain/clock"
	"clearvest/platform/auth/ratelimit"
	"clearvest/platform/auth/totp"
)

// rowsOf counts, table by table, the rows outside the log that belong to a user or name their
// address.
func rowsOf(t *testing.T, env *accountstest.Env, id, email string) map[string]int {
	t.Helper()
	uid := uuid.MustParse(id)
	keys := append(ratelimit.AccountKeys(email), ratelimit.AccountKeys(id)...)
	keys = append(keys, "totp-account:"+ratelimit.AccountKey(id))
	return map[string]int{
		"sessions":               count(t, env, `SELECT count(*) FROM sessions WHERE user_id = $1`, uid),
		"session_rotated_tokens": count(t, env, `SELECT count(*) FROM session_rotated_tokens r JOIN sessions s ON s.id = r.session_id WHERE s.user_id = $1`, uid),
		"trusted_devices":        count(t, env, `SELECT count(*) FROM trusted_devices WHERE user_id = $1`, uid),
		"one_time_codes":         count(t, env, `SELECT count(*) FROM one_time_codes WHERE user_id = $1`, uid),
		"totp":                   count(t, env, `SELECT count(*) FROM totp WHERE user_id = $1`, uid),
		"credentials":            count(t, env, `SELECT count(*) FROM credentials WHERE user_id = $1`, uid),
		"user_emails":            count(t, env, `SELECT count(*) FROM user_emails WHERE user_id = $1`, uid),
		"google_links":           count(t, env, `SELECT count(*) FROM google_links WHERE user_id = $1`, uid),
		"rate_limits":            count(t, env, `SELECT count(*) FROM rate_limits WHERE key = ANY($1)`, keys),
		"mail_outbox":            count(t, env, `SELECT count(*) FROM mail_outbox WHERE lower(to_address) LIKE '%' || $1 || '%'`, email),
		"pii_keys (live)":        count(t, env, `SELECT count(*) FROM pii_keys WHERE subject_id = $1 AND key_sealed IS NOT NULL`, id),
	}
}

// TestClosingDeletesEverythingOutsideTheLog uses every feature that leaves rows behind, closes
// the account, and counts what is left of it: nothing, while another user keeps everything.
func TestClosingDeletesEverythingOutsideTheLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewManual(time.Now())
	env := accountstest.New(t, accountstest.WithClock(clk))
	const email = "leaving@example.com"
	env.Accounts.SetGoogleVerifier(fakeGoogle{"leaver": {Subject: "g-leaver", Email: email, Name: "Leaver"}})
	admin, err := env.Accounts.CreateUser(ctx, accounts.CreateUserInput{Name: "Admin", Email: "admin@example.com", Password: "keys to the kingdom", Role: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	in := register(t, env, email)
	stay := register(t, env, "staying@example.com")
	c := browser
	c.DeviceToken = in.DeviceToken
	me := accounts.Actor{UserID: in.User.ID, Client: c}

	// A rotated refresh token, a linked Google account (with the e-mailed link code), an
	// authenticator, a verification link, wrong passwords counted against the address.
	if _, err := env.Accounts.Refresh(ctx, in.RefreshToken, c); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "leaver", Nonce: googleNonce}, c); !errors.Is(err, accounts.ErrLinkRequired) {
		t.Fatalf("Google sign-in for an existing address: %v", err)
	}
	clk.Advance(time.Minute) // the sender's clock: queued mail is due
	if _, err := env.Accounts.GoogleSignIn(ctx, accounts.GoogleInput{Credential: "leaver", Nonce: googleNonce, Code: env.LatestCode(t, email, "sign-in code")}, c); err != nil {
		t.Fatal(err)
	}
	setup, err := env.Accounts.SetupTOTP(ctx, me)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.Code(setup.Secret, clk.Now())
	if _, _, err := env.Accounts.EnableTOTP(ctx, me, code); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	if _, err := env.Accounts.SendVerification(ctx, me); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Accounts.Login(ctx, accounts.LoginInput{Email: "Leaving@Example.com", Password: "wrong"}, c); err == nil {
		t.Fatal("a wrong password signed in")
	}
	// A message still waiting in the outbox, and the ones already sent.
	clk.Advance(time.Minute)
	env.Mails(t)
	if err := env.Accounts.ForgotPassword(ctx, email, c); err != nil {
		t.Fatal(err)
	}

	for table, n := range rowsOf(t, env, in.User.ID, email) {
		if n == 0 && table != "rate_limits" || table == "rate_limits" && n < 2 {
			t.Fatalf("before closing, %s holds %d rows of the user: the test does not exercise it", table, n)
		}
	}
	if _, err := env.Accounts.Close(ctx, accounts.Actor{UserID: admin.ID, Role: "admin"}, in.User.ID); err != nil {
		t.Fatal(err)
	}
	for table, n := range rowsOf(t, env, in.User.ID, email) {
		if n != 0 {
			t.Errorf("after closing, %s still holds %d rows of the user", table, n)
		}
	}
	kept := rowsOf(t, env, stay.User.ID, "staying@example.com")
	for _, table := range []string{"sessions", "trusted_devices", "one_time_codes", "credentials", "user_emails", "mail_outbox", "pii_keys (live)"} {
		if kept[table] == 0 {
			t.Errorf("closing one account deleted another's %s", table)
		}
	}
}

// TestAFailedRegistrationLeavesNoKey: the personal-data key is made before the registration's
// transaction, so a registration refused inside it (the address is taken) must delete it again.
func TestAFailedRegistrationLeavesNoKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := accountstest.New(t)
	first := register(t, env, "taken@example.com")
	if _, err := env.Accounts.Register(ctx, accounts.RegisterInput{
		Name: "Second", Email: "TAKEN@example.com", Password: "another long phrase", Phone: "+447700900124", Country: "GB",
		Terms: agreed,
	}, browser); !errors.Is(err, accounts.ErrEmailTaken) {
		t.Fatalf("second registration: %v, want ErrEmailTaken", err)
	}
	if _, err := env.Accounts.CreateUser(ctx, accounts.CreateUserInput{
		Name: "Third", Email: "taken@EXAMPLE.com", Password: "yet another long phrase", Role: "admin",
	}); !errors.Is(err, accounts.ErrEmailTaken) {
		t.Fatalf("operator creating the same address: %v, want ErrEmailTaken", err)
	}
	var subjects []string
	rows, err := env.Pool.Query(ctx, `SELECT subject_id FROM pii_keys`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		subjects = append(subjects, s)
	}
	if len(subjects) != 1 || subjects[0] != first.User.ID {
		t.Errorf("pii_keys subjects %v, want only the registered user %s", subjects, first.User.ID)
	}
}

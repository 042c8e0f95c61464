package accounts_test

import (
	"context"
	"strings"
	"testing"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/domain/identity"
)

// TestIdentityCommandsAreOneRoundTrip: a password change and a suspension send their events and
// every row they write (the password, the ended sessions, the "this wasn't me" link and its
// e-mail; the principal's status) in one round trip, with no transaction held open across round
// trips, and what they wrote is there afterwards.
func TestIdentityCommandsAreOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rt := &accountstest.RoundTrips{}
	env := accountstest.New(t, accountstest.WithQueryTracer(rt))
	ada := register(t, env, "ada@example.com")
	admin, err := env.Accounts.CreateUser(ctx, accounts.CreateUserInput{Name: "Grace Admin", Email: "grace@example.com",
		Password: "correct horse battery staple 42", Role: string(identity.RoleAdmin), Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	actor := accounts.Actor{UserID: ada.User.ID, Client: browser}
	for _, c := range []struct {
		name  string
		parts []string
		run   func(ctx context.Context) error
	}{
		{"password change", []string{"credentials", "sessions", "otp_issue", "mail_outbox"}, func(ctx context.Context) error {
			_, err := env.Accounts.ChangePassword(ctx, actor, "analytical engine notes", "difference engine drawings", "")
			return err
		}},
		{"suspension", []string{"principals", "sessions"}, func(ctx context.Context) error {
			_, err := env.Accounts.Suspend(ctx, accounts.Actor{UserID: admin.ID, Role: identity.RoleAdmin}, ada.User.ID, "checking a report")
			return err
		}},
	} {
		var err error
		trips := rt.During(func() { err = c.run(accountstest.Marked(ctx)) })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// The attempt counters (rate_limits) are written before the command, on their own, so
		// that a refused attempt counts too.
		var w [][]string
		for _, trip := range accountstest.Writes(trips) {
			if !(len(trip) == 1 && accountstest.Carries(trip, "rate_limits")) {
				w = append(w, trip)
			}
		}
		if len(w) != 1 {
			t.Fatalf("%s wrote in %d round trips, want 1: %q", c.name, len(w), w)
		}
		for _, part := range c.parts {
			if !accountstest.Carries(w[0], part) {
				t.Errorf("%s: the round trip does not carry %s: %q", c.name, part, w[0])
			}
		}
		for _, sql := range w[0] {
			if s := strings.ToLower(strings.TrimSpace(sql)); strings.HasPrefix(s, "begin") || strings.HasPrefix(s, "commit") {
				t.Errorf("%s held a transaction open: %q", c.name, w[0])
			}
		}
	}
	for what, n := range map[string]int{
		"live sessions":            count(t, env, `SELECT count(*) FROM sessions WHERE user_id = $1 AND revoked_at IS NULL`, ada.User.ID),
		"suspended principals":     count(t, env, `SELECT count(*) FROM principals WHERE user_id = $1 AND status = 'suspended'`, ada.User.ID),
		"password changed e-mails": count(t, env, `SELECT count(*) FROM mail_outbox WHERE dedupe_key LIKE 'password-changed/%'`),
		"\"this wasn't me\" links": count(t, env, `SELECT count(*) FROM one_time_codes WHERE user_id = $1 AND purpose = 'wasnt_me'`, ada.User.ID),
	} {
		want := 1
		if what == "live sessions" {
			want = 0
		}
		if n != want {
			t.Errorf("%s: %d, want %d", what, n, want)
		}
	}
}

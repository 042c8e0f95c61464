package securitylog_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/apptest"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/platform/pgtest"
	"clearvest/projections"
	"clearvest/projections/securitylog"
)

func snapshot(t *testing.T, pool *pgxpool.Pool) []string {
	return pgtest.Texts(t, pool, `SELECT to_jsonb(e)::text FROM rm_securitylog.entries e ORDER BY user_id, position`)
}

// line is an entry without its position and time, which the test cannot predict.
type line struct{ kind, ip, userAgent, detail string }

func lines(entries []securitylog.Entry) []line {
	out := make([]line, len(entries))
	for i, e := range entries {
		out[i] = line{e.Kind, e.IP, e.UserAgent, e.Detail}
	}
	return out
}

func register(id, email string) func(*identity.User) error {
	return func(u *identity.User) error {
		return u.Register(identity.RegisterParams{UserID: id, Name: "Someone", Email: email, ReferralCode: "CODE" + id[len(id)-4:]})
	}
}

func TestSecurityLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.NewIdentityApp(t)
	ada, bob, grace := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	self := eventstore.Metadata{ActorID: ada, ClientIP: "198.51.100.12"}
	staff := eventstore.Metadata{ActorID: grace, ActorRole: "admin", ClientIP: "192.0.2.1"}

	a.Do(t, grace, eventstore.Metadata{}, register(grace, "grace@example.com"))
	a.Do(t, ada, eventstore.Metadata{ClientIP: "198.51.100.10"}, register(ada, "ada@example.com"))
	a.Do(t, ada, eventstore.Metadata{ClientIP: "198.51.100.11"}, (*identity.User).VerifyEmail)
	a.Do(t, ada, self, func(u *identity.User) error { return u.RecordNewDevice("dev-1", "203.0.113.7", "Firefox/128") })
	a.Do(t, ada, self, func(u *identity.User) error { return u.RecordPasswordChange(identity.ViaChange, time.Time{}) })
	a.Do(t, ada, eventstore.Metadata{ActorID: ada, ImpersonatorID: grace, ClientIP: "192.0.2.1"}, func(u *identity.User) error { return u.EnableTwoFactor(time.Time{}) })
	a.Do(t, ada, staff, func(u *identity.User) error { return u.RecordStaffAccess(grace, "support ticket 42") })
	a.Do(t, ada, staff, func(u *identity.User) error { return u.ChangeRole(grace, identity.RoleAuthor) })
	a.Do(t, ada, staff, func(u *identity.User) error { return u.Suspend(grace, "chargeback") })
	a.Do(t, ada, staff, (*identity.User).Reinstate)
	// An admin views the site as ada: one entry for the visit, with the role, none for the pages
	// read or the end.
	a.Do(t, ada, staff, func(u *identity.User) error {
		return u.StartImpersonation(grace, identity.RoleAdmin, "view-1", time.Now().Add(15*time.Minute))
	})
	a.Do(t, ada, staff, func(u *identity.User) error { return u.RecordImpersonatedView(grace, "view-1", "/api/users/getUser") })
	a.Do(t, ada, staff, func(u *identity.User) error { return u.EndImpersonation(grace, "view-1", "exit") })
	a.Do(t, ada, self, func(u *identity.User) error { return u.DisableTwoFactor(time.Time{}) })
	a.Do(t, ada, self, func(u *identity.User) error { return u.RecordPasswordChange(identity.ViaReset, time.Time{}) })
	a.Do(t, ada, self, func(u *identity.User) error { return u.UpdateProfile(identity.Profile{Name: "Ada"}) })
	key := identity.Passkey{CredentialID: "cred-1", PublicKey: []byte{1}, Name: "Laptop"}
	a.Do(t, ada, self, func(u *identity.User) error { return u.AddPasskey(key, time.Now()) })
	a.Do(t, ada, self, func(u *identity.User) error { return u.UsePasskey("cred-1", 1, time.Now()) })
	a.Do(t, ada, self, func(u *identity.User) error { return u.RemovePasskey("cred-1", time.Now()) })

	a.Do(t, bob, eventstore.Metadata{ClientIP: "198.51.100.20"}, register(bob, "bob@example.com"))
	a.Do(t, bob, eventstore.Metadata{ActorID: bob}, func(u *identity.User) error { return u.RecordNewDevice("dev-9", "203.0.113.9", "Safari") })
	a.Do(t, bob, eventstore.Metadata{ActorID: bob}, func(u *identity.User) error { return u.Close(bob) })
	if err := a.Cipher.Erase(ctx, bob); err != nil {
		t.Fatal(err)
	}

	r, err := projections.NewRunner(a.Pool, a.Store, []projections.Projection{securitylog.New(a.Codec)}, projections.WithBatchSize(4))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	eventstoretest.WaitVisible(t, a.Store, a.Last)
	if err := r.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}

	got, err := securitylog.ForUser(ctx, a.Pool, ada, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []line{
		// A passkey's uses are not security changes; adding and removing one are.
		{securitylog.KindPasskeyRemoved, "198.51.100.12", "", ""},
		{securitylog.KindPasskeyAdded, "198.51.100.12", "", ""},
		{securitylog.KindPasswordChanged, "198.51.100.12", "", "reset"},
		{securitylog.KindTwoFactorDisabled, "198.51.100.12", "", ""},
		{securitylog.KindStaffViewed, "", "", "admin"},
		{securitylog.KindReinstated, "", "", ""},
		{securitylog.KindSuspended, "", "", "chargeback"},
		{securitylog.KindRoleChanged, "", "", "subscriber → author"},
		{securitylog.KindStaffAccess, "", "", "support ticket 42"},
		// Enabled by staff impersonating ada: the address is staff's, not shown.
		{securitylog.KindTwoFactorEnabled, "", "", ""},
		{securitylog.KindPasswordChanged, "198.51.100.12", "", "change"},
		{securitylog.KindNewDeviceSignIn, "203.0.113.7", "Firefox/128", ""},
		{securitylog.KindEmailVerified, "198.51.100.11", "", ""},
		{securitylog.KindRegistered, "198.51.100.10", "", ""},
	}
	if !slices.Equal(lines(got), want) {
		t.Errorf("ForUser(ada)\n got  %v\n want %v", lines(got), want)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Position >= got[i-1].Position || got[i].At.After(got[i-1].At) {
			t.Fatalf("entries are not newest first: %+v", got)
		}
	}

	newest, err := securitylog.ForUser(ctx, a.Pool, ada, 2)
	if err != nil || !slices.Equal(lines(newest), want[:2]) {
		t.Errorf("ForUser(ada, 2) = %v, %v", lines(newest), err)
	}

	closed, err := securitylog.ForUser(ctx, a.Pool, bob, 10)
	if err != nil {
		t.Fatal(err)
	}
	wantClosed := []line{{securitylog.KindNewDeviceSignIn, "", "", ""}, {securitylog.KindRegistered, "", "", ""}}
	if !slices.Equal(lines(closed), wantClosed) {
		t.Errorf("a closed account keeps addresses: %v", lines(closed))
	}
	if none, err := securitylog.ForUser(ctx, a.Pool, "nobody", 10); err != nil || len(none) != 0 {
		t.Errorf("ForUser(nobody) = %v, %v", none, err)
	}

	live := snapshot(t, a.Pool)
	if _, err := r.Rebuild(ctx, securitylog.Name); err != nil {
		t.Fatal(err)
	}
	if rebuilt := snapshot(t, a.Pool); !slices.Equal(live, rebuilt) {
		t.Errorf("rebuild differs from live\nlive:    %v\nrebuilt: %v", live, rebuilt)
	}
}

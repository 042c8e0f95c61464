package users_test

import (
	"bytes"
	"context"
	"errors"
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
	"clearvest/projections/users"
)

// snapshot is the whole read model as text, for comparing a rebuild with the live model.
func snapshot(t *testing.T, pool *pgxpool.Pool) []string {
	return pgtest.Texts(t, pool, `SELECT to_jsonb(u)::text FROM rm_users.users u ORDER BY id`)
}

func register(id, name, email, code, referredBy string, role identity.Role) func(*identity.User) error {
	return func(u *identity.User) error {
		return u.Register(identity.RegisterParams{UserID: id, Name: name, Email: email, Phone: "+447700900123",
			Country: "GB", ReferralCode: code, ReferredBy: referredBy, Role: role})
	}
}

func TestUsersReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.NewIdentityApp(t)
	// UUIDv7 ids grow with time, like the registrations below.
	ada, grace, bob, carol := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	none := eventstore.Metadata{}

	a.Do(t, ada, none, register(ada, "Ada Lovelace", "Ada@Example.com", "ADA123", "", ""))
	a.Do(t, grace, none, register(grace, "Grace Hopper", "grace@example.com", "GRACE1", "", identity.RoleAdmin))
	a.Do(t, bob, none, register(bob, "Bob 100%_Real", "bob@example.org", "BOB777", ada, ""))
	a.Do(t, carol, none, register(carol, "Carol", "carol@example.com", "CAROL1", ada, ""))
	a.Do(t, ada, none, (*identity.User).VerifyEmail)
	a.Do(t, ada, none, func(u *identity.User) error {
		p := u.Profile()
		p.Bio, p.Photo = "Analyst", "/files/ada.png"
		return u.UpdateProfile(p)
	})
	a.Do(t, ada, none, func(u *identity.User) error { return u.EnableTwoFactor(time.Time{}) })
	a.Do(t, bob, none, func(u *identity.User) error { return u.Suspend(grace, "review") })
	a.Do(t, ada, none, func(u *identity.User) error { return u.ChangeRole(grace, identity.RoleAuthor) })
	a.Do(t, carol, none, func(u *identity.User) error { return u.Close(carol) })
	if err := a.Cipher.Erase(ctx, carol); err != nil {
		t.Fatal(err)
	}

	// Small batches, so rows are folded across batches as well as within one.
	r := a.Runner(t, []projections.Projection{users.New(a.Codec)}, projections.WithBatchSize(3))
	a.CatchUp(t, r)

	got, err := users.Get(ctx, a.Pool, ada)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Ada Lovelace" || got.Email != "Ada@Example.com" || got.Phone != "+447700900123" || got.Country != "GB" ||
		got.Bio != "Analyst" || got.Photo != "/files/ada.png" || got.Role != identity.RoleAuthor || got.Status != identity.StatusActive ||
		!got.IsVerified || got.KYCStatus != "Not Submitted" || got.ReferralCode != "ADA123" || got.ReferredBy != "" ||
		!got.TwoFactorEnabled || got.CreatedAt.IsZero() || got.UpdatedAt.Before(got.CreatedAt) {
		t.Errorf("Get(ada) = %+v", got)
	}

	closed, err := users.Get(ctx, a.Pool, carol)
	if err != nil {
		t.Fatal(err)
	}
	if closed.Status != identity.StatusClosed || closed.Name != "" || closed.Email != "" || closed.Phone != "" || closed.Bio != "" || closed.Photo != "" {
		t.Errorf("a closed account keeps personal data: %+v", closed)
	}
	if _, err := users.Get(ctx, a.Pool, "nobody"); !errors.Is(err, users.ErrNotFound) {
		t.Errorf("Get(nobody) = %v, want ErrNotFound", err)
	}

	list := func(opts users.ListOptions) ([]string, int) {
		t.Helper()
		page, total, err := users.List(ctx, a.Pool, opts)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, u := range page {
			ids = append(ids, u.ID)
		}
		return ids, total
	}
	for _, tc := range []struct {
		name      string
		opts      users.ListOptions
		want      []string
		wantTotal int
	}{
		{"everyone open, newest first", users.ListOptions{}, []string{bob, grace, ada}, 3},
		{"closed accounts on request", users.ListOptions{IncludeClosed: true}, []string{carol, bob, grace, ada}, 4},
		{"by name, any case", users.ListOptions{Search: "LOVELACE"}, []string{ada}, 1},
		{"by e-mail, any case", users.ListOptions{Search: "ada@EXAMPLE"}, []string{ada}, 1},
		{"by e-mail domain", users.ListOptions{Search: "example.com"}, []string{grace, ada}, 2},
		{"wildcards match literally", users.ListOptions{Search: "100%_"}, []string{bob}, 1},
		{"a lone % matches only a literal %", users.ListOptions{Search: "%"}, []string{bob}, 1},
		{"a page", users.ListOptions{Limit: 1, Offset: 1}, []string{grace}, 3},
		{"no match", users.ListOptions{Search: "zzz"}, nil, 0},
		{"closed users cannot be found by their old name", users.ListOptions{Search: "carol", IncludeClosed: true}, nil, 0},
	} {
		if ids, total := list(tc.opts); !slices.Equal(ids, tc.want) || total != tc.wantTotal {
			t.Errorf("%s: List = %v (total %d), want %v (total %d)", tc.name, ids, total, tc.want, tc.wantTotal)
		}
	}

	verified, suspended, total, err := users.Counts(ctx, a.Pool)
	if err != nil || verified != 1 || suspended != 1 || total != 3 {
		t.Errorf("Counts = %d verified, %d suspended, %d total (%v); want 1, 1, 3", verified, suspended, total, err)
	}

	refs, err := users.Referrals(ctx, a.Pool, ada)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0] != (users.Referral{ID: bob, Name: "Bob 100%_Real", Email: "bob@example.org"}) {
		t.Errorf("Referrals(ada) = %+v, want only bob (carol is closed)", refs)
	}

	// A rebuild reads carol's events after her key was destroyed ("[erased]" fields) and must
	// still arrive at exactly the rows the live model has.
	live := snapshot(t, a.Pool)
	if _, err := r.Rebuild(ctx, users.Name); err != nil {
		t.Fatal(err)
	}
	if rebuilt := snapshot(t, a.Pool); !slices.Equal(live, rebuilt) {
		t.Errorf("rebuild differs from live\nlive:    %v\nrebuilt: %v", live, rebuilt)
	}
	for _, row := range live {
		if bytes.Contains([]byte(row), []byte(eventstore.ErasedValue)) {
			t.Errorf("the read model shows %q: %s", eventstore.ErasedValue, row)
		}
	}
}

func TestOtherEventsAreIgnored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.NewIdentityApp(t)
	id := eventstore.NewEventID().String()
	a.Do(t, id, eventstore.Metadata{}, register(id, "Ada", "ada@example.com", "ADA123", "", ""))
	// Events of other streams and of user events this model does not show.
	a.Do(t, id, eventstore.Metadata{}, func(u *identity.User) error { return u.RecordPasswordChange(identity.ViaReset, time.Time{}) })
	stored, err := a.Store.Append(ctx, eventstore.StreamAppend{Stream: eventstore.NewStreamID("account", id),
		ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{eventstoretest.Event("account.unknown_to_this_binary", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	a.Last = stored[0].Position
	r := a.Runner(t, []projections.Projection{users.New(a.Codec)})
	a.CatchUp(t, r)
	u, err := users.Get(ctx, a.Pool, id)
	if err != nil || u.Name != "Ada" {
		t.Fatalf("Get = %+v, %v", u, err)
	}
}

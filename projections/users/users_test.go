package users_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/aggregate"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/pii"
	"clearvest/eventstore/postgres"
	"clearvest/pgmigrate"
	"clearvest/pgtest"
	"clearvest/projections"
	"clearvest/projections/users"
)

// app is the write side the way the application wires it: a PostgreSQL store, and a registry
// whose cipher seals personal fields with per-user keys.
type app struct {
	pool   *pgxpool.Pool
	store  *postgres.Store
	codec  *eventstore.Registry
	cipher *pii.Cipher
	last   int64
}

func newApp(t *testing.T) *app {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, postgres.Migrations, projections.Migrations, pii.Migrations); err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	cipher, err := pii.New(pool, bytes.Repeat([]byte{3}, 32))
	if err != nil {
		t.Fatal(err)
	}
	codec := eventstore.NewRegistry()
	identity.RegisterEvents(codec)
	codec.SetCipher(cipher)
	return &app{pool: pool, store: store, codec: codec, cipher: cipher}
}

// do runs one command on a user's stream: load, decide, append with the loaded version.
func (a *app) do(t *testing.T, userID string, meta eventstore.Metadata, decide func(*identity.User) error) {
	t.Helper()
	ctx := context.Background()
	stream := eventstore.NewStreamID(identity.StreamCategory, userID)
	envs, err := a.store.ReadStream(ctx, stream, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	history := make([]aggregate.Event, len(envs))
	for i, env := range envs {
		if history[i], err = a.codec.Decode(env); err != nil {
			t.Fatal(err)
		}
	}
	u := identity.New()
	aggregate.Load(u, int64(len(envs)), history...)
	if err := decide(u); err != nil {
		t.Fatalf("command on %s: %v", userID, err)
	}
	var events []eventstore.NewEvent
	for _, e := range u.Changes() {
		ne, err := a.codec.EncodeFor(stream, e, meta)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ne)
	}
	stored, err := a.store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: u.LoadedVersion(), Events: events})
	if err != nil {
		t.Fatal(err)
	}
	a.last = stored[len(stored)-1].Position
}

func (a *app) runner(t *testing.T, opts ...projections.Option) *projections.Runner {
	t.Helper()
	r, err := projections.NewRunner(a.pool, a.store, []projections.Projection{users.New(a.codec)}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

func (a *app) catchUp(t *testing.T, r *projections.Runner) {
	t.Helper()
	eventstoretest.WaitVisible(t, a.store, a.last)
	if err := r.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// snapshot is the whole read model as text, for comparing a rebuild with the live model.
func snapshot(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT to_jsonb(u)::text FROM rm_users.users u ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
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
	a := newApp(t)
	// UUIDv7 ids grow with time, like the registrations below.
	ada, grace, bob, carol := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	none := eventstore.Metadata{}

	a.do(t, ada, none, register(ada, "Ada Lovelace", "Ada@Example.com", "ADA123", "", ""))
	a.do(t, grace, none, register(grace, "Grace Hopper", "grace@example.com", "GRACE1", "", identity.RoleAdmin))
	a.do(t, bob, none, register(bob, "Bob 100%_Real", "bob@example.org", "BOB777", ada, ""))
	a.do(t, carol, none, register(carol, "Carol", "carol@example.com", "CAROL1", ada, ""))
	a.do(t, ada, none, (*identity.User).VerifyEmail)
	a.do(t, ada, none, func(u *identity.User) error {
		p := u.Profile()
		p.Bio, p.Photo = "Analyst", "/files/ada.png"
		return u.UpdateProfile(p)
	})
	a.do(t, ada, none, (*identity.User).EnableTwoFactor)
	a.do(t, bob, none, func(u *identity.User) error { return u.Suspend(grace, "review") })
	a.do(t, ada, none, func(u *identity.User) error { return u.ChangeRole(grace, identity.RoleAuthor) })
	a.do(t, carol, none, func(u *identity.User) error { return u.Close(carol) })
	if err := a.cipher.Erase(ctx, carol); err != nil {
		t.Fatal(err)
	}

	// Small batches, so rows are folded across batches as well as within one.
	r := a.runner(t, projections.WithBatchSize(3))
	a.catchUp(t, r)

	got, err := users.Get(ctx, a.pool, ada)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Ada Lovelace" || got.Email != "Ada@Example.com" || got.Phone != "+447700900123" || got.Country != "GB" ||
		got.Bio != "Analyst" || got.Photo != "/files/ada.png" || got.Role != identity.RoleAuthor || got.Status != identity.StatusActive ||
		!got.IsVerified || got.KYCStatus != "Not Submitted" || got.ReferralCode != "ADA123" || got.ReferredBy != "" ||
		!got.TwoFactorEnabled || got.CreatedAt.IsZero() || got.UpdatedAt.Before(got.CreatedAt) {
		t.Errorf("Get(ada) = %+v", got)
	}

	closed, err := users.Get(ctx, a.pool, carol)
	if err != nil {
		t.Fatal(err)
	}
	if closed.Status != identity.StatusClosed || closed.Name != "" || closed.Email != "" || closed.Phone != "" || closed.Bio != "" || closed.Photo != "" {
		t.Errorf("a closed account keeps personal data: %+v", closed)
	}
	if _, err := users.Get(ctx, a.pool, "nobody"); !errors.Is(err, users.ErrNotFound) {
		t.Errorf("Get(nobody) = %v, want ErrNotFound", err)
	}

	list := func(opts users.ListOptions) ([]string, int) {
		t.Helper()
		page, total, err := users.List(ctx, a.pool, opts)
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

	verified, suspended, total, err := users.Counts(ctx, a.pool)
	if err != nil || verified != 1 || suspended != 1 || total != 3 {
		t.Errorf("Counts = %d verified, %d suspended, %d total (%v); want 1, 1, 3", verified, suspended, total, err)
	}

	if u, err := users.ByReferralCode(ctx, a.pool, " ada123 "); err != nil || u.ID != ada {
		t.Errorf("ByReferralCode(ada123) = %s, %v", u.ID, err)
	}
	if _, err := users.ByReferralCode(ctx, a.pool, "CAROL1"); !errors.Is(err, users.ErrNotFound) {
		t.Errorf("a closed account's code: %v, want ErrNotFound", err)
	}

	refs, err := users.Referrals(ctx, a.pool, ada)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0] != (users.Referral{ID: bob, Name: "Bob 100%_Real", Email: "bob@example.org"}) {
		t.Errorf("Referrals(ada) = %+v, want only bob (carol is closed)", refs)
	}

	// A rebuild reads carol's events after her key was destroyed ("[erased]" fields) and must
	// still arrive at exactly the rows the live model has.
	live := snapshot(t, a.pool)
	if _, err := r.Rebuild(ctx, users.Name); err != nil {
		t.Fatal(err)
	}
	if rebuilt := snapshot(t, a.pool); !slices.Equal(live, rebuilt) {
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
	a := newApp(t)
	id := eventstore.NewEventID().String()
	a.do(t, id, eventstore.Metadata{}, register(id, "Ada", "ada@example.com", "ADA123", "", ""))
	// Events of other streams and of user events this model does not show.
	a.do(t, id, eventstore.Metadata{}, func(u *identity.User) error { return u.RecordPasswordChange(identity.ViaReset) })
	stored, err := a.store.Append(ctx, eventstore.StreamAppend{Stream: eventstore.NewStreamID("account", id),
		ExpectedVersion: eventstore.AnyVersion, Events: []eventstore.NewEvent{eventstoretest.Event("account.unknown_to_this_binary", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	a.last = stored[0].Position
	r := a.runner(t)
	a.catchUp(t, r)
	u, err := users.Get(ctx, a.pool, id)
	if err != nil || u.Name != "Ada" {
		t.Fatalf("Get = %+v, %v", u, err)
	}
}

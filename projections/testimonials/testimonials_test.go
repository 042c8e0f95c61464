package testimonials_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/app/apptest"
	"clearvest/domain/identity"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/testimonials"
)

func snapshot(t *testing.T, a *apptest.IdentityApp) []string {
	t.Helper()
	rows, err := a.Pool.Query(context.Background(), `SELECT row_to_json(r)::text FROM rm_testimonials.testimonials r ORDER BY testimonial_id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ids(list []testimonials.Testimonial) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.ID + ":" + string(x.Status)
	}
	return out
}

// TestTestimonialsReadModel: submitted testimonials queue oldest first, approved ones list most
// recently approved first, a rejection keeps its reason, the author's latest, a closed account's
// testimonials deleted, and a rebuild that yields the same rows.
func TestTestimonialsReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.NewIdentityApp(t)
	testimonial.RegisterEvents(a.Codec)
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	do := func(id string, decide func(*testimonial.Testimonial) error) { a.DoTestimonial(t, id, decide) }
	submit := func(id, user string, when time.Time) {
		do(id, func(x *testimonial.Testimonial) error {
			return x.Submit(id, user, "A calm, clear place to start saving in crypto.", true, when)
		})
	}
	ada, bob := eventstore.NewEventID().String(), eventstore.NewEventID().String()
	a.Do(t, bob, eventstore.Metadata{}, func(u *identity.User) error {
		return u.Register(identity.RegisterParams{UserID: bob, Name: "Bob Byte", Email: "bob@example.com", Phone: "+447700900123", Country: "GB", ReferralCode: "BOB123"})
	})
	submit("t1", ada, at)
	submit("t2", bob, at.Add(time.Minute))
	submit("t3", ada, at.Add(2*time.Minute))
	submit("t4", ada, at.Add(3*time.Minute))
	do("t1", func(x *testimonial.Testimonial) error { return x.Approve("staff", at.Add(time.Hour)) })
	do("t2", func(x *testimonial.Testimonial) error { return x.Approve("staff", at.Add(2*time.Hour)) })
	do("t3", func(x *testimonial.Testimonial) error {
		return x.Reject("staff", "Names another person.", at.Add(time.Hour))
	})

	r := a.Runner(t, []projections.Projection{testimonials.New(a.Codec)}, projections.WithBatchSize(2))
	a.CatchUp(t, r)
	pending, err := testimonials.Pending(ctx, a.Pool, 10)
	if err != nil || !slices.Equal(ids(pending), []string{"t4:Pending"}) {
		t.Errorf("pending = %q, %v", ids(pending), err)
	}
	approved, err := testimonials.Approved(ctx, a.Pool, 10)
	if err != nil || !slices.Equal(ids(approved), []string{"t2:Approved", "t1:Approved"}) {
		t.Errorf("approved = %q, %v", ids(approved), err)
	}
	if got, err := testimonials.Get(ctx, a.Pool, "t3"); err != nil || got.Reason != "Names another person." || got.UserID != ada {
		t.Errorf("t3 = %+v, %v", got, err)
	}
	if latest, ok, err := testimonials.Latest(ctx, a.Pool, ada); err != nil || !ok || latest.ID != "t4" {
		t.Errorf("ada's latest = %+v %v %v", latest, ok, err)
	}
	if _, err := testimonials.Get(ctx, a.Pool, "nope"); err != testimonials.ErrNotFound {
		t.Errorf("Get of an unknown id: %v", err)
	}

	a.Do(t, bob, eventstore.Metadata{}, func(u *identity.User) error { return u.Close(bob) })
	a.CatchUp(t, r)
	approved, err = testimonials.Approved(ctx, a.Pool, 10)
	if err != nil || !slices.Equal(ids(approved), []string{"t1:Approved"}) {
		t.Errorf("approved after bob closed his account = %q, %v", ids(approved), err)
	}

	live := snapshot(t, a)
	if _, err := r.Rebuild(ctx, testimonials.Name); err != nil {
		t.Fatal(err)
	}
	if rebuilt := snapshot(t, a); !slices.Equal(live, rebuilt) {
		t.Errorf("rebuild differs from live\nlive:    %v\nrebuilt: %v", live, rebuilt)
	}
}

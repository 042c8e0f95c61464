package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

func newStore(t *testing.T, opts ...postgres.Option) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, postgres.Migrations); err != nil {
		t.Fatal(err)
	}
	s := postgres.New(pool, append([]postgres.Option{postgres.WithPollInterval(50 * time.Millisecond)}, opts...)...)
	t.Cleanup(s.Close)
	return s, pool
}

func TestConformance(t *testing.T) {
	eventstoretest.Run(t, func(t *testing.T) eventstore.Store {
		s, _ := newStore(t)
		return s
	})
}

// TestNullCharacterIsAnInvalidEvent: jsonb cannot hold \u0000, and text cannot hold U+0000. The
// store says so with ErrNullCharacter inside ErrInvalidEvent, which the API answers with a 400,
// and stores nothing.
func TestNullCharacterIsAnInvalidEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	bad := eventstoretest.Event("t.bad", 1)
	bad.Data = json.RawMessage(`{"name":"a\u0000b"}`)
	withMeta := eventstoretest.Event("t.bad", 2)
	withMeta.Metadata.ActorID = "a\x00b"
	for name, events := range map[string][]eventstore.NewEvent{
		"data":                {bad},
		"metadata":            {withMeta},
		"data of two events":  {eventstoretest.Event("t.ok", 3), bad},
		"metadata of two too": {withMeta, eventstoretest.Event("t.ok", 4)},
	} {
		_, err := s.Append(ctx, eventstore.StreamAppend{Stream: "account-a", ExpectedVersion: eventstore.AnyVersion, Events: events})
		if !errors.Is(err, eventstore.ErrInvalidEvent) || !errors.Is(err, eventstore.ErrNullCharacter) {
			t.Errorf("%s holding U+0000: err = %v, want ErrInvalidEvent and ErrNullCharacter", name, err)
		}
	}
	typed := eventstoretest.Event("t.a\x00b", 5)
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: "account-a", ExpectedVersion: eventstore.AnyVersion,
		Events: []eventstore.NewEvent{typed}}); !errors.Is(err, eventstore.ErrInvalidEvent) {
		t.Errorf("a type holding U+0000: err = %v, want ErrInvalidEvent", err)
	}
	if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: "account-a\x00", ExpectedVersion: eventstore.AnyVersion,
		Events: []eventstore.NewEvent{eventstoretest.Event("t.ok", 6)}}); !errors.Is(err, eventstore.ErrInvalidStream) {
		t.Errorf("a stream id holding U+0000: err = %v, want ErrInvalidStream", err)
	}
	var stored int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM streams)`).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("%d rows stored (%v), want none", stored, err)
	}
}

// TestReadAllWithoutPayloadsLeavesOutTheNamedCategories: the events of the named categories come
// back without data and metadata, every other field as ReadAll gives it; other streams' events
// come back whole, and the order and the pages are ReadAll's.
func TestReadAllWithoutPayloadsLeavesOutTheNamedCategories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	for i, stream := range []eventstore.StreamID{"account-a", "user-a", "account-b", "accounting-c", "account-a"} {
		e := eventstoretest.Event("t.happened", i)
		e.Metadata.ActorID = "staff-1"
		if _, err := s.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.AnyVersion,
			Events: []eventstore.NewEvent{e}}); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := s.ReadAll(ctx, 0, 10)
	if err != nil || len(whole) != 5 {
		t.Fatalf("ReadAll: %d events, %v", len(whole), err)
	}
	for _, limit := range []int{10, 2} {
		var bare []eventstore.Envelope
		for after := int64(0); ; {
			page, err := s.ReadAllWithoutPayloads(ctx, after, limit, []string{"account"})
			if err != nil {
				t.Fatal(err)
			}
			bare = append(bare, page...)
			if len(page) < limit {
				break
			}
			after = page[len(page)-1].Position
		}
		if len(bare) != len(whole) {
			t.Fatalf("limit %d: %d events, want %d", limit, len(bare), len(whole))
		}
		for i, got := range bare {
			want := whole[i]
			if want.StreamID.Category() == "account" {
				if got.Data != nil || got.Metadata != (eventstore.Metadata{}) {
					t.Errorf("limit %d: %s kept its payload: %s, %+v", limit, got.StreamID, got.Data, got.Metadata)
				}
				want.Data, want.Metadata = nil, eventstore.Metadata{}
			}
			if string(got.Data) != string(want.Data) || got.Metadata != want.Metadata || got.Position != want.Position ||
				got.ID != want.ID || got.StreamID != want.StreamID || got.Version != want.Version || got.Type != want.Type ||
				got.SchemaVersion != want.SchemaVersion || !got.RecordedAt.Equal(want.RecordedAt) {
				t.Errorf("limit %d, event %d:\n got %+v\nwant %+v", limit, i, got, want)
			}
		}
	}
}

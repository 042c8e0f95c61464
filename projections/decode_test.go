package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
)

// counted is an event stored at schema version 1 and read at version 2, so that every decode
// runs its upcaster once: the upcaster counts the decodes.
type counted struct {
	N int `json:"n"`
}

func (counted) EventName() string { return "test.counted" }

func countingCodec(decodes *atomic.Int64) *eventstore.Registry {
	codec := eventstore.NewRegistry()
	eventstore.Register[counted](codec, 2)
	codec.AddUpcaster("test.counted", 1, func(data json.RawMessage) (json.RawMessage, error) {
		decodes.Add(1)
		return data, nil
	})
	return codec
}

// decoding decodes every test.counted event through Decode and keeps what it read.
type decoding struct {
	name  string
	codec *eventstore.Registry
	types map[string]bool
}

func (p decoding) Name() string { return p.name }
func (decoding) Schema() string {
	return `CREATE TABLE read (position bigint PRIMARY KEY, n int NOT NULL)`
}
func (p decoding) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.Envelope) error {
	return EachOf(ctx, events, p.codec, p.types, nil, func(env eventstore.Envelope, _ string, e aggregate.Event) error {
		_, err := tx.Exec(ctx, `INSERT INTO read VALUES ($1, $2)`, env.Position, e.(counted).N)
		return err
	})
}

func appendCounted(t *testing.T, f fixture, from, n int) int64 {
	t.Helper()
	batch := make([]eventstore.NewEvent, n)
	for i := range batch {
		batch[i] = eventstoretest.Event("test.counted", from+i)
	}
	envs, err := f.store.Append(context.Background(), eventstore.StreamAppend{
		Stream: eventstore.NewStreamID("acct", fmt.Sprint(from)), ExpectedVersion: eventstore.AnyVersion, Events: batch})
	if err != nil {
		t.Fatal(err)
	}
	last := envs[len(envs)-1].Position
	eventstoretest.WaitVisible(t, f.store, last)
	return last
}

// TestAWindowDecodesEachEventOnce applies the same events to two projections in one window's
// transaction: each event is decoded once for both. The next window decodes its own events, and
// a rebuild decodes the old ones again: nothing decoded is kept past its batch.
func TestAWindowDecodesEachEventOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var decodes atomic.Int64
	codec := countingCodec(&decodes)
	types := map[string]bool{"test.counted": true}
	a, b := decoding{"decode_a", codec, types}, decoding{"decode_b", codec, types}
	r := f.runner(t, []Projection{a, b})
	ctx := context.Background()
	group := []*live{{p: a, state: StateRunning, size: 100}, {p: b, state: StateRunning, size: 100}}

	window := func(want int64) {
		t.Helper()
		decodes.Store(0)
		res, alone, err := r.stepGroup(ctx, group, time.Now())
		if err != nil || len(alone) > 0 {
			t.Fatalf("stepGroup: %v (alone: %d)", err, len(alone))
		}
		for i, got := range res {
			if int64(got.applied) != want {
				t.Fatalf("%s applied %d events, want %d", group[i].p.Name(), got.applied, want)
			}
		}
		if got := decodes.Load(); got != want {
			t.Errorf("two projections applying %d events decoded %d times, want once each", want, got)
		}
	}
	appendCounted(t, f, 0, 20)
	window(20)
	appendCounted(t, f, 20, 5)
	window(5) // a new batch decodes its events

	decodes.Store(0)
	if _, err := r.Rebuild(ctx, a.name); err != nil {
		t.Fatal(err)
	}
	if got := decodes.Load(); got != 25 {
		t.Errorf("the rebuild decoded %d times, want all 25 events again", got)
	}
	for _, name := range []string{a.name, b.name} {
		var n, sum int
		if err := f.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(n), 0) FROM `+SchemaName(name)+`.read`).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		if n != 25 || sum != 24*25/2 {
			t.Errorf("%s read %d events summing to %d, want 25 summing to %d", name, n, sum, 24*25/2)
		}
	}
}

// TestDecodeKeepsNothingOutsideABatch checks that Decode without a batch, or in another batch,
// decodes again, and that a batch does not mix up the events of two codecs.
func TestDecodeKeepsNothingOutsideABatch(t *testing.T) {
	t.Parallel()
	var decodes, others atomic.Int64
	codec, other := countingCodec(&decodes), countingCodec(&others)
	env := eventstore.Envelope{Position: 7, StreamID: "acct-1", Type: "test.counted", SchemaVersion: 1, Data: []byte(`{"n": 3}`)}
	decode := func(ctx context.Context, c *eventstore.Registry) {
		t.Helper()
		e, err := Decode(ctx, c, env)
		if err != nil || e.(counted).N != 3 {
			t.Fatalf("Decode = %v, %v", e, err)
		}
	}
	decode(context.Background(), codec)
	decode(context.Background(), codec)
	if got := decodes.Load(); got != 2 {
		t.Errorf("outside a batch: %d decodes for two reads, want 2", got)
	}
	batch := withDecodeCache(context.Background())
	decode(batch, codec)
	decode(batch, codec)
	decode(batch, other)
	if got := decodes.Load(); got != 3 {
		t.Errorf("in one batch: %d decodes, want one more", got)
	}
	if got := others.Load(); got != 1 {
		t.Errorf("another codec's read in the batch decoded %d times, want its own decode", got)
	}
	decode(withDecodeCache(context.Background()), codec)
	if got := decodes.Load(); got != 4 {
		t.Errorf("a new batch: %d decodes, want one more", got)
	}
}

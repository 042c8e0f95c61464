package eventstore_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"clearvest/eventstore"
)

// DepositRequested is at schema version 3. Its history:
//
//	v1 {"amt":"12.50"}
//	v2 {"amount":"12.50"}                   amt renamed
//	v3 {"amount":"12.50","asset":"USDT"}    asset added; everything before was USDT
type DepositRequested struct {
	Amount string `json:"amount"`
	Asset  string `json:"asset"`
}

func (DepositRequested) EventName() string { return "test.deposit_requested" }

type Verified struct {
	UserID string `json:"userId"`
}

func (Verified) EventName() string { return "test.verified" }

// renamedVerified is Verified after someone renamed the Go type: same stored name.
type renamedVerified struct {
	UserID string `json:"userId"`
}

func (renamedVerified) EventName() string { return "test.verified" }

func upcastV1(data json.RawMessage) (json.RawMessage, error) {
	var v1 struct {
		Amt string `json:"amt"`
	}
	if err := json.Unmarshal(data, &v1); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"amount": v1.Amt})
}

func upcastV2(data json.RawMessage) (json.RawMessage, error) {
	var v2 map[string]any
	if err := json.Unmarshal(data, &v2); err != nil {
		return nil, err
	}
	v2["asset"] = "USDT"
	return json.Marshal(v2)
}

func newRegistry(t *testing.T) *eventstore.Registry {
	t.Helper()
	r := eventstore.NewRegistry()
	eventstore.Register[DepositRequested](r, 3)
	eventstore.Register[Verified](r, 1)
	r.AddUpcaster("test.deposit_requested", 1, upcastV1)
	r.AddUpcaster("test.deposit_requested", 2, upcastV2)
	return r
}

// stored turns a NewEvent into the envelope a store would hand back.
func stored(e eventstore.NewEvent) eventstore.Envelope {
	return eventstore.Envelope{
		ID: e.ID, StreamID: "account-1", Version: 1, Position: 1,
		Type: e.Type, SchemaVersion: e.SchemaVersion, Data: e.Data, Metadata: e.Metadata,
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	meta := eventstore.Metadata{CorrelationID: "req-1", ActorID: "user-1", IdempotencyKey: "k", RequestHash: "h"}
	in := DepositRequested{Amount: "12.50", Asset: "BTC"}

	e, err := r.Encode(in, meta)
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != "test.deposit_requested" || e.SchemaVersion != 3 || e.Metadata != meta {
		t.Errorf("Encode = type %q, schema v%d, metadata %+v", e.Type, e.SchemaVersion, e.Metadata)
	}
	if e.ID.Version() != 7 {
		t.Errorf("event id %s is UUID version %d, want 7", e.ID, e.ID.Version())
	}
	if want := `{"amount":"12.50","asset":"BTC"}`; string(e.Data) != want {
		t.Errorf("Data = %s, want %s", e.Data, want)
	}

	out, err := r.Decode(stored(e))
	if err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Errorf("Decode = %#v, want %#v", out, in)
	}
}

func TestEncodeGivesEveryEventItsOwnID(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	seen := map[uuid.UUID]bool{}
	for range 100 {
		e, err := r.Encode(Verified{UserID: "u"}, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if seen[e.ID] {
			t.Fatalf("id %s handed out twice", e.ID)
		}
		seen[e.ID] = true
	}
}

func TestStoredTypeNameIsStable(t *testing.T) {
	t.Parallel()
	old := eventstore.NewRegistry()
	eventstore.Register[Verified](old, 1)
	e, err := old.Encode(Verified{UserID: "u-1"}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != "test.verified" || strings.Contains(e.Type, "Verified") {
		t.Fatalf("stored type = %q; it must be the EventName, not the Go type", e.Type)
	}

	// After the Go type is renamed, history written before still decodes.
	renamed := eventstore.NewRegistry()
	eventstore.Register[renamedVerified](renamed, 1)
	got, err := renamed.Decode(stored(e))
	if err != nil {
		t.Fatal(err)
	}
	if got != (renamedVerified{UserID: "u-1"}) {
		t.Errorf("Decode after rename = %#v", got)
	}
}

func TestUpcastersRunInOrderOnRead(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	tests := []struct {
		name    string
		version int
		data    string
		want    DepositRequested
	}{
		{"v1 goes through v2 to v3", 1, `{"amt":"1.00"}`, DepositRequested{Amount: "1.00", Asset: "USDT"}},
		{"v2 goes to v3", 2, `{"amount":"2.00"}`, DepositRequested{Amount: "2.00", Asset: "USDT"}},
		{"v3 is read as is", 3, `{"amount":"3.00","asset":"ETH"}`, DepositRequested{Amount: "3.00", Asset: "ETH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := eventstore.Envelope{
				ID: eventstore.NewEventID(), Type: "test.deposit_requested",
				SchemaVersion: tt.version, Data: json.RawMessage(tt.data),
			}
			got, err := r.Decode(env)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Decode(v%d %s) = %#v, want %#v", tt.version, tt.data, got, tt.want)
			}
			if string(env.Data) != tt.data {
				t.Errorf("Decode changed the envelope's data to %s", env.Data)
			}
		})
	}
}

func TestUpcasterStepsAreChained(t *testing.T) {
	t.Parallel()
	r := eventstore.NewRegistry()
	eventstore.Register[DepositRequested](r, 3)
	var mu sync.Mutex
	var steps []string
	step := func(name, out string) eventstore.Upcaster {
		return func(in json.RawMessage) (json.RawMessage, error) {
			mu.Lock()
			defer mu.Unlock()
			steps = append(steps, name+" got "+string(in))
			return json.RawMessage(out), nil
		}
	}
	r.AddUpcaster("test.deposit_requested", 2, step("v2→v3", `{"amount":"from v2"}`))
	r.AddUpcaster("test.deposit_requested", 1, step("v1→v2", `"from v1"`))

	got, err := r.Decode(eventstore.Envelope{Type: "test.deposit_requested", SchemaVersion: 1, Data: json.RawMessage(`"v1"`)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`v1→v2 got "v1"`, `v2→v3 got "from v1"`}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps = %q, want %q", steps, want)
	}
	if got != (DepositRequested{Amount: "from v2"}) {
		t.Errorf("Decode = %#v", got)
	}
}

func TestUnknownTypeIsAnErrorNeverDropped(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	_, err := r.Decode(eventstore.Envelope{ID: eventstore.NewEventID(), Type: "test.something_new", SchemaVersion: 1, Data: json.RawMessage(`{}`)})
	if !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Errorf("Decode of an unknown type: error = %v, want ErrUnknownEventType", err)
	}
	if r.Known("test.something_new") || !r.Known("test.verified") {
		t.Error("Known is wrong")
	}
}

func TestEncodeOfUnregisteredTypeFails(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	if _, err := r.Encode(renamedVerified{}, eventstore.Metadata{}); !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Errorf("Encode(unregistered) error = %v, want ErrUnknownEventType", err)
	}
	// Types are registered by value; a pointer is a different Go type.
	if _, err := r.Encode(&Verified{}, eventstore.Metadata{}); !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Errorf("Encode(pointer) error = %v, want ErrUnknownEventType", err)
	}
}

func TestUnreadableSchemaVersions(t *testing.T) {
	t.Parallel()
	r := eventstore.NewRegistry()
	eventstore.Register[DepositRequested](r, 3)
	r.AddUpcaster("test.deposit_requested", 2, upcastV2) // the v1 step is missing
	tests := []struct {
		name    string
		version int
		want    string
	}{
		{"missing upcaster", 1, "no upcaster for test.deposit_requested v1"},
		{"from the future", 4, "schema version 4 is not readable"},
		{"zero", 0, "schema version 0 is not readable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := r.Decode(eventstore.Envelope{Type: "test.deposit_requested", SchemaVersion: tt.version, Data: json.RawMessage(`{"amt":"1"}`)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode(v%d) error = %v, want one containing %q", tt.version, err, tt.want)
			}
			if errors.Is(err, eventstore.ErrUnknownEventType) {
				t.Errorf("a known type reported as unknown: %v", err)
			}
		})
	}
}

func TestUpcasterAndDecodeFailuresAreReported(t *testing.T) {
	t.Parallel()
	r := eventstore.NewRegistry()
	eventstore.Register[DepositRequested](r, 2)
	boom := errors.New("boom")
	r.AddUpcaster("test.deposit_requested", 1, func(json.RawMessage) (json.RawMessage, error) { return nil, boom })

	if _, err := r.Decode(eventstore.Envelope{Type: "test.deposit_requested", SchemaVersion: 1, Data: json.RawMessage(`{}`)}); !errors.Is(err, boom) {
		t.Errorf("upcaster failure: error = %v, want it to wrap %v", err, boom)
	}
	if _, err := r.Decode(eventstore.Envelope{Type: "test.deposit_requested", SchemaVersion: 2, Data: json.RawMessage(`{"amount":5}`)}); err == nil {
		t.Error("payload of the wrong shape decoded without error")
	}
}

func TestRegistrationMistakesPanic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		do   func(r *eventstore.Registry)
	}{
		{"same type twice", func(r *eventstore.Registry) {
			eventstore.Register[Verified](r, 1)
			eventstore.Register[Verified](r, 2)
		}},
		{"two types under one name", func(r *eventstore.Registry) {
			eventstore.Register[Verified](r, 1)
			eventstore.Register[renamedVerified](r, 1)
		}},
		{"schema version zero", func(r *eventstore.Registry) { eventstore.Register[Verified](r, 0) }},
		{"upcaster for an unregistered type", func(r *eventstore.Registry) {
			r.AddUpcaster("test.verified", 1, upcastV1)
		}},
		{"upcaster from the current version", func(r *eventstore.Registry) {
			eventstore.Register[DepositRequested](r, 3)
			r.AddUpcaster("test.deposit_requested", 3, upcastV1)
		}},
		{"upcaster from version zero", func(r *eventstore.Registry) {
			eventstore.Register[DepositRequested](r, 3)
			r.AddUpcaster("test.deposit_requested", 0, upcastV1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			tt.do(eventstore.NewRegistry())
		})
	}
}

func TestRegistryIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				e, err := r.Encode(DepositRequested{Amount: "1.00", Asset: "BTC"}, eventstore.Metadata{})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := r.Decode(stored(e)); err != nil {
					t.Error(err)
					return
				}
				_ = r.Known("test.verified")
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			r.AddUpcaster("test.deposit_requested", 2, upcastV2)
		}
	})
	wg.Wait()
}

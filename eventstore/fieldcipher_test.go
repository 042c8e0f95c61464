package eventstore_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"clearvest/eventstore"
)

type Address struct {
	Street string `json:"street" pii:"true"`
	City   string `json:"city"`
}

type Signup struct {
	UserID  string  `json:"userId"`
	Email   string  `json:"email" pii:"true"`
	Phone   string  `json:"phone" pii:"true"`
	Country string  `json:"country"`
	Home    Address `json:"home"`
}

func (Signup) EventName() string { return "test.signup" }

// fakeCipher reverses the text and tags it with the subject, so tests can see what was sealed
// for whom without real cryptography.
type fakeCipher struct {
	mu     sync.Mutex
	erased map[string]bool
	sealed []string // subjects, one per Seal
}

func newFakeCipher() *fakeCipher { return &fakeCipher{erased: map[string]bool{}} }

func (c *fakeCipher) Seal(subject, plaintext string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.erased[subject] {
		return "", eventstore.ErrErased
	}
	c.sealed = append(c.sealed, subject)
	return "pii:fake:" + subject + ":" + reverse(plaintext), nil
}

func (c *fakeCipher) Open(subject, sealed string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.erased[subject] {
		return "", eventstore.ErrErased
	}
	body, ok := strings.CutPrefix(sealed, "pii:fake:"+subject+":")
	if !ok {
		return "", errors.New("sealed for another subject")
	}
	return reverse(body), nil
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func signupRegistry(c eventstore.FieldCipher) *eventstore.Registry {
	r := eventstore.NewRegistry()
	r.RegisterEvent(Signup{}, 1)
	if c != nil {
		r.SetCipher(c)
	}
	return r
}

var signup = Signup{UserID: "u-1", Email: "ada@example.com", Phone: "", Country: "GB", Home: Address{Street: "1 Main St", City: "London"}}

func storedIn(stream eventstore.StreamID, e eventstore.NewEvent) eventstore.Envelope {
	env := stored(e)
	env.StreamID = stream
	return env
}

func TestPersonalFieldsAreSealedForTheStreamsSubject(t *testing.T) {
	t.Parallel()
	c := newFakeCipher()
	r := signupRegistry(c)
	stream := eventstore.NewStreamID("user", "u-1")
	e, err := r.EncodeFor(stream, signup, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(e.Data, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["email"] != "pii:fake:u-1:moc.elpmaxe@ada" || raw["home"].(map[string]any)["street"] != "pii:fake:u-1:tS niaM 1" {
		t.Errorf("stored %s: personal fields are not sealed for u-1", e.Data)
	}
	if raw["country"] != "GB" || raw["userId"] != "u-1" || raw["home"].(map[string]any)["city"] != "London" {
		t.Errorf("stored %s: fields without the pii tag must stay readable", e.Data)
	}
	if raw["phone"] != "" || len(c.sealed) != 2 {
		t.Errorf("an empty personal field is stored empty and seals nothing: phone %q, %d seals", raw["phone"], len(c.sealed))
	}

	got, err := r.Decode(storedIn(stream, e))
	if err != nil {
		t.Fatal(err)
	}
	if got != signup {
		t.Errorf("Decode = %#v, want %#v", got, signup)
	}
}

func TestErasedSubjectDecodesAsErased(t *testing.T) {
	t.Parallel()
	c := newFakeCipher()
	r := signupRegistry(c)
	stream := eventstore.NewStreamID("user", "u-1")
	e, err := r.EncodeFor(stream, signup, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	c.erased["u-1"] = true

	got, err := r.Decode(storedIn(stream, e))
	if err != nil {
		t.Fatalf("an erased subject's event must still decode: %v", err)
	}
	want := signup
	want.Email, want.Home.Street = eventstore.ErasedValue, eventstore.ErasedValue
	if got != want {
		t.Errorf("Decode = %#v, want %#v", got, want)
	}

	if _, err := r.EncodeFor(stream, signup, eventstore.Metadata{}); !errors.Is(err, eventstore.ErrErased) {
		t.Errorf("new personal data for an erased subject: err = %v, want ErrErased", err)
	}
}

func TestOtherOpenFailuresAreErrors(t *testing.T) {
	t.Parallel()
	r := signupRegistry(newFakeCipher())
	e, err := r.EncodeFor("user-u-1", signup, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Decode(storedIn("user-u-2", e)); err == nil || errors.Is(err, eventstore.ErrErased) {
		t.Errorf("a field that does not open must fail loudly, got %v", err)
	}
	if _, err := signupRegistry(nil).Decode(storedIn("user-u-1", e)); !errors.Is(err, eventstore.ErrNoCipher) {
		t.Errorf("sealed data read without a cipher: err = %v, want ErrNoCipher", err)
	}
}

func TestEncodeWithoutSubjectRefusesPersonalData(t *testing.T) {
	t.Parallel()
	r := signupRegistry(newFakeCipher())
	if _, err := r.Encode(signup, eventstore.Metadata{}); !errors.Is(err, eventstore.ErrNoSubject) {
		t.Errorf("Encode with a cipher and personal data: err = %v, want ErrNoSubject", err)
	}
	// With nothing personal to seal there is nothing to refuse.
	if _, err := r.Encode(Signup{UserID: "u-1"}, eventstore.Metadata{}); err != nil {
		t.Errorf("Encode without personal values: %v", err)
	}
	if _, err := r.Encode(Verified{UserID: "u"}, eventstore.Metadata{}); err == nil {
		t.Error("unregistered types are still refused")
	}
}

func TestWithoutCipherPersonalFieldsArePlain(t *testing.T) {
	t.Parallel()
	r := signupRegistry(nil)
	e, err := r.Encode(signup, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(e.Data), "ada@example.com") {
		t.Fatalf("Data = %s", e.Data)
	}
	// Plaintext written before a cipher was configured still reads as written.
	r.SetCipher(newFakeCipher())
	got, err := r.Decode(storedIn("user-u-1", e))
	if err != nil || got != signup {
		t.Fatalf("Decode = %#v, %v", got, err)
	}
}

type badTag struct {
	N int `json:"n" pii:"true"`
}

func (badTag) EventName() string { return "test.bad_tag" }

type typoTag struct {
	S string `json:"s" pii:"yes"`
}

func (typoTag) EventName() string { return "test.typo_tag" }

type hiddenTag struct {
	Homes []Address `json:"homes"`
}

func (hiddenTag) EventName() string { return "test.hidden_tag" }

type unexportedTag struct {
	home Address
}

func (unexportedTag) EventName() string { return "test.unexported_tag" }

// node refers to itself, which the tag search must survive.
type node struct {
	Next *node  `json:"next"`
	Name string `json:"name"`
}

func (node) EventName() string { return "test.node" }

func TestMisusedPIITagsPanicAtRegistration(t *testing.T) {
	t.Parallel()
	for name, register := range map[string]func(*eventstore.Registry){
		"tag on a non-string":            func(r *eventstore.Registry) { r.RegisterEvent(badTag{}, 1) },
		"tag value not true":             func(r *eventstore.Registry) { eventstore.Register[typoTag](r, 1) },
		"pointer event":                  func(r *eventstore.Registry) { r.RegisterEvent(&Signup{}, 1) },
		"tag inside a slice":             func(r *eventstore.Registry) { r.RegisterEvent(hiddenTag{}, 1) },
		"tag inside an unexported field": func(r *eventstore.Registry) { r.RegisterEvent(unexportedTag{}, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			register(eventstore.NewRegistry())
		})
	}
}

// TestSelfReferringEventsRegister: the search for pii tags ends on a type that refers to itself,
// the type registers, and with a cipher set it encodes and decodes unchanged, nothing sealed
// (it has no personal field).
func TestSelfReferringEventsRegister(t *testing.T) {
	t.Parallel()
	c := newFakeCipher()
	r := eventstore.NewRegistry()
	r.RegisterEvent(node{}, 1)
	r.SetCipher(c)
	if !r.Known("test.node") {
		t.Fatal("test.node is not registered")
	}
	in := node{Name: "head", Next: &node{Name: "tail"}}
	e, err := r.EncodeFor("user-u-1", in, eventstore.Metadata{})
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if len(c.sealed) != 0 || !strings.Contains(string(e.Data), `"name":"tail"`) {
		t.Errorf("stored %s after %d seals: a type without pii tags must be stored as it is", e.Data, len(c.sealed))
	}
	got, err := r.Decode(storedIn("user-u-1", e))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if n := got.(node); n.Name != "head" || n.Next == nil || n.Next.Name != "tail" || n.Next.Next != nil {
		t.Errorf("Decode = %+v, want %+v", n, in)
	}
}

// badCipher forgets the prefix, which would make Decode treat its output as plaintext.
type badCipher struct{ fakeCipher }

func (*badCipher) Seal(_, p string) (string, error) { return "x" + p, nil }

func TestCipherOutputMustCarryThePrefix(t *testing.T) {
	t.Parallel()
	r := signupRegistry(&badCipher{})
	if _, err := r.EncodeFor("user-u-1", signup, eventstore.Metadata{}); err == nil {
		t.Error("a sealed value without SealedPrefix was accepted")
	}
}

// TestClientAddressIsSealedForTheRequester: the client address in the metadata is personal data
// of whoever sent the request, so it is sealed for them and opens as erased once they are.
func TestClientAddressIsSealedForTheRequester(t *testing.T) {
	t.Parallel()
	c := newFakeCipher()
	r := signupRegistry(c)
	stream := eventstore.NewStreamID("user", "u-1")
	for _, tc := range []struct {
		name      string
		meta      eventstore.Metadata
		sealedFor string
	}{
		{"the user", eventstore.Metadata{ActorID: "u-1", ClientIP: "203.0.113.7"}, "u-1"},
		{"nobody signed in", eventstore.Metadata{ClientIP: "203.0.113.7"}, "u-1"},
		{"staff acting on the user", eventstore.Metadata{ActorID: "u-9", ActorRole: "admin", ClientIP: "203.0.113.7"}, "u-9"},
		{"staff impersonating the user", eventstore.Metadata{ActorID: "u-1", ImpersonatorID: "u-8", ClientIP: "203.0.113.7"}, "u-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := r.EncodeFor(stream, Signup{UserID: "u-1"}, tc.meta)
			if err != nil {
				t.Fatal(err)
			}
			if want := "pii:fake:" + tc.sealedFor + ":7.311.0.302"; e.Metadata.ClientIP != want {
				t.Errorf("stored clientIp %q, want %q", e.Metadata.ClientIP, want)
			}
			if e.Metadata.ActorID != tc.meta.ActorID || e.Metadata.ImpersonatorID != tc.meta.ImpersonatorID {
				t.Errorf("the rest of the metadata changed: %+v", e.Metadata)
			}
			meta, err := r.OpenMetadata(storedIn(stream, e))
			if err != nil || meta != tc.meta {
				t.Errorf("OpenMetadata = %+v, %v; want %+v", meta, err, tc.meta)
			}
		})
	}

	e, err := r.EncodeFor(stream, Signup{UserID: "u-1"}, eventstore.Metadata{ActorID: "u-1", ClientIP: "203.0.113.7"})
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.erased["u-1"] = true
	c.mu.Unlock()
	if meta, err := r.OpenMetadata(storedIn(stream, e)); err != nil || meta.ClientIP != eventstore.ErasedValue {
		t.Errorf("after erasure: %+v, %v; want the address %q", meta, err, eventstore.ErasedValue)
	}
	if _, err := signupRegistry(nil).OpenMetadata(storedIn(stream, e)); !errors.Is(err, eventstore.ErrNoCipher) {
		t.Errorf("a sealed address read without a cipher: %v, want ErrNoCipher", err)
	}
	// Addresses written before they were sealed read as they were written.
	legacy := eventstore.Envelope{StreamID: stream, Metadata: eventstore.Metadata{ActorID: "u-1", ClientIP: "198.51.100.1"}}
	if meta, err := r.OpenMetadata(legacy); err != nil || meta != legacy.Metadata {
		t.Errorf("plaintext address: %+v, %v", meta, err)
	}
	// Without a stream or an actor there is nobody to seal it for.
	if _, err := r.Encode(Signup{UserID: "u-1"}, eventstore.Metadata{ClientIP: "203.0.113.7"}); !errors.Is(err, eventstore.ErrNoSubject) {
		t.Errorf("Encode with an address and no actor: %v, want ErrNoSubject", err)
	}
	if e, err := r.Encode(Signup{UserID: "u-1"}, eventstore.Metadata{ActorID: "u-2", ClientIP: "203.0.113.7"}); err != nil || e.Metadata.ClientIP != "pii:fake:u-2:7.311.0.302" {
		t.Errorf("Encode with an actor: %+v, %v", e.Metadata, err)
	}
}

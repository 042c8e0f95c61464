package eventstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	gojson "github.com/goccy/go-json"

	"clearvest/domain/aggregate"
)

// Upcaster rewrites the JSON of one schema version of an event type into the next version's shape.
type Upcaster func(json.RawMessage) (json.RawMessage, error)

type registration struct {
	current  int // schema version written today
	goType   reflect.Type
	upcaster map[int]Upcaster // from version v to v+1
	pii      [][]int          // field index paths of the string fields tagged pii:"true"
}

// Registry maps stable type names to Go types and knows how to bring old payloads up to date.
// Decoding a type it does not know is an error: an event is never silently dropped.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*registration
	byType map[reflect.Type]string
	cipher FieldCipher
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*registration{}, byType: map[reflect.Type]string{}}
}

// Register adds event type T (a struct, registered by value) at its current schema version.
// Register panics on programmer error (duplicate names or types) because it runs at start-up.
func Register[T aggregate.Event](r *Registry, schemaVersion int) {
	var zero T
	r.register(reflect.TypeOf(zero), zero.EventName(), schemaVersion)
}

// RegisterEvent is Register for callers that hold an event value rather than a type parameter:
// it lets a domain package list its events without importing this package. e must be a struct
// value, not a pointer.
func (r *Registry) RegisterEvent(e aggregate.Event, schemaVersion int) {
	t := reflect.TypeOf(e)
	if t == nil || t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("eventstore: RegisterEvent(%T): events are registered as struct values", e))
	}
	r.register(t, e.EventName(), schemaVersion)
}

func (r *Registry) register(t reflect.Type, name string, schemaVersion int) {
	if schemaVersion < 1 {
		panic(fmt.Sprintf("eventstore: %s: schema version must be >= 1", name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byName[name]; dup {
		panic(fmt.Sprintf("eventstore: event type %q registered twice", name))
	}
	if _, dup := r.byType[t]; dup {
		panic(fmt.Sprintf("eventstore: Go type %v registered twice", t))
	}
	r.byName[name] = &registration{current: schemaVersion, goType: t, upcaster: map[int]Upcaster{}, pii: piiFields(name, t, nil)}
	r.byType[t] = name
}

// AddUpcaster registers the step from schema version `from` to `from+1` of a registered type.
func (r *Registry) AddUpcaster(name string, from int, up Upcaster) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reg, ok := r.byName[name]
	if !ok {
		panic(fmt.Sprintf("eventstore: upcaster for unregistered type %q", name))
	}
	if from < 1 || from >= reg.current {
		panic(fmt.Sprintf("eventstore: upcaster %s v%d is outside 1..%d", name, from, reg.current-1))
	}
	reg.upcaster[from] = up
}

// Encode turns a domain event into a NewEvent with a fresh id. It cannot seal personal fields,
// having no stream to take the data subject from: with a cipher set, an event that carries
// personal data is refused (ErrNoSubject) rather than stored readable. Use EncodeFor for those.
// A client address in the metadata is sealed for the person who sent the request (see
// requester), as EncodeFor does.
func (r *Registry) Encode(e aggregate.Event, meta Metadata) (NewEvent, error) {
	return r.encode("", e, meta)
}

// EncodeFor is Encode for an event that will be appended to stream: personal fields are sealed
// for the data subject named by the stream's id part, so erasing that subject's key erases them
// from history.
func (r *Registry) EncodeFor(stream StreamID, e aggregate.Event, meta Metadata) (NewEvent, error) {
	return r.encode(stream.ID(), e, meta)
}

func (r *Registry) encode(subject string, e aggregate.Event, meta Metadata) (NewEvent, error) {
	r.mu.RLock()
	name, ok := r.byType[reflect.TypeOf(e)]
	var reg *registration
	if ok {
		reg = r.byName[name]
	}
	cipher := r.cipher
	r.mu.RUnlock()
	if !ok {
		return NewEvent{}, fmt.Errorf("%w: Go type %T is not registered", ErrUnknownEventType, e)
	}
	if cipher != nil {
		var err error
		if meta, err = sealMetadata(cipher, subject, name, meta); err != nil {
			return NewEvent{}, err
		}
	}
	var value any = e
	if len(reg.pii) > 0 && cipher != nil {
		sealed, err := sealFields(cipher, subject, name, reg.pii, e)
		if err != nil {
			return NewEvent{}, err
		}
		value = sealed
	}
	data, err := json.Marshal(value)
	if err != nil {
		return NewEvent{}, fmt.Errorf("eventstore: encode %s: %w", name, err)
	}
	return NewEvent{ID: NewEventID(), Type: name, SchemaVersion: reg.current, Data: data, Metadata: meta}, nil
}

// Decode turns a stored envelope back into a domain event, upcasting old schema versions first.
func (r *Registry) Decode(env Envelope) (aggregate.Event, error) {
	r.mu.RLock()
	reg, ok := r.byName[env.Type]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q (event %s at position %d)", ErrUnknownEventType, env.Type, env.ID, env.Position)
	}
	data := env.Data
	if env.SchemaVersion > reg.current || env.SchemaVersion < 1 {
		return nil, fmt.Errorf("eventstore: %s schema version %d is not readable (current %d)", env.Type, env.SchemaVersion, reg.current)
	}
	for v := env.SchemaVersion; v < reg.current; v++ {
		up, ok := reg.upcaster[v]
		if !ok {
			return nil, fmt.Errorf("eventstore: no upcaster for %s v%d", env.Type, v)
		}
		var err error
		if data, err = up(data); err != nil {
			return nil, fmt.Errorf("eventstore: upcast %s v%d: %w", env.Type, v, err)
		}
	}
	ptr := reflect.New(reg.goType)
	if err := decodeJSON(data, ptr.Interface()); err != nil {
		return nil, fmt.Errorf("eventstore: decode %s (event %s): %w", env.Type, env.ID, err)
	}
	if len(reg.pii) > 0 {
		r.mu.RLock()
		cipher := r.cipher
		r.mu.RUnlock()
		if err := openFields(cipher, env.StreamID.ID(), reg.pii, ptr.Elem()); err != nil {
			return nil, fmt.Errorf("eventstore: decode %s (event %s): %w", env.Type, env.ID, err)
		}
	}
	return ptr.Elem().Interface().(aggregate.Event), nil
}

// decodeJSON reads an event's data into v. goccy/go-json reads stored events into the same values
// as encoding/json (FuzzDecodeJSONMatchesEncodingJSON) in less than half the time, and decoding
// is most of what replaying a stream, rebuilding a read model and `events verify` cost.
func decodeJSON(data []byte, v any) error { return gojson.Unmarshal(data, v) }

// OpenMetadata returns an envelope's metadata with its personal parts readable: the client
// address opened with the key of the person who sent the request, ErasedValue once that
// person's data was erased. Plaintext written before addresses were sealed reads as it is.
func (r *Registry) OpenMetadata(env Envelope) (Metadata, error) {
	m := env.Metadata
	if !strings.HasPrefix(m.ClientIP, SealedPrefix) {
		return m, nil
	}
	r.mu.RLock()
	cipher := r.cipher
	r.mu.RUnlock()
	if cipher == nil {
		return Metadata{}, ErrNoCipher
	}
	plain, err := cipher.Open(requester(m, env.StreamID.ID()), m.ClientIP)
	switch {
	case errors.Is(err, ErrErased):
		plain = ErasedValue
	case err != nil:
		return Metadata{}, fmt.Errorf("eventstore: metadata of event %s: open the client address: %w", env.ID, err)
	}
	m.ClientIP = plain
	return m, nil
}

// requester is the data subject whose key seals an event's client address: the person at the
// keyboard. That is the impersonating staff member, else the actor, else (a request by nobody
// signed in, such as following an e-mailed link) the subject of the stream.
func requester(m Metadata, streamSubject string) string {
	switch {
	case m.ImpersonatorID != "":
		return m.ImpersonatorID
	case m.ActorID != "":
		return m.ActorID
	}
	return streamSubject
}

// sealMetadata seals the client address of meta for the requester. Whatever it holds is sealed,
// even text that looks sealed already: it comes from the request.
func sealMetadata(c FieldCipher, streamSubject, name string, meta Metadata) (Metadata, error) {
	if meta.ClientIP == "" {
		return meta, nil
	}
	who := requester(meta, streamSubject)
	if who == "" {
		return Metadata{}, fmt.Errorf("%w (%s: a client address in the metadata, with no actor)", ErrNoSubject, name)
	}
	sealed, err := c.Seal(who, meta.ClientIP)
	if err != nil {
		return Metadata{}, fmt.Errorf("eventstore: seal the client address of %s: %w", name, err)
	}
	if !strings.HasPrefix(sealed, SealedPrefix) {
		return Metadata{}, fmt.Errorf("eventstore: seal %s: the cipher's output does not start with %q", name, SealedPrefix)
	}
	meta.ClientIP = sealed
	return meta, nil
}

// Known reports whether a type name is registered.
func (r *Registry) Known(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.byName[name]
	return ok
}

// Personal data in events (crypto-shredding, docs/product-rules.md). A string field of an event struct tagged
// pii:"true" is sealed with the data subject's own key when encoded and opened when decoded, so
// destroying that key erases the field from every stored event while the events themselves, and
// the money history they carry, stay intact and replayable.

// SealedPrefix starts every sealed field value. Decode opens only values that carry it, so
// plaintext written before a cipher was configured still reads as it was written.
const SealedPrefix = "pii:"

// ErasedValue is what Decode puts in a personal field whose subject's key was destroyed.
const ErasedValue = "[erased]"

var (
	// ErrErased is returned by a FieldCipher for a subject whose key was destroyed. Decode turns
	// it into ErasedValue so that history still replays; Seal returning it refuses to store new
	// personal data for an erased subject.
	ErrErased = errors.New("eventstore: the personal data of this subject was erased")
	// ErrNoSubject: a personal field cannot be sealed without knowing whose it is (use EncodeFor).
	ErrNoSubject = errors.New("eventstore: personal fields need a data subject: encode with EncodeFor")
	// ErrNoCipher: a sealed value was read by a registry that has no cipher to open it.
	ErrNoCipher = errors.New("eventstore: a sealed personal field needs a cipher to be read")
)

// FieldCipher seals and opens personal field values for one data subject (the id part of the
// stream the event belongs to: the user's id). Seal must return a string starting with
// SealedPrefix; Open must return an error matching ErrErased when the subject's key was
// destroyed, and a different error for anything else (a wrong key must fail loudly, never read
// as erased). Open gives back exactly the bytes sealed, valid UTF-8 or not: snapshots seal an
// aggregate's binary state (SealState).
type FieldCipher interface {
	Seal(subject string, plaintext string) (string, error)
	Open(subject string, sealed string) (string, error)
}

// SetCipher makes Encode seal and Decode open personal fields; nil turns it off. Without a cipher,
// personal fields are stored as plaintext, which is meant only for tests and tools.
func (r *Registry) SetCipher(c FieldCipher) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cipher = c
}

// piiFields returns the index paths of the fields tagged pii:"true", looking through nested
// exported struct values. A tag anywhere else is a programmer error found at start-up.
func piiFields(name string, t reflect.Type, prefix []int) [][]int {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out [][]int
	for i := range t.NumField() {
		f := t.Field(i)
		path := append(append([]int(nil), prefix...), i)
		tag, tagged := f.Tag.Lookup("pii")
		switch {
		case tagged && tag != "true":
			panic(fmt.Sprintf("eventstore: %s.%s: the pii tag takes only \"true\"", name, f.Name))
		case tagged && (f.Type.Kind() != reflect.String || !f.IsExported()):
			panic(fmt.Sprintf("eventstore: %s.%s: only exported string fields can be personal (pii)", name, f.Name))
		case tagged:
			out = append(out, path)
		case f.Type.Kind() == reflect.Struct && f.IsExported():
			out = append(out, piiFields(name, f.Type, path)...)
		case taggedWithin(f.Type, map[reflect.Type]bool{}):
			// Sealing reaches only through exported struct values; a tag behind a pointer, slice,
			// map or unexported field would look protected and be stored readable.
			panic(fmt.Sprintf("eventstore: %s.%s: pii fields behind a pointer, slice, map or unexported field are not sealed", name, f.Name))
		}
	}
	return out
}

// taggedWithin reports whether a pii tag hides anywhere inside t.
func taggedWithin(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return taggedWithin(t.Elem(), seen)
	case reflect.Map:
		return taggedWithin(t.Key(), seen) || taggedWithin(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if _, ok := t.Field(i).Tag.Lookup("pii"); ok || taggedWithin(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// sealFields returns a copy of e with its personal fields sealed. Empty values stay empty: there
// is nothing to protect, and no key is created for a subject that gave nothing personal.
func sealFields(c FieldCipher, subject, name string, paths [][]int, e aggregate.Event) (any, error) {
	v := reflect.New(reflect.TypeOf(e)).Elem()
	v.Set(reflect.ValueOf(e))
	for _, path := range paths {
		f := v.FieldByIndex(path)
		if f.String() == "" {
			continue
		}
		if subject == "" {
			return nil, fmt.Errorf("%w (%s)", ErrNoSubject, name)
		}
		sealed, err := c.Seal(subject, f.String())
		if err != nil {
			return nil, fmt.Errorf("eventstore: seal %s: %w", name, err)
		}
		if !strings.HasPrefix(sealed, SealedPrefix) {
			return nil, fmt.Errorf("eventstore: seal %s: the cipher's output does not start with %q", name, SealedPrefix)
		}
		f.SetString(sealed)
	}
	return v.Interface(), nil
}

func openFields(c FieldCipher, subject string, paths [][]int, v reflect.Value) error {
	for _, path := range paths {
		f := v.FieldByIndex(path)
		if !strings.HasPrefix(f.String(), SealedPrefix) {
			continue
		}
		if c == nil {
			return ErrNoCipher
		}
		plain, err := c.Open(subject, f.String())
		switch {
		case errors.Is(err, ErrErased):
			plain = ErasedValue
		case err != nil:
			return fmt.Errorf("open personal field: %w", err)
		}
		f.SetString(plain)
	}
	return nil
}

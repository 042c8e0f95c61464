package eventstore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"clearvest/domain/aggregate"
)

// Upcaster rewrites the JSON of one schema version of an event type into the next version's shape.
type Upcaster func(json.RawMessage) (json.RawMessage, error)

type registration struct {
	current  int // schema version written today
	goType   reflect.Type
	upcaster map[int]Upcaster // from version v to v+1
}

// Registry maps stable type names to Go types and knows how to bring old payloads up to date.
// Decoding a type it does not know is an error: an event is never silently dropped.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*registration
	byType map[reflect.Type]string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*registration{}, byType: map[reflect.Type]string{}}
}

// Register adds event type T (a struct, registered by value) at its current schema version.
// Register panics on programmer error (duplicate names or types) because it runs at start-up.
func Register[T aggregate.Event](r *Registry, schemaVersion int) {
	var zero T
	t := reflect.TypeOf(zero)
	name := zero.EventName()
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
	r.byName[name] = &registration{current: schemaVersion, goType: t, upcaster: map[int]Upcaster{}}
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

// Encode turns a domain event into a NewEvent with a fresh id.
func (r *Registry) Encode(e aggregate.Event, meta Metadata) (NewEvent, error) {
	r.mu.RLock()
	name, ok := r.byType[reflect.TypeOf(e)]
	var reg *registration
	if ok {
		reg = r.byName[name]
	}
	r.mu.RUnlock()
	if !ok {
		return NewEvent{}, fmt.Errorf("%w: Go type %T is not registered", ErrUnknownEventType, e)
	}
	data, err := json.Marshal(e)
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
	if err := json.Unmarshal(data, ptr.Interface()); err != nil {
		return nil, fmt.Errorf("eventstore: decode %s (event %s): %w", env.Type, env.ID, err)
	}
	return ptr.Elem().Interface().(aggregate.Event), nil
}

// Known reports whether a type name is registered.
func (r *Registry) Known(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.byName[name]
	return ok
}

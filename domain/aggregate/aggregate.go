// Package aggregate is the kernel every event-sourced aggregate is built on.
//
// Rules:
//   - State changes only by applying events. Apply is a plain type switch that mutates state and
//     never fails: an event is a fact that already happened.
//   - Behaviour methods check business rules against current state and Raise events; Raise records
//     the event as pending and applies it, so later rules in the same command see the new state.
//   - Rehydration (Load) replays stored events without re-checking business rules.
//   - Each event names itself with a stable string ("account.deposit_requested"); Go type names never
//     reach storage, so renaming a struct can never break history.
package aggregate

// Event is a domain fact. EventName is the stable, stored type name; it must never change once
// events of that type have been written.
type Event interface {
	EventName() string
}

// Aggregate is anything that embeds Root and applies its own events.
type Aggregate interface {
	// Apply mutates state for one event. It must not fail and must not check business rules.
	Apply(Event)
	root() *Root
}

// Root tracks an aggregate's stream version and the events raised since it was loaded. Embed it.
type Root struct {
	version int64
	changes []Event
}

func (r *Root) root() *Root { return r }

// Version is the stream version the aggregate was loaded at plus the events raised since.
func (r *Root) Version() int64 { return r.version + int64(len(r.changes)) }

// LoadedVersion is the stream version the aggregate was loaded at: the expected version for an append.
func (r *Root) LoadedVersion() int64 { return r.version }

// Changes returns the events raised since the aggregate was loaded, oldest first.
func (r *Root) Changes() []Event { return append([]Event(nil), r.changes...) }

// Raise records e as a new change and applies it.
func Raise(a Aggregate, e Event) {
	a.Apply(e)
	r := a.root()
	r.changes = append(r.changes, e)
}

// Load replays stored history into a fresh aggregate. version is the stream version of the last
// event in history (history may be a suffix when loading from a snapshot later).
func Load(a Aggregate, version int64, history ...Event) {
	for _, e := range history {
		a.Apply(e)
	}
	r := a.root()
	r.version = version
	r.changes = nil
}

package command

import (
	"context"
	"fmt"

	"clearvest/eventstore"
)

// Change is one stream's part of a command's append: the events its aggregate raised.
type Change struct {
	Stream    eventstore.StreamID
	Aggregate Aggregate
}

// Alongside carries changes of other streams that must commit with the next command run under
// its context, or not at all: an approval recorded on a proposal's stream commits in the very
// transaction that carries out the decision it approves, whichever service runs that decision
// (docs/security.md, "Separation of duties"). Submit appends them after its own events.
type Alongside struct {
	changes  []Change
	appended bool
}

type alongsideKey struct{}

// WithAlongside returns a context whose commands run by Submit (not Execute) append changes
// with their own, and the Alongside that tells whether one did.
func WithAlongside(ctx context.Context, changes ...Change) (context.Context, *Alongside) {
	al := &Alongside{changes: changes}
	return context.WithValue(ctx, alongsideKey{}, al), al
}

// streamAppends encodes the changes for a command run by Submit on stream, with its metadata.
// Changes that raised nothing are left out.
func (a *Alongside) streamAppends(r *Runner, stream eventstore.StreamID, meta eventstore.Metadata) ([]eventstore.StreamAppend, error) {
	var out []eventstore.StreamAppend
	for _, c := range a.changes {
		if err := c.Stream.Validate(); err != nil {
			return nil, err
		}
		if c.Stream == stream {
			return nil, fmt.Errorf("command: %s is the command's own stream, not one to append alongside", stream)
		}
		events := c.Aggregate.Changes()
		if len(events) == 0 {
			continue
		}
		encoded, err := r.encode(c.Stream, events, meta)
		if err != nil {
			return nil, err
		}
		out = append(out, eventstore.StreamAppend{Stream: c.Stream, ExpectedVersion: c.Aggregate.LoadedVersion(), Events: encoded})
	}
	return out, nil
}

// committed records that a command run by Submit committed the changes. The runner did not
// load their aggregates, so what it has cached of their streams is forgotten.
func (a *Alongside) committed(r *Runner) {
	a.appended = true
	for _, c := range a.changes {
		r.cache.forget(c.Stream)
	}
}

// Appended reports whether a command appended the changes. After a command that returned no
// error, false means it appended nothing, and the changes were not recorded.
func (a *Alongside) Appended() bool { return a.appended }

// Package memstore is an in-memory eventstore.Store for tests and benchmarks. It gives every
// guarantee the PostgreSQL store gives (it passes the same conformance suite) but keeps nothing
// across restarts, so it must never back a real deployment.
package memstore

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"clearvest/domain/clock"
	"clearvest/eventstore"
)

// subscribeBatch bounds how many events one Subscribe callback receives, so a subscriber that
// starts far behind still makes progress (and checkpoints) in steps.
const subscribeBatch = 500

// Store is an in-memory event store. The zero value is not usable; call New.
type Store struct {
	clock clock.Clock

	mu      sync.Mutex
	log     []eventstore.Envelope         // log[i] has Position i+1
	streams map[eventstore.StreamID][]int // indexes into log, in version order
	byID    map[uuid.UUID]int             // index into log
	// appended is closed and replaced after every append that stored events: a broadcast that
	// wakes every waiting subscriber without polling.
	appended chan struct{}
}

var _ eventstore.Store = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock that stamps RecordedAt, for tests that assert on it.
func WithClock(c clock.Clock) Option { return func(s *Store) { s.clock = c } }

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{
		clock:    clock.System(),
		streams:  map[eventstore.StreamID][]int{},
		byID:     map[uuid.UUID]int{},
		appended: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Append implements eventstore.Store.
func (s *Store) Append(ctx context.Context, appends ...eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := eventstore.ValidateAppend(appends); err != nil {
		return nil, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()

	stored, err := s.alreadyStored(appends)
	if err != nil || stored != nil {
		return stored, err
	}
	for _, a := range appends {
		actual := int64(len(s.streams[a.Stream]))
		if a.ExpectedVersion != eventstore.AnyVersion && a.ExpectedVersion != actual {
			return nil, &eventstore.ConcurrencyError{Stream: a.Stream, Expected: a.ExpectedVersion, Actual: actual}
		}
	}

	recordedAt := s.clock.Now().UTC()
	var out []eventstore.Envelope
	for _, a := range appends {
		for _, e := range a.Events {
			env := eventstore.Envelope{
				ID:            e.ID,
				StreamID:      a.Stream,
				Version:       int64(len(s.streams[a.Stream])) + 1,
				Position:      int64(len(s.log)) + 1,
				Type:          e.Type,
				SchemaVersion: e.SchemaVersion,
				Data:          bytes.Clone(e.Data),
				Metadata:      e.Metadata,
				RecordedAt:    recordedAt,
			}
			s.byID[e.ID] = len(s.log)
			s.streams[a.Stream] = append(s.streams[a.Stream], len(s.log))
			s.log = append(s.log, env)
			out = append(out, clone(env))
		}
	}
	if len(out) > 0 {
		close(s.appended)
		s.appended = make(chan struct{})
	}
	return out, nil
}

// alreadyStored handles retries of an append that already succeeded: when every event id is
// stored, in the same stream under the same type, it returns the stored envelopes (whatever the
// stream's version is now, since the retry's expectation was about the original attempt). It
// returns nil, nil when no id is stored, and ErrDuplicateEvent for anything in between, which can
// only be a bug in the caller.
func (s *Store) alreadyStored(appends []eventstore.StreamAppend) ([]eventstore.Envelope, error) {
	total, known := 0, 0
	inAppend := map[uuid.UUID]bool{}
	for _, a := range appends {
		for _, e := range a.Events {
			total++
			if inAppend[e.ID] {
				return nil, fmt.Errorf("%w: %s appears twice in one append", eventstore.ErrDuplicateEvent, e.ID)
			}
			inAppend[e.ID] = true
			i, ok := s.byID[e.ID]
			if !ok {
				continue
			}
			known++
			if got := s.log[i]; got.StreamID != a.Stream || got.Type != e.Type {
				return nil, fmt.Errorf("%w: %s is stored as %s in %s, appended as %s to %s",
					eventstore.ErrDuplicateEvent, e.ID, got.Type, got.StreamID, e.Type, a.Stream)
			}
		}
	}
	switch {
	case known == 0:
		return nil, nil
	case known < total:
		return nil, fmt.Errorf("%w: %d of %d event ids are already stored", eventstore.ErrDuplicateEvent, known, total)
	}
	out := make([]eventstore.Envelope, 0, total)
	for _, a := range appends {
		for _, e := range a.Events {
			out = append(out, clone(s.log[s.byID[e.ID]]))
		}
	}
	return out, nil
}

// ReadStream implements eventstore.Store. Like the PostgreSQL store, it reads a malformed stream
// id as an unknown (empty) stream and a non-positive limit as "nothing".
func (s *Store) ReadStream(ctx context.Context, stream eventstore.StreamID, fromVersion int64, limit int) ([]eventstore.Envelope, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := s.streams[stream]
	from := max(fromVersion, 1) - 1
	if from >= int64(len(idx)) {
		return nil, nil
	}
	idx = idx[from:]
	idx = idx[:min(len(idx), limit)]
	out := make([]eventstore.Envelope, len(idx))
	for i, j := range idx {
		out[i] = clone(s.log[j])
	}
	return out, nil
}

// ReadAll implements eventstore.Store.
func (s *Store) ReadAll(ctx context.Context, after int64, limit int) ([]eventstore.Envelope, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readAllLocked(after, limit), nil
}

// readAllLocked relies on positions being dense in this store: position p is log[p-1].
func (s *Store) readAllLocked(after int64, limit int) []eventstore.Envelope {
	from := max(after, 0)
	if from >= int64(len(s.log)) {
		return nil
	}
	page := s.log[from:]
	page = page[:min(len(page), limit)]
	out := make([]eventstore.Envelope, len(page))
	for i, e := range page {
		out[i] = clone(e)
	}
	return out
}

// Head implements eventstore.Store.
func (s *Store) Head(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(len(s.log)), nil
}

// Subscribe implements eventstore.Store. Catch-up and live are the same loop: deliver what is
// there, then wait for the next append's broadcast. The broadcast channel is taken under the same
// lock as the read, so an append between the read and the wait cannot be missed.
func (s *Store) Subscribe(ctx context.Context, after int64, fn func(context.Context, []eventstore.Envelope) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mu.Lock()
		batch := s.readAllLocked(after, subscribeBatch)
		wake := s.appended
		s.mu.Unlock()

		if len(batch) > 0 {
			if err := fn(ctx, batch); err != nil {
				return err
			}
			after = batch[len(batch)-1].Position
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

// clone copies the one part of an envelope that is shared by reference, so that neither the
// appender nor a reader can change stored history through its copy.
func clone(e eventstore.Envelope) eventstore.Envelope {
	e.Data = bytes.Clone(e.Data)
	return e
}

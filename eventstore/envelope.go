// Package eventstore holds the event envelope, the codec that turns domain events into stored
// records (with upcasting of old schema versions), and the Store interface every event store
// implements. Implementations live in sub-packages; eventstoretest is the conformance suite they
// all pass.
package eventstore

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// StreamID names a stream as "<category>-<id>", e.g. "account-0191…". The category is everything
// before the first dash, so ids may contain dashes (UUIDs do).
type StreamID string

// NewStreamID joins a category and an id. The category must be non-empty and dash-free.
func NewStreamID(category, id string) StreamID {
	return StreamID(category + "-" + id)
}

// Category is the part before the first dash.
func (s StreamID) Category() string {
	c, _, _ := strings.Cut(string(s), "-")
	return c
}

// ID is the part after the first dash.
func (s StreamID) ID() string {
	_, id, _ := strings.Cut(string(s), "-")
	return id
}

// Validate reports whether the stream id has the "<category>-<id>" shape.
func (s StreamID) Validate() error {
	c, id, ok := strings.Cut(string(s), "-")
	if !ok || c == "" || id == "" || len(s) > 200 || !storableText(string(s)) {
		return fmt.Errorf("%w: %q is not <category>-<id>", ErrInvalidStream, string(s))
	}
	return nil
}

// Metadata travels with every event: who caused it, on whose behalf, and why.
type Metadata struct {
	CorrelationID  string `json:"correlationId,omitempty"`
	CausationID    string `json:"causationId,omitempty"`
	ActorID        string `json:"actorId,omitempty"`
	ActorRole      string `json:"actorRole,omitempty"`
	ImpersonatorID string `json:"impersonatorId,omitempty"`
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	RequestHash    string `json:"requestHash,omitempty"`
	// ClientIP is personal data of whoever sent the request. With a cipher set, the codec seals
	// it like a personal field (Registry.EncodeFor) for that person, so it is stored as a
	// "pii:…" string and read back with Registry.OpenMetadata; erasing the person erases it.
	// Values written before that are plaintext and read as they are.
	ClientIP string `json:"clientIp,omitempty"`
}

// NewEvent is an event ready to be appended: encoded, not yet positioned.
type NewEvent struct {
	ID            uuid.UUID // UUIDv7; re-appending the same ID is idempotent
	Type          string    // stable type name, e.g. "account.deposit_requested"
	SchemaVersion int       // version of Data's shape for Type, from 1
	Data          json.RawMessage
	Metadata      Metadata
}

// Envelope is a stored event.
type Envelope struct {
	ID            uuid.UUID
	StreamID      StreamID
	Version       int64 // position within the stream, from 1
	Position      int64 // global position: strictly increasing in read-all order, not contiguous
	Type          string
	SchemaVersion int
	Data          json.RawMessage
	Metadata      Metadata
	RecordedAt    time.Time // UTC
}

// NewEventID returns a fresh UUIDv7 (time-ordered, so indexes stay compact).
func NewEventID() uuid.UUID {
	return uuid.Must(uuid.NewV7())
}

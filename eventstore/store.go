package eventstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"clearvest/domain/domainerr"
)

// Expected stream versions for Append. Any other value n >= 1 means "the stream is exactly at
// version n".
const (
	// AnyVersion appends whatever the stream's version is.
	AnyVersion int64 = -1
	// NoStream requires that the stream has no events yet.
	NoStream int64 = 0
)

// StreamAppend is the part of an atomic append that goes to one stream.
type StreamAppend struct {
	Stream          StreamID
	ExpectedVersion int64
	Events          []NewEvent
}

// Store is an append-only event log.
//
// Guarantees every implementation gives (and eventstoretest checks):
//   - Append is atomic across all the streams it names: all events are stored or none.
//   - Expected-version checks are exact: of many concurrent appends expecting version n, one wins.
//   - Re-appending events whose IDs are already stored returns the stored envelopes unchanged.
//   - Positions strictly increase in ReadAll order, and a reader that has seen position p will
//     never later find an event below p (no event is ever skipped, even when transactions commit
//     out of order).
//   - ReadStream sees every committed event of its stream at once. ReadAll, Head and Subscribe
//     may show a committed event a moment later (until every append that got its position
//     before it has finished); read-your-writes therefore waits for a position instead of
//     assuming it.
type Store interface {
	// Append stores events and returns their envelopes in input order.
	Append(ctx context.Context, appends ...StreamAppend) ([]Envelope, error)
	// ReadStream returns up to limit events of one stream with Version >= fromVersion.
	// An unknown stream reads as empty.
	ReadStream(ctx context.Context, stream StreamID, fromVersion int64, limit int) ([]Envelope, error)
	// ReadAll returns up to limit events with Position > after, in position order.
	ReadAll(ctx context.Context, after int64, limit int) ([]Envelope, error)
	// Head is the highest position a reader can currently see (0 for an empty store).
	Head(ctx context.Context) (int64, error)
	// Subscribe delivers every event after the given position to fn in batches, first catching up
	// and then live, until ctx is done (returns ctx.Err()) or fn fails (returns its error).
	Subscribe(ctx context.Context, after int64, fn func(context.Context, []Envelope) error) error
}

var (
	// ErrConcurrency is matched by every *ConcurrencyError.
	ErrConcurrency = errors.New("eventstore: stream version conflict")
	// ErrInvalidStream is returned for malformed stream ids.
	ErrInvalidStream = errors.New("eventstore: invalid stream id")
	// ErrInvalidEvent is returned for events missing an id, a type or data.
	ErrInvalidEvent = errors.New("eventstore: invalid event")
	// ErrDuplicateEvent is returned when some, but not all, of an append's event ids are already
	// stored, or a stored id belongs to another stream or type: that is a bug, not a retry.
	ErrDuplicateEvent = errors.New("eventstore: event id already used differently")
	// ErrNullCharacter is returned, wrapped in ErrInvalidEvent, for text holding U+0000, which
	// PostgreSQL's text and jsonb cannot store. It is the client's input at fault, so the API
	// answers 400 with its message.
	ErrNullCharacter error = domainerr.New(domainerr.Invalid, "Text cannot contain the null character (\\u0000).")
	// ErrUnknownEventType is returned by the codec for type names it does not know.
	ErrUnknownEventType = errors.New("eventstore: unknown event type")
)

// ConcurrencyError says which stream moved under the caller.
type ConcurrencyError struct {
	Stream   StreamID
	Expected int64
	Actual   int64
}

func (e *ConcurrencyError) Error() string {
	return fmt.Sprintf("eventstore: stream %s is at version %d, expected %d", e.Stream, e.Actual, e.Expected)
}

// Is makes errors.Is(err, ErrConcurrency) true.
func (e *ConcurrencyError) Is(target error) bool { return target == ErrConcurrency }

// ValidateAppend checks the shape of an append before any I/O. Stores call it first so that bad
// input never leaves partial state.
func ValidateAppend(appends []StreamAppend) error {
	seen := map[StreamID]bool{}
	for _, a := range appends {
		if err := a.Stream.Validate(); err != nil {
			return err
		}
		if seen[a.Stream] {
			return fmt.Errorf("%w: stream %s named twice in one append", ErrInvalidStream, a.Stream)
		}
		seen[a.Stream] = true
		if a.ExpectedVersion < AnyVersion {
			return fmt.Errorf("%w: expected version %d", ErrInvalidStream, a.ExpectedVersion)
		}
		for _, e := range a.Events {
			if e.ID == [16]byte{} || e.Type == "" || len(e.Data) == 0 || e.SchemaVersion < 1 {
				return fmt.Errorf("%w: id, type, schema version and data are required", ErrInvalidEvent)
			}
			if !storableText(e.Type) {
				return fmt.Errorf("%w: type %q is not valid UTF-8 text", ErrInvalidEvent, e.Type)
			}
		}
	}
	return nil
}

// storableText reports whether PostgreSQL can store s in a text column: valid UTF-8 without
// U+0000.
func storableText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

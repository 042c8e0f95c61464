package projections

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/platform/pgavail"
)

// EventError is an event a projection's Apply refused on its own, found by applying the batch
// that failed in halves. The runner parks the projection at it; a rebuild stops at it.
type EventError struct {
	Projection string
	Event      eventstore.Envelope
	Err        error
}

func (e *EventError) Error() string {
	return fmt.Sprintf("projections: %s failed at position %d (event %s, %s in %s): %v",
		e.Projection, e.Event.Position, e.Event.ID, e.Event.Type, e.Event.StreamID, e.Err)
}

func (e *EventError) Unwrap() error { return e.Err }

// panicError is a panic in Apply, turned into an error so that one bad event parks its
// projection instead of taking down every process that runs it.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// failureText is the error kept with a parked projection: the error, and for a panic where it
// happened.
func failureText(err error) string {
	if p := (*panicError)(nil); errors.As(err, &p) {
		return err.Error() + "\n" + string(p.stack)
	}
	return err.Error()
}

// applyBatch runs p.Apply on events inside tx with search_path set to schema.
func applyBatch(ctx context.Context, tx pgx.Tx, p Projection, schema string, events []eventstore.Envelope) error {
	if err := useSchema(ctx, tx, schema); err != nil {
		return err
	}
	if err := callApply(ctx, tx, p, events); err != nil {
		return err
	}
	return resetSchema(ctx, tx)
}

// resetSchema sets search_path back after a projection's Apply. Later statements in the
// transaction name their tables in full; this is to be safe.
func resetSchema(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `SELECT set_config('search_path', 'public', true)`)
	return err
}

func callApply(ctx context.Context, tx pgx.Tx, p Projection, events []eventstore.Envelope) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return p.Apply(ctx, tx, events)
}

// applyInHalves applies events inside savepoints of tx. When they fail together it applies the
// first half and then the second, recursively, so the events before a failing one are kept
// (each exactly once) and the one that fails on its own is returned as an *EventError. applied
// is the length of the prefix of events that was applied. Any other error is transient and
// leaves tx to be rolled back.
func applyInHalves(ctx context.Context, tx pgx.Tx, p Projection, schema string, events []eventstore.Envelope) (applied int, failed *EventError, err error) {
	sp, err := tx.Begin(ctx) // a savepoint
	if err != nil {
		return 0, nil, err
	}
	applyErr := applyBatch(ctx, sp, p, schema, events)
	if applyErr == nil {
		return len(events), nil, sp.Commit(ctx)
	}
	if err := sp.Rollback(ctx); err != nil {
		return 0, nil, errors.Join(batchError(p, events, applyErr), err)
	}
	if ctx.Err() != nil || transient(applyErr) || tx.Conn().IsClosed() {
		return 0, nil, batchError(p, events, applyErr)
	}
	if len(events) == 1 {
		return 0, &EventError{Projection: p.Name(), Event: events[0], Err: applyErr}, nil
	}
	half := len(events) / 2
	n, failed, err := applyInHalves(ctx, tx, p, schema, events[:half])
	if failed != nil || err != nil {
		return n, failed, err
	}
	m, failed, err := applyInHalves(ctx, tx, p, schema, events[half:])
	return half + m, failed, err
}

// transient tells whether an error can go away without anyone changing code or data: the
// connection, the server or a concurrent transaction was at fault, not the event. Such errors are
// retried with backoff; every other error parks the projection at the event that caused it, so
// an unknown error stops one read model visibly rather than being retried forever.
//
// An unreachable database (pgavail, the same classification the API answers 503 by) is always
// transient; the rest adds what is transient for a projection but not an outage.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || pgavail.Unreachable(err) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return transientCode(pgErr.Code)
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// transientCode classifies PostgreSQL error codes (SQLSTATE): errors about the connection, the
// server's resources or state, and conflicts with other transactions are transient; errors about
// the statement or the data (constraint violations, bad values, missing tables) are not.
func transientCode(code string) bool {
	switch code {
	case "40001", // serialization_failure
		"40P01", // deadlock_detected
		"40003", // statement_completion_unknown
		"55P03", // lock_not_available (lock_timeout)
		"55006", // object_in_use
		"57014", // query_canceled (statement_timeout, pg_cancel_backend)
		"57P01", // admin_shutdown (also pg_terminate_backend)
		"57P02", // crash_shutdown
		"57P03", // cannot_connect_now
		"57P05": // idle_session_timeout
		return true
	}
	if len(code) != 5 {
		return false
	}
	switch code[:2] {
	case "08", // connection exception
		"53", // insufficient resources: disk full, out of memory, too many connections
		"58": // system error: I/O
		return true
	}
	return false
}

// batchError names the projection and the batch an error happened in.
func batchError(p Projection, events []eventstore.Envelope, err error) error {
	return fmt.Errorf("projections: %s at positions %d..%d: %w", p.Name(), events[0].Position, events[len(events)-1].Position, err)
}

// EachOf decodes the events whose type is in types and hands each to fn with the id of its
// stream, in order; the others pass without being decoded, which keeps a projection that cares
// about a few kinds of event cheap on a log of many. categories, when given, also limits the
// streams it looks at. An error from fn stops the loop and is returned as it is. Events are
// decoded through Decode, so once per batch for every projection that reads them.
func EachOf(ctx context.Context, events []eventstore.Envelope, codec *eventstore.Registry, types map[string]bool, categories []string,
	fn func(env eventstore.Envelope, streamID string, e aggregate.Event) error) error {
	for _, env := range events {
		if !types[env.Type] {
			continue
		}
		if len(categories) > 0 && !slices.Contains(categories, env.StreamID.Category()) {
			continue
		}
		e, err := Decode(ctx, codec, env)
		if err != nil {
			return err
		}
		if err := fn(env, env.StreamID.ID(), e); err != nil {
			return err
		}
	}
	return nil
}

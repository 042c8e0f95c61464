// Package pgavail tells "PostgreSQL is not answering" apart from every other database failure.
// While the server is down, restarting or recovering from a crash, nothing the caller did is
// wrong and nothing we could fix in code is broken: the right answer is "try again in a moment"
// (HTTP 503 with Retry-After), and the right reaction of a background loop is to back off and
// resume. This package is the one place that decides which errors mean that, so the API's error
// mapper, the readiness probe and the workers agree.
package pgavail

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// RetryAfter is how long a client is asked to wait before trying again. A crashed PostgreSQL
// restarts and replays its log in a few seconds; asking for more would stretch short outages.
const RetryAfter = 3 * time.Second

// Message is what a user is told while the database is unavailable. It names no component:
// the investor can do nothing about PostgreSQL, only try again.
const Message = "Clearvest is briefly unavailable. Please try again in a moment."

// Error marks a failure caused by the database being unreachable. Its text is the cause's, for
// the logs; users see Message.
type Error struct{ cause error }

func (e *Error) Error() string { return "database unavailable: " + e.cause.Error() }
func (e *Error) Unwrap() error { return e.cause }

// RetryAfter says when the caller may try again; the API sends it as the Retry-After header.
func (e *Error) RetryAfter() time.Duration { return RetryAfter }

// Classify returns err wrapped in *Error when it means the database is unreachable, and err
// unchanged otherwise (nil stays nil).
func Classify(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	if Unreachable(err) {
		return &Error{cause: err}
	}
	return err
}

// Unreachable reports whether err means PostgreSQL could not be reached or dropped the
// connection: a refused or reset connection, a failed connect (pool acquisition included),
// the server shutting down, crashed or still starting (57P01, 57P02, 57P03), any connection
// exception (class 08), or a deadline that expired while connecting.
//
// A cancelled request is not unavailability (the client left), nor is a serialization failure
// or deadlock (the transaction lost a race and is retried), nor a failed sign-in to the server
// (28xxx: a configuration error someone must fix, not an outage to wait out).
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return unreachableCode(pgErr.Code)
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		// Every way a connect fails without a server's answer: refused, reset, timed out,
		// host unreachable. The server's own refusals were PgErrors, handled above.
		return true
	}
	if errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, net.ErrClosed) {
		return true
	}
	// A connection that was open when the server died: the read or write fails at the socket.
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}

// unreachableCode classifies a SQLSTATE reported by the server.
func unreachableCode(code string) bool {
	switch code {
	case "57P01", // admin_shutdown: a fast or smart shutdown, or pg_terminate_backend
		"57P02", // crash_shutdown: another backend crashed and the server is resetting
		"57P03": // cannot_connect_now: starting up or replaying its log after a crash
		return true
	}
	return len(code) == 5 && code[:2] == "08" // connection_exception and its subclasses
}

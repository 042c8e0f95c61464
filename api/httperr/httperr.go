// Package httperr is the one place where errors become HTTP responses. Handlers, middleware and
// the generated server return or pass errors here; nothing else chooses an error status or
// words an error message, so the mapping of domain failures to the API contract (docs/product-rules.md, "API conventions")
// can be read, and changed, in one file.
//
// Every error response is JSON of the shape of the OpenAPI `Error` schema:
// {"message": "...", "code": "...", "field": "..."} where code is present only when the client
// must act on the reason (e.g. "new_device") and field only for a single-input problem; a
// new_device refusal also carries "pendingLogin".
package httperr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"clearvest/api/apigen"
	"clearvest/api/internal/reqctx"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/platform/pgavail"
)

// User-facing messages for failures that carry no message of their own.
const (
	InternalMessage    = "Something went wrong. Please try again."
	ConcurrencyMessage = "This changed while you were working on it. Please try again."
	NotFoundMessage    = "Not found"
	MalformedMessage   = "The request could not be understood. Please check it and try again."
	// UnavailableMessage answers requests while the database does not; it names no component.
	UnavailableMessage = pgavail.Message
)

// StatusClientClosedRequest is recorded when the client went away before we answered. It is
// nginx's convention: a 4xx keeps abandoned requests out of server-error rates and alerts, and
// the client never sees it anyway.
const StatusClientClosedRequest = 499

// CodedError is an error with a stable machine-readable reason the client acts on (the
// response's `code`, e.g. "new_device"); its message is still the one shown to the user.
type CodedError interface {
	error
	ErrorCode() string
}

// PendingLoginError is a refusal that opens the next step of a sign-in (401 new_device): the
// token of the pending sign-in goes in the response's `pendingLogin`, for API clients to send
// back with the e-mailed code.
type PendingLoginError interface {
	error
	PendingLogin() string
}

// UntilError is a refusal that lasts until a known time (a withdrawal cool-down): the time goes
// in the response's `until`.
type UntilError interface {
	error
	Until() time.Time
}

// DetailError is a refusal that carries more of the Error schema than a message and a code (the
// current figures of a 409 on a quote that changed); it fills them in itself.
type DetailError interface {
	error
	ErrorDetail(body *apigen.Error)
}

// RetryAfterError is an error that knows when the caller may try again. A rate limiter returns
// one so that 429 responses carry a Retry-After header.
type RetryAfterError interface {
	error
	RetryAfter() time.Duration
}

var kindStatus = map[domainerr.Kind]int{
	domainerr.Invalid:          http.StatusBadRequest,
	domainerr.Unauthenticated:  http.StatusUnauthorized,
	domainerr.Forbidden:        http.StatusForbidden,
	domainerr.NotFound:         http.StatusNotFound,
	domainerr.Conflict:         http.StatusConflict,
	domainerr.TooLarge:         http.StatusRequestEntityTooLarge,
	domainerr.UnsupportedMedia: http.StatusUnsupportedMediaType,
	domainerr.RuleBroken:       http.StatusUnprocessableEntity,
	domainerr.RateLimited:      http.StatusTooManyRequests,
	domainerr.Gone:             http.StatusGone,
}

// Fallbacks for classified errors created with an empty message; the domain should always word
// its own, but an empty toast is worse than a generic one.
var kindMessage = map[domainerr.Kind]string{
	domainerr.Invalid:          "Please check your input and try again.",
	domainerr.Unauthenticated:  "Please log in to continue.",
	domainerr.Forbidden:        "You are not allowed to do this.",
	domainerr.NotFound:         NotFoundMessage,
	domainerr.Conflict:         ConcurrencyMessage,
	domainerr.TooLarge:         "The request is too large.",
	domainerr.UnsupportedMedia: "This file type is not supported.",
	domainerr.RuleBroken:       "This cannot be done right now.",
	domainerr.RateLimited:      "Too many attempts. Please try again later.",
	domainerr.Gone:             "This was deleted and is no longer available.",
}

// Write answers the request with the response err stands for:
//   - a domainerr.Classified error: the status of its kind and its own message (and field);
//   - eventstore.ErrConcurrency: 409, asking the user to try again;
//   - *http.MaxBytesError (a body over the limit): 413;
//   - the client going away: 499, logged at debug level only;
//   - the database unreachable (pgavail): 503 with Retry-After, asking to try again in a
//     moment; logged as a warning at most once a second, since an outage fails every request
//     at once and one line says as much as thousands;
//   - anything else: 500 with a generic message, the error itself logged with the request ID.
func Write(w http.ResponseWriter, r *http.Request, err error) {
	status, body := classify(r, err)
	logger := reqctx.Logger(r.Context())
	switch {
	case status == http.StatusServiceUnavailable:
		logUnavailable(r, err)
	case status >= 500:
		logger.ErrorContext(r.Context(), "request failed",
			"error", err, "method", r.Method, "route", routePattern(r), "status", status)
	default:
		logger.DebugContext(r.Context(), "request refused",
			"error", err, "method", r.Method, "route", routePattern(r), "status", status)
	}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		var after time.Duration
		if ra, ok := errors.AsType[RetryAfterError](err); ok {
			after = ra.RetryAfter()
		} else if status == http.StatusServiceUnavailable {
			after = pgavail.RetryAfter
		}
		if after > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(int64(math.Ceil(after.Seconds())), 10))
		}
	}
	writeJSON(w, status, body)
}

// WriteRequestError answers a request that could not be read or decoded: a body that is not
// JSON, a field of the wrong type, a malformed parameter. Such errors come from libraries (the
// generated server, encoding/json) and are the client's fault, so unclassified ones become 400
// rather than 500.
func WriteRequestError(w http.ResponseWriter, r *http.Request, err error) {
	if _, _, ok := domainerr.KindOf(err); ok {
		Write(w, r, err)
		return
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		Write(w, r, err)
		return
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		Write(w, r, domainerr.Field(te.Field, fmt.Sprintf("The field %q has the wrong type.", te.Field)).Wrap(err))
		return
	}
	Write(w, r, domainerr.E(domainerr.Invalid, MalformedMessage).Wrap(err))
}

// Respond writes an error response for a failure of the HTTP protocol itself (no route, wrong
// method), where there is no error value to classify.
func Respond(w http.ResponseWriter, r *http.Request, status int, message string) {
	reqctx.Logger(r.Context()).DebugContext(r.Context(), "request refused",
		"method", r.Method, "route", routePattern(r), "status", status)
	writeJSON(w, status, apigen.Error{Message: message})
}

func classify(r *http.Request, err error) (int, apigen.Error) {
	if kind, msg, ok := domainerr.KindOf(err); ok {
		status, known := kindStatus[kind]
		if !known {
			// A kind added to domainerr but not mapped here is a bug on our side; its message
			// was worded for a different status, so it is not shown.
			return http.StatusInternalServerError, apigen.Error{Message: InternalMessage}
		}
		if msg == "" {
			msg = kindMessage[kind]
		}
		body := apigen.Error{Message: msg}
		if de, ok := errors.AsType[*domainerr.Error](err); ok && de.Field != "" {
			body.Field = &de.Field
		}
		if ce, ok := errors.AsType[CodedError](err); ok && ce.ErrorCode() != "" {
			code := ce.ErrorCode()
			body.Code = &code
		}
		if pe, ok := errors.AsType[PendingLoginError](err); ok && pe.PendingLogin() != "" {
			token := pe.PendingLogin()
			body.PendingLogin = &token
		}
		if ue, ok := errors.AsType[UntilError](err); ok && !ue.Until().IsZero() {
			until := ue.Until().UTC()
			body.Until = &until
		}
		if de, ok := errors.AsType[DetailError](err); ok {
			de.ErrorDetail(&body)
		}
		return status, body
	}
	if errors.Is(err, eventstore.ErrConcurrency) {
		return http.StatusConflict, apigen.Error{Message: ConcurrencyMessage}
	}
	if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return http.StatusRequestEntityTooLarge, apigen.Error{Message: TooLargeMessage(mb.Limit)}
	}
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return StatusClientClosedRequest, apigen.Error{Message: InternalMessage}
	}
	if _, ok := errors.AsType[*pgavail.Error](err); ok || pgavail.Unreachable(err) {
		return http.StatusServiceUnavailable, apigen.Error{Message: UnavailableMessage}
	}
	return http.StatusInternalServerError, apigen.Error{Message: InternalMessage}
}

// unavailableLog throttles the log of 503s: the first after a quiet second is a warning that
// carries how many were answered since the previous warning; the others are debug lines.
var unavailableLog struct {
	last       atomic.Int64 // unix nanoseconds of the last warning
	suppressed atomic.Int64
}

func logUnavailable(r *http.Request, err error) {
	ctx := r.Context()
	logger := reqctx.Logger(ctx)
	now := time.Now().UnixNano()
	last := unavailableLog.last.Load()
	if now-last >= int64(time.Second) && unavailableLog.last.CompareAndSwap(last, now) {
		logger.WarnContext(ctx, "database unavailable; answering 503",
			"error", err, "method", r.Method, "route", routePattern(r),
			"also_refused", unavailableLog.suppressed.Swap(0))
		return
	}
	unavailableLog.suppressed.Add(1)
	logger.DebugContext(ctx, "database unavailable; answering 503",
		"error", err, "method", r.Method, "route", routePattern(r))
}

// TooLargeMessage words the 413 message for a body limit in bytes.
func TooLargeMessage(limit int64) string {
	const mib = 1 << 20
	switch {
	case limit >= mib && limit%mib == 0:
		return fmt.Sprintf("The request is too large (the limit is %d MB).", limit/mib)
	case limit >= 1<<10 && limit%(1<<10) == 0:
		return fmt.Sprintf("The request is too large (the limit is %d KB).", limit>>10)
	default:
		return fmt.Sprintf("The request is too large (the limit is %d bytes).", limit)
	}
}

// written is implemented by the middleware's response recorder.
type written interface{ Written() bool }

func writeJSON(w http.ResponseWriter, status int, body apigen.Error) {
	// Once a handler has started its response, a second status line would be ignored by
	// net/http and the JSON would corrupt the body; the failure is already logged.
	if ww, ok := w.(written); ok && ww.Written() {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	// Headers a handler set for a success response (a content length, a download name) do not
	// describe this body.
	h.Del("Content-Length")
	h.Del("Content-Disposition")
	h.Del("ETag")
	h.Del("Last-Modified")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(body); err != nil {
		slog.Debug("writing error response", "error", err)
	}
}

func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		return rc.RoutePattern()
	}
	return ""
}

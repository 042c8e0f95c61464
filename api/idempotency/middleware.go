// Package idempotency is the HTTP side of the Idempotency-Key header of every state-changing
// request (docs/product-rules.md, "API conventions"): the first request with a key runs and its
// response is kept; a repeat with the same request gets that response again, marked
// Idempotency-Hit; a repeat with another request is refused (422); one sent while the first
// still runs is refused (409). The keys and responses live in platform/idempotency.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/google/uuid"

	"clearvest/api/httperr"
	"clearvest/api/middleware"
	"clearvest/app/command"
	"clearvest/domain/domainerr"
	"clearvest/eventstore/postgres"
	keys "clearvest/platform/idempotency"
	"clearvest/platform/pgavail"
)

// Mode is how a request's Idempotency-Key is honoured.
type Mode int

const (
	// Skip: the key is not looked at.
	Skip Mode = iota
	// Ahead: the key is claimed before the request runs, and its answer stored after.
	Ahead
	// WithCommand: the key's record is written by the command the request runs through
	// command.Submit, in the command's transaction (command.WithClaim), and its answer stored
	// after. The request must change state only through such a command.
	WithCommand
)

// Store keeps the keys and their responses.
type Store = keys.Store

// Header names.
const (
	HeaderKey = "Idempotency-Key"
	HeaderHit = "Idempotency-Hit"
)

// MaxKeyLength bounds a key; clients use UUIDs or similar.
const MaxKeyLength = 255

// maxStoredBody bounds a response kept for repeats. Every answer of the API is far smaller; a
// larger one is sent but not kept, and the key released, rather than fill the table.
const maxStoredBody = 1 << 20

// storedHeaders are the response headers a repeat must see again: what the body is, the
// read-your-writes position, and the cookies and redirect of a sign-in. The rest (security
// headers, Cache-Control) are set afresh on every response by the middleware around this one.
var storedHeaders = []string{"Content-Type", "Content-Disposition", "Location", "Set-Cookie", middleware.HeaderPosition}

var (
	errBadKey = domainerr.Field(HeaderKey,
		"The Idempotency-Key header must be 1 to 255 visible ASCII characters, sent once.")
	errInProgressHTTP = domainerr.New(domainerr.Conflict,
		"A request with this Idempotency-Key is still being processed. Wait for its answer, or try again in a moment.")
)

// Middleware answers requests that carry an Idempotency-Key, for the requests mode selects
// (POST, PUT and PATCH of the operations that change state), within the caller named by scope:
//
//   - the first request with a key runs, and its response is stored (sealed) for a day;
//   - a repeat with the same method, path, query and body gets that response again, with
//     Idempotency-Hit: true, and runs nothing;
//   - a repeat with another request is refused with 422, one sent while the first still runs
//     with 409;
//   - a response the server failed to give (5xx), a 429 (try later) or a response too large to
//     keep releases the key, so that a retry runs again.
//
// Ahead claims the key with a write of its own before the request runs; WithCommand lets the
// request's command write it, which saves that write and its commit (see runWithCommand).
//
// scope names the caller whose keys the request's key is among, and the user its response will
// be about when that is the caller (uuid.Nil for an anonymous caller; a handler that signs
// someone in names them with SetOwner). Closing that user's account deletes the response.
//
// It must run after authentication (scope needs the caller) and after the policy (a refused
// request has nothing to remember).
func Middleware(s *Store, scope func(*http.Request) (string, uuid.UUID), mode func(*http.Request) Mode) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			values := r.Header.Values(HeaderKey)
			m := Skip
			if len(values) > 0 {
				m = mode(r)
			}
			if m == Skip {
				next.ServeHTTP(w, r)
				return
			}
			if len(values) > 1 || !validKey(values[0]) {
				httperr.Write(w, r, errBadKey)
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				httperr.WriteRequestError(w, r, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))

			name, owner := scope(r)
			if m == WithCommand {
				runWithCommand(s, w, r, name, values[0], requestHash(r, body), owner, next)
				return
			}
			claim, stored, err := s.Begin(r.Context(), name, values[0], requestHash(r, body), owner)
			if err != nil || stored != nil {
				answerRecorded(w, r, stored, err)
				return
			}
			run(s, w, r.WithContext(context.WithValue(r.Context(), ownerKey{}, &owner)), claim, next)
		})
	}
}

// answerRecorded answers a request from its key's record: the stored response, or the refusal
// of a key reused or still in use.
func answerRecorded(w http.ResponseWriter, r *http.Request, stored *keys.Response, err error) {
	switch {
	case errors.Is(err, keys.ErrReused):
		httperr.Write(w, r, command.ErrIdempotencyKeyReused)
	case errors.Is(err, keys.ErrInProgress):
		httperr.Write(w, r, errInProgressHTTP)
	case err != nil:
		httperr.Write(w, r, err)
	default:
		replay(w, *stored)
	}
}

// runWithCommand serves a request whose command claims its key. The response is held back until
// it is settled:
//
//   - the command committed (the claim with it): the response is sent. Nothing else is stored:
//     the command's events carry the key and the request hash, and a repeat finds them;
//   - the command found the events of an earlier request with the key: it answered from them,
//     and the response is sent with Idempotency-Hit (a request with another body got a 422);
//   - the command found the key's record taken (a request with the key ran, or runs, through
//     another operation or in another process): the request is answered from the record;
//   - no command committed (the request was refused, or ran none): the response is stored as
//     Complete would have, unless a request with the key got there first, whose record then
//     answers; a 5xx, a 429 or an oversized response is sent and not kept.
//
// A second request with the key in this process meanwhile gets 409 at once (Pend).
func runWithCommand(s *Store, w http.ResponseWriter, r *http.Request, scope, key string, hash []byte, owner uuid.UUID, next http.Handler) {
	p, err := s.Pend(scope, key, hash, owner)
	if err != nil {
		answerRecorded(w, r, nil, err)
		return
	}
	defer p.Done()
	sql, args := p.Statement()
	claim := &command.Claim{Statement: postgres.Statement{SQL: sql, Args: args}, Constraint: keys.ClaimConstraint}
	claim.Key, claim.Hash = p.Names()
	b := &buffer{header: http.Header{}}
	next.ServeHTTP(b, r.WithContext(command.WithClaim(r.Context(), claim)))

	ctx := context.WithoutCancel(r.Context())
	res := b.response()
	switch {
	case claim.Replayed():
		b.header.Set(HeaderHit, "true")
	case claim.Committed(), claim.Reused():
	case claim.Conflicted():
		stored, err := p.Recorded(ctx)
		answerRecorded(w, r, stored, err)
		return
	case keepable(res.Status) && !b.overflow:
		kept, err := p.Remember(ctx, res)
		if err != nil {
			logStoreFailure(ctx, middleware.Logger(r.Context()), "storing an idempotent response", err)
		} else if !kept {
			stored, err := p.Recorded(ctx)
			answerRecorded(w, r, stored, err)
			return
		}
	}
	b.sendTo(w)
}

// keepable reports whether a response with status is one to repeat: not a failure of the
// server, nor a request to try later.
func keepable(status int) bool {
	return status < 500 && status != http.StatusTooManyRequests && status != httperr.StatusClientClosedRequest
}

// run serves a claimed request and keeps its response, or releases the key when the response is
// not one to repeat.
func run(s *Store, w http.ResponseWriter, r *http.Request, claim *keys.Claim, next http.Handler) {
	ctx := context.WithoutCancel(r.Context())
	log := middleware.Logger(r.Context())
	finished := false
	defer func() {
		if !finished {
			// A panic: the request failed on the server's side.
			if err := s.Release(ctx, claim); err != nil {
				logStoreFailure(ctx, log, "releasing an idempotency key", err)
			}
		}
	}()
	c := &capture{ResponseWriter: w}
	next.ServeHTTP(c, r)
	finished = true

	status := c.statusSent()
	if !keepable(status) || c.overflow {
		if err := s.Release(ctx, claim); err != nil {
			logStoreFailure(ctx, log, "releasing an idempotency key", err)
		}
		return
	}
	res := keys.Response{Status: status, Header: http.Header{}, Body: c.body.Bytes()}
	for _, name := range storedHeaders {
		if v := w.Header().Values(name); len(v) > 0 {
			res.Header[name] = v
		}
	}
	if err := s.Complete(ctx, claim, res, *r.Context().Value(ownerKey{}).(*uuid.UUID)); err != nil {
		// The client has its answer; a repeat will wait out the lease and run again.
		logStoreFailure(ctx, log, "storing an idempotent response", err)
	}
}

// logStoreFailure logs a failure to write the key store after the request was answered. While
// the database is unreachable that is a consequence of the outage, already reported, not a
// fault of its own: a warning, not an error. The lease on the key runs out either way.
func logStoreFailure(ctx context.Context, log *slog.Logger, msg string, err error) {
	if pgavail.Unreachable(err) {
		log.WarnContext(ctx, msg+" failed: the database is unreachable; the key is free again when its lease ends", "err", err)
		return
	}
	log.ErrorContext(ctx, msg, "err", err)
}

// ownerKey is the context key of the user a kept response will be about.
type ownerKey struct{}

// SetOwner names the user a request's response is about when the caller was anonymous (a
// sign-in or registration answers with that user's profile and token), so that closing their
// account deletes the kept response. Outside a request with an Idempotency-Key it does nothing.
func SetOwner(ctx context.Context, user uuid.UUID) {
	if o, ok := ctx.Value(ownerKey{}).(*uuid.UUID); ok {
		*o = user
	}
}

func replay(w http.ResponseWriter, res keys.Response) {
	h := w.Header()
	for name, values := range res.Header {
		h[name] = values
	}
	h.Set(HeaderHit, "true")
	w.WriteHeader(res.Status)
	_, _ = w.Write(res.Body)
}

// requestHash identifies a request: two requests with one key are the same request when their
// method, path, query and body are.
func requestHash(r *http.Request, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.URL.EscapedPath() + "?" + r.URL.RawQuery + "\n"))
	h.Write(body)
	return h.Sum(nil)
}

func validKey(k string) bool {
	if k == "" || len(k) > MaxKeyLength {
		return false
	}
	for i := range len(k) {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// capture passes a response through and keeps a copy of its status and body.
type capture struct {
	http.ResponseWriter
	status   int
	started  bool
	body     bytes.Buffer
	overflow bool
}

func (c *capture) WriteHeader(code int) {
	if !c.started && code >= 200 {
		c.status, c.started = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if !c.started {
		c.status, c.started = http.StatusOK, true
	}
	if c.body.Len()+len(b) > maxStoredBody {
		c.overflow = true
	} else {
		c.body.Write(b)
	}
	return c.ResponseWriter.Write(b)
}

func (c *capture) statusSent() int {
	if !c.started {
		return http.StatusOK
	}
	return c.status
}

// Written tells httperr that the response has started, so that a late error is not written
// over it.
func (c *capture) Written() bool { return c.started }

// Flush keeps streaming responses working through the wrapper.
func (c *capture) Flush() {
	if !c.started {
		c.status, c.started = http.StatusOK, true
	}
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// buffer holds a response back until runWithCommand knows it is the one to send.
type buffer struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	overflow bool
}

func (b *buffer) Header() http.Header { return b.header }

func (b *buffer) WriteHeader(code int) {
	if b.status == 0 && code >= 200 {
		b.status = code
	}
}

func (b *buffer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	if b.body.Len()+len(p) > maxStoredBody {
		b.overflow = true
	}
	return b.body.Write(p)
}

// Written tells httperr that the response has started.
func (b *buffer) Written() bool { return b.status != 0 }

func (b *buffer) response() keys.Response {
	res := keys.Response{Status: b.status, Header: http.Header{}, Body: b.body.Bytes()}
	if res.Status == 0 {
		res.Status = http.StatusOK
	}
	for _, name := range storedHeaders {
		if v := b.header.Values(name); len(v) > 0 {
			res.Header[name] = v
		}
	}
	return res
}

func (b *buffer) sendTo(w http.ResponseWriter) {
	h := w.Header()
	for name, values := range b.header {
		h[name] = values
	}
	status := b.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(b.body.Bytes())
}

package middleware

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"clearvest/api/httperr"
	"clearvest/domain/domainerr"
)

// Read-your-writes headers (docs/product-rules.md, "Read-your-writes"). Command responses carry HeaderPosition; the UI sends
// it back on the next query.
const (
	HeaderPosition = "X-Clearvest-Position"
	HeaderStale    = "X-Clearvest-Stale"
	// HeaderReadFrom says whether a safe request's read models were read on a read replica or
	// on the primary ("replica" or "primary"); it is sent only when replicas are configured.
	HeaderReadFrom = "X-Clearvest-Read-From"
)

// ReadRouter sends a safe request's read-model queries to a read replica (pgread.Set is one).
// Route returns ctx carrying the choice and whether a replica was chosen: with position 0 any
// replica in rotation, with a position above 0 only one whose replayed read models have passed it
// within maxWait (the primary's have already), and with a negative position none. fellBack is
// called whenever a query falls back to the primary after all.
type ReadRouter interface {
	Route(ctx context.Context, position int64, maxWait time.Duration, fellBack func()) (context.Context, bool)
}

// Waiter blocks until the read models have passed a global event position. It must be bounded:
// it returns an error when they do not get there in time (or when ctx ends).
type Waiter interface {
	WaitFor(ctx context.Context, position int64) error
}

// errBadPosition is the 400 for a malformed position header.
var errBadPosition = domainerr.Field(HeaderPosition,
	"The "+HeaderPosition+" header must be a whole number, zero or more.")

// ReadYourWrites makes a safe request (GET, HEAD) of a signed-in caller that carries
// HeaderPosition wait until the read models have passed that position before the handler runs,
// so a page shown right after a command already reflects it.
//
// Waiting costs the server, so only callers signedIn reports (authentication has run before
// this middleware) may ask for it; for anyone else the header is ignored and nothing waits.
// The Waiter treats a position beyond the log's head as the head.
//
// A malformed position is answered with 400. If the wait fails (the projections are slow or
// stuck) the request is served anyway, with "X-Clearvest-Stale: true": slightly old data with a
// marker the UI can act on beats a failed page, and the wait itself already cost the user
// time. maxWait caps the wait in case a Waiter does not bound itself (0 = no cap). A nil waiter
// means read models cannot be waited on, so every response to a positioned request is marked
// stale. Unsafe requests ignore the header: they are commands, and commands read the event
// store, not the read models.
//
// With a ReadRouter (read replicas configured) every safe request's read-model queries go to a
// replica in rotation; a positioned one's only to a replica that has replayed the position too,
// else to the primary (RouteReads). A nil router leaves every query on the primary.
func ReadYourWrites(waiter Waiter, router ReadRouter, maxWait time.Duration, signedIn func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			values := r.Header.Values(HeaderPosition)
			safe := r.Method == http.MethodGet || r.Method == http.MethodHead
			if len(values) == 0 || !safe || !signedIn(r) {
				if safe && router != nil {
					r = r.WithContext(RouteReads(r.Context(), w, router, 0, maxWait))
				}
				next.ServeHTTP(w, r)
				return
			}
			if len(values) > 1 {
				httperr.Write(w, r, errBadPosition)
				return
			}
			pos, err := ParsePosition(values[0])
			if err != nil {
				httperr.Write(w, r, errBadPosition)
				return
			}
			if err := Wait(r.Context(), waiter, pos, maxWait); err != nil {
				if r.Context().Err() != nil {
					httperr.Write(w, r, r.Context().Err())
					return
				}
				Logger(r.Context()).WarnContext(r.Context(), "read models behind requested position; serving stale data",
					"position", pos, "error", err)
				w.Header().Set(HeaderStale, "true")
				pos = -1 // no replica is further on than the primary
			}
			if router != nil {
				r = r.WithContext(RouteReads(r.Context(), w, router, pos, maxWait))
			}
			next.ServeHTTP(w, r)
		})
	}
}

// RouteReads asks router where the read-model queries of ctx go, for a request that has waited
// for position on the primary (0: no position; negative: the wait failed, so the primary
// serves), and names the choice in HeaderReadFrom. A nil router changes nothing.
func RouteReads(ctx context.Context, w http.ResponseWriter, router ReadRouter, position int64, maxWait time.Duration) context.Context {
	if router == nil {
		return ctx
	}
	h := w.Header()
	var mu sync.Mutex
	fellBack := func() {
		mu.Lock()
		defer mu.Unlock()
		h.Set(HeaderReadFrom, "primary")
	}
	ctx, replica := router.Route(ctx, position, maxWait, fellBack)
	from := "primary"
	if replica {
		from = "replica"
	}
	mu.Lock()
	h.Set(HeaderReadFrom, from)
	mu.Unlock()
	return ctx
}

var errNoWaiter = errors.New("no read-your-writes waiter configured")

// Wait blocks until the read models have passed pos, as a positioned query does: at most maxWait
// (0 = the waiter's own bound), at once for position 0, and never with a nil waiter (an error).
// Commands whose answer shows read-model figures use it with the position of the caller's own
// latest event, and mark the answer with HeaderStale when it fails.
func Wait(ctx context.Context, waiter Waiter, pos int64, maxWait time.Duration) error {
	if pos == 0 {
		return nil // every read model has passed the start of the log
	}
	if waiter == nil {
		return errNoWaiter
	}
	if maxWait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, maxWait)
		defer cancel()
	}
	return waiter.WaitFor(ctx, pos)
}

// ParsePosition parses a HeaderPosition value: 1 to 19 ASCII digits that fit in an int64. Signs,
// spaces, exponents and hex are refused rather than guessed at.
func ParsePosition(s string) (int64, error) {
	if s == "" || len(s) > 19 {
		return 0, errBadPosition
	}
	var n int64
	for i := range len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, errBadPosition
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, errBadPosition
		}
		n = n*10 + d
	}
	return n, nil
}

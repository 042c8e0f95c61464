package middleware

import (
	"fmt"
	"net/http"
	"runtime/debug"

	"clearvest/api/httperr"
)

// Recover turns a panic in a handler into a logged error and a generic 500 JSON response. The
// panic value and stack go to the log with the request ID, never to the client: they can hold
// internal details. If the handler had already started its response, a 500 can no longer be
// sent, so the connection is aborted instead of leaving a truncated body that looks complete.
func Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := wrap(w)
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			Logger(r.Context()).ErrorContext(r.Context(), "panic serving request",
				"panic", fmt.Sprint(v),
				"method", r.Method,
				"route", routePattern(r),
				"stack", string(debug.Stack()),
			)
			if rec.Written() {
				panic(http.ErrAbortHandler)
			}
			httperr.Respond(rec, r, http.StatusInternalServerError, httperr.InternalMessage)
		}()
		next.ServeHTTP(rec, r)
	})
}

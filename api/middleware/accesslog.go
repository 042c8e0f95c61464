package middleware

import (
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"
)

// AccessLog writes one JSON line per request: method, route pattern, status, bytes and
// duration, tagged with the request ID by the logger from RequestID.
//
// It logs the chi route pattern (/api/users/verifyUser/{token}), never the raw path or query:
// paths and queries here carry reset tokens, verification tokens and e-mail addresses, and logs
// are kept longer and read by more people than the database. Requests to the quiet routes
// (health probes, metrics scrapes) are logged at debug level so they do not drown the rest.
//
// It must run inside RequestID and outside Recover, so that a panic is logged as the 500 it
// became.
func AccessLog(quietRoutes ...string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := wrap(w)
			// Deferred so that a request aborted by a re-raised panic is still logged.
			defer func() {
				route := routePattern(r)
				level := slog.LevelInfo
				if slices.Contains(quietRoutes, route) {
					level = slog.LevelDebug
				}
				Logger(r.Context()).LogAttrs(r.Context(), level, "http request",
					slog.String("method", r.Method),
					slog.String("route", route),
					slog.Int("status", rec.Status()),
					slog.Int64("bytes", rec.bytes),
					slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
				)
			}()
			next.ServeHTTP(rec, r)
		})
	}
}

// routePattern is the matched chi pattern, or "unmatched" when routing found nothing (so logs
// and metric labels never carry a raw, unbounded path).
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

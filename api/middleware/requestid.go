package middleware

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"

	"clearvest/api/internal/reqctx"
	"clearvest/platform/correlation"
)

// HeaderRequestID carries the request ID in both directions.
const HeaderRequestID = "X-Request-ID"

// maxRequestIDLen bounds what we copy into every log line of a request.
const maxRequestIDLen = 64

// RequestID gives every request an ID: the caller's X-Request-ID when it is sane (so a trace can
// span a proxy or the UI), else a fresh random one. The ID is echoed in the response and put in
// the context together with a logger that tags every line with it; later middleware and
// handlers log through Logger(ctx). It must run first so that everything after it can log.
func RequestID(logger *slog.Logger) func(http.Handler) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get(HeaderRequestID)
			if !ValidRequestID(id) {
				// 26 characters of base32 (130 bits): unguessable and log-safe.
				id = rand.Text()
			}
			w.Header().Set(HeaderRequestID, id)
			ctx := reqctx.WithRequestID(r.Context(), id, logger.With("request_id", id))
			// The events a request's commands append carry its id as their correlation id.
			ctx = correlation.With(ctx, id)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// ValidRequestID reports whether an incoming request ID may be trusted into logs and headers:
// 1 to 64 characters of [A-Za-z0-9_-]. Anything else (log injection, huge values) is replaced.
func ValidRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := range len(id) {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// RequestIDFrom returns the ID of the request ctx belongs to, or "" outside a request.
func RequestIDFrom(ctx context.Context) string { return reqctx.RequestID(ctx) }

// Logger returns the request-scoped logger (tagged with the request ID), or slog.Default()
// outside a request.
func Logger(ctx context.Context) *slog.Logger { return reqctx.Logger(ctx) }

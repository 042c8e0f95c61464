// Package reqctx carries request-scoped values (request ID, logger, CSP nonce) between the
// middleware that sets them and httperr, which reads them. It sits below both so that middleware
// can use httperr without an import cycle; everything else reads these values through the
// accessors in api/middleware.
package reqctx

import (
	"context"
	"log/slog"
)

type key int

const (
	requestIDKey key = iota
	loggerKey
	nonceKey
)

// WithRequestID returns ctx carrying the request ID and a logger that tags every line with it.
func WithRequestID(ctx context.Context, id string, logger *slog.Logger) context.Context {
	ctx = context.WithValue(ctx, requestIDKey, id)
	return context.WithValue(ctx, loggerKey, logger)
}

// RequestID returns the request ID, or "" outside a request.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// Logger returns the request's logger, or slog.Default() outside a request.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.Default()
}

// WithNonce returns ctx carrying the CSP nonce of the response.
func WithNonce(ctx context.Context, nonce string) context.Context {
	return context.WithValue(ctx, nonceKey, nonce)
}

// Nonce returns the CSP nonce, or "" when the security headers middleware did not run.
func Nonce(ctx context.Context) string {
	n, _ := ctx.Value(nonceKey).(string)
	return n
}

package api

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"

	"clearvest/api/apigen"
	"clearvest/api/middleware"
)

// SetPosition tells the client the global position of the last event its command appended, so
// that its next query can wait for the read models to reach it (read-your-writes). Call it
// before writing the response. Strict handlers, which have no ResponseWriter, use
// RecordPosition instead.
func SetPosition(w http.ResponseWriter, position int64) {
	if position > 0 {
		w.Header().Set(middleware.HeaderPosition, strconv.FormatInt(position, 10))
	}
}

type positionKey struct{}

// RecordPosition is SetPosition for strict handlers: the position is sent as X-Clearvest-Position
// on the response of the operation ctx belongs to. When a handler appends several times the
// highest position wins, since waiting for it covers the others.
func RecordPosition(ctx context.Context, position int64) {
	slot, ok := ctx.Value(positionKey{}).(*atomic.Int64)
	if !ok {
		return
	}
	for {
		cur := slot.Load()
		if position <= cur || slot.CompareAndSwap(cur, position) {
			return
		}
	}
}

// recordPositions gives every strict operation a slot for RecordPosition and copies it into the
// response header once the handler returns, before the generated code writes the response.
func recordPositions(f apigen.StrictHandlerFunc, _ string) apigen.StrictHandlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, r *http.Request, req any) (any, error) {
		var slot atomic.Int64
		resp, err := f(context.WithValue(ctx, positionKey{}, &slot), w, r, req)
		SetPosition(w, slot.Load())
		return resp, err
	}
}

// signedIn reports whether authenticate found a signed-in caller for r: only they may make a
// query wait for the read models (read-your-writes).
func signedIn(r *http.Request) bool {
	_, ok := PrincipalFrom(r.Context())
	return ok
}

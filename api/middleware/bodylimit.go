package middleware

import (
	"net/http"

	"clearvest/api/httperr"
)

// BodyLimit caps request bodies at limit bytes. A declared Content-Length over the limit is
// refused at once with 413, before anything is read; a body that turns out longer while a
// handler reads it fails the read with *http.MaxBytesError, which httperr also answers with 413.
// Bounding every body is what keeps one client from exhausting the server's memory with a
// single JSON document.
func BodyLimit(limit int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > limit {
				httperr.Write(w, r, &http.MaxBytesError{Limit: limit})
				return
			}
			if r.Body != nil && r.Body != http.NoBody {
				r.Body = http.MaxBytesReader(w, r.Body, limit)
			}
			next.ServeHTTP(w, r)
		})
	}
}

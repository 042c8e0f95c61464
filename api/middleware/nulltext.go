package middleware

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"clearvest/api/httperr"
	"clearvest/eventstore"
)

// RejectNullCharacters answers 400 (eventstore.ErrNullCharacter) to a request whose path, query
// or JSON body holds U+0000. PostgreSQL's text and jsonb cannot store that character, so such
// input could only fail deeper, as a server error, after other work was done. It reads a JSON
// body into memory, so it must run inside BodyLimit.
func RejectNullCharacters(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.IndexByte(r.URL.Path, 0) >= 0 || strings.Contains(r.URL.RawQuery, "%00") {
			httperr.Write(w, r, eventstore.ErrNullCharacter)
			return
		}
		if r.Body == nil || r.Body == http.NoBody || !isJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			httperr.WriteRequestError(w, r, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if jsonHoldsNull(body) {
			httperr.Write(w, r, eventstore.ErrNullCharacter)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// jsonHoldsNull reports whether a string (a key or a value) of the JSON document decodes to
// text holding U+0000. Raw NUL bytes are not JSON at all and are left to the decoder's 400; only
// the escape can carry one, so documents without it are not parsed twice.
func jsonHoldsNull(body []byte) bool {
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false // the end, or not JSON: the handler's decoder answers that
		}
		if s, ok := tok.(string); ok && strings.IndexByte(s, 0) >= 0 {
			return true
		}
	}
}

package api

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"clearvest/api/httperr"
	"clearvest/api/middleware"
)

// notBuiltPage is served when the UI has not been built into Assets, so a developer who starts
// only the server sees what to do instead of a blank page.
const notBuiltPage = "UI not built — run make run\n"

// spa serves the single-page UI: real files from the build, and index.html for every other
// path so the client-side router can handle deep links (/withdrawal/42).
type spa struct {
	assets fs.FS
}

func newSPA(assets fs.FS) spa { return spa{assets: assets} }

func (s spa) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || name == "index.html" || s.assets == nil {
		s.serveIndex(w, r)
		return
	}
	if s.serveFile(w, r, name) {
		return
	}
	// Hashed build output is only ever requested by exact name; answering a missing one with
	// index.html would hand the browser HTML where it expects a script (and hide a broken
	// deployment behind a blank page).
	if name == "assets" || strings.HasPrefix(name, "assets/") {
		httperr.Respond(w, r, http.StatusNotFound, httperr.NotFoundMessage)
		return
	}
	s.serveIndex(w, r)
}

// serveFile serves name if it is a regular file of the build, and reports whether it did.
// Directories are never listed, and dot-files (.gitkeep and the like) are not part of the UI.
func (s spa) serveFile(w http.ResponseWriter, r *http.Request, name string) bool {
	if !fs.ValidPath(name) || strings.HasPrefix(name, ".") || strings.Contains(name, "/.") {
		return false
	}
	f, err := s.assets.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	content, ok := f.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(f)
		if err != nil {
			httperr.Write(w, r, err)
			return true
		}
		content = bytes.NewReader(b)
	}
	if strings.HasPrefix(name, "assets/") {
		// Vite puts a content hash in every name under assets/, so a name never changes meaning.
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, name, info.ModTime(), content)
	return true
}

// serveIndex serves index.html with this response's CSP nonce stamped on its inline and
// external <script> and <style> tags. It is never cached or validated (no ETag): a stored copy
// would carry a nonce that no longer matches the policy header.
func (s spa) serveIndex(w http.ResponseWriter, r *http.Request) {
	var page []byte
	var err error
	if s.assets != nil {
		page, err = fs.ReadFile(s.assets, "index.html")
	}
	if s.assets == nil || errors.Is(err, fs.ErrNotExist) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Retry-After", strconv.Itoa(int(time.Minute.Seconds())))
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, notBuiltPage)
		return
	}
	if err != nil {
		httperr.Write(w, r, err)
		return
	}
	page = InjectNonce(page, middleware.Nonce(r.Context()))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page)
	}
}

var scriptOrStyleTag = regexp.MustCompile(`(?i)<(script|style)\b`)

// InjectNonce adds nonce="…" to every <script> and <style> tag of an HTML page. An empty nonce
// leaves the page unchanged.
func InjectNonce(page []byte, nonce string) []byte {
	if nonce == "" {
		return page
	}
	return scriptOrStyleTag.ReplaceAll(page, []byte(`<$1 nonce="`+nonce+`"`))
}

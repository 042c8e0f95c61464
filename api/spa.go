package api

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"clearvest/api/httperr"
	"clearvest/api/middleware"
)

// notBuiltPage is served when the UI has not been built into Assets, so a developer who starts
// only the server sees what to do instead of a blank page.
const notBuiltPage = "UI not built — run make run\n"

// publicOriginPlaceholder stands for CLEARVEST_PUBLIC_URL in the build's absolute URLs (canonical
// links, og:url, the sitemap): the build cannot know where it will be deployed. It must match
// PUBLIC_ORIGIN_PLACEHOLDER in ui/src/app/prerender.ts.
const publicOriginPlaceholder = "https://public-origin.clearvest.invalid"

// Build files the server fills in with the public origin before serving them.
var originFiles = map[string]string{
	"sitemap.xml": "application/xml; charset=utf-8",
	"robots.txt":  "text/plain; charset=utf-8",
}

// spa serves the single-page UI: real files from the build; for a page of the app (the route
// manifest, dist/routes.json) its prerendered HTML or else index.html with 200; for any other path
// index.html with 404, so the app shows its "Page not found" and crawlers and monitors see the
// truth. See docs/public-site.md.
type spa struct {
	assets fs.FS
	site   func() (*uiSite, error)
	// The answers of the queries pages are served complete with (livepages.go), by endpoint name;
	// a page whose query is missing is served as the build rendered it.
	answers map[string]liveAnswer
	logger  *slog.Logger
	// Gzipped copies of compressible build files, made on first request (the build never changes
	// while the process runs).
	gzipped sync.Map
}

// uiSite is what the server derives from the build once, on first use (not in newSPA, so a broken
// build fails requests, not start-up, and a server without UI still serves the API).
type uiSite struct {
	index []byte
	// routes is nil for a build without a route manifest: every path is then treated as a page.
	routes *uiRoutes
	// Prerendered pages and the origin files, with the public origin in place.
	pages map[string][]byte
	files map[string][]byte
	// Pages completed with current data on each request, by route path.
	livePages map[string]*livePage
}

func newSPA(assets fs.FS, publicURL string, answers map[string]liveAnswer, logger *slog.Logger) *spa {
	s := &spa{assets: assets, answers: answers, logger: logger}
	s.site = sync.OnceValues(func() (*uiSite, error) { return loadUISite(assets, publicURL, logger) })
	return s
}

func loadUISite(assets fs.FS, publicURL string, logger *slog.Logger) (*uiSite, error) {
	site := &uiSite{pages: map[string][]byte{}, files: map[string][]byte{}, livePages: map[string]*livePage{}}
	if assets == nil {
		return site, nil
	}
	index, err := fs.ReadFile(assets, "index.html")
	if errors.Is(err, fs.ErrNotExist) {
		return site, nil
	}
	if err != nil {
		return nil, err
	}
	site.index = index
	origin := []byte(strings.TrimRight(publicURL, "/"))
	withOrigin := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(publicOriginPlaceholder), origin) }

	manifest, err := fs.ReadFile(assets, "routes.json")
	if errors.Is(err, fs.ErrNotExist) {
		logger.Warn("the UI build has no route manifest (routes.json); every path is answered as a page")
		return site, nil
	}
	if err != nil {
		return nil, err
	}
	routes, err := parseUIRoutes(manifest)
	if err != nil {
		return nil, err
	}
	site.routes = &routes
	for _, r := range routes.routes {
		if r.Prerendered == "" {
			continue
		}
		page, err := fs.ReadFile(assets, r.Prerendered)
		if err != nil {
			return nil, fmt.Errorf("prerendered page of %s: %w", r.Path, err)
		}
		site.pages[r.Path] = withOrigin(page)
		if r.Data == "" {
			continue
		}
		b, err := fs.ReadFile(assets, r.Data)
		if err != nil {
			return nil, fmt.Errorf("data templates of %s: %w", r.Path, err)
		}
		templates, err := parseLiveTemplates(b, withOrigin)
		if err != nil {
			return nil, fmt.Errorf("data templates of %s: %w", r.Path, err)
		}
		site.livePages[r.Path] = &livePage{templates: templates}
	}
	for name := range originFiles {
		b, err := fs.ReadFile(assets, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		site.files[name] = withOrigin(b)
	}
	return site, nil
}

func (s *spa) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	site, err := s.site()
	if err != nil {
		httperr.Write(w, r, err)
		return
	}
	if site.index == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Retry-After", strconv.Itoa(int(time.Minute.Seconds())))
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, notBuiltPage)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if body, ok := site.files[name]; ok {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Content-Type", originFiles[name])
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
		return
	}
	// HTML is only ever served as a page, with its nonce: index.html and the prerendered files are
	// templates, not files to hand out as they are.
	if name != "" && path.Ext(name) != ".html" && s.serveFile(w, r, name) {
		return
	}
	// Hashed build output is only ever requested by exact name; answering a missing one with
	// index.html would hand the browser HTML where it expects a script (and hide a broken
	// deployment behind a blank page).
	if name == "assets" || strings.HasPrefix(name, "assets/") {
		httperr.Respond(w, r, http.StatusNotFound, httperr.NotFoundMessage)
		return
	}
	if site.routes == nil {
		servePage(w, r, http.StatusOK, site.index)
		return
	}
	route, ok := site.routes.match(r.URL.EscapedPath())
	switch {
	case !ok:
		servePage(w, r, http.StatusNotFound, site.index)
	case site.livePages[route.Path] != nil && s.answers[site.livePages[route.Path].templates.Query] != nil:
		servePage(w, r, http.StatusOK, s.withData(r, site.livePages[route.Path], site.pages[route.Path]))
	case site.pages[route.Path] != nil:
		servePage(w, r, http.StatusOK, site.pages[route.Path])
	default:
		servePage(w, r, http.StatusOK, site.index)
	}
}

// withData is the page filled with its query's current answer; if that cannot be read, the page
// as the build rendered it (the app then loads the data itself and shows its loading and error
// states).
func (s *spa) withData(r *http.Request, p *livePage, fallback []byte) []byte {
	answer, err := s.answers[p.templates.Query](r.Context())
	if err == nil {
		var page []byte
		if page, err = p.render(answer); err == nil {
			return page
		}
	}
	s.logger.WarnContext(r.Context(), "a page is served without its current data", "path", r.URL.Path, "query", p.templates.Query, "err", err)
	return fallback
}

// serveFile serves name if it is a regular file of the build, and reports whether it did.
// Directories are never listed, and dot-files (.gitkeep and the like) are not part of the UI.
func (s *spa) serveFile(w http.ResponseWriter, r *http.Request, name string) bool {
	if s.assets == nil || !fs.ValidPath(name) || strings.HasPrefix(name, ".") || strings.Contains(name, "/.") {
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
	body, err := io.ReadAll(f)
	if err != nil {
		httperr.Write(w, r, err)
		return true
	}
	if strings.HasPrefix(name, "assets/") {
		// Vite puts a content hash in every name under assets/, so a name never changes meaning.
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	if compressible(name, body) {
		w.Header().Add("Vary", "Accept-Encoding")
		// A range of the compressed bytes would be a range of another representation; ranges of
		// scripts and styles are not asked for by browsers anyway.
		if acceptsGzip(r) && r.Header.Get("Range") == "" {
			gz, _ := s.gzipped.LoadOrStore(name, sync.OnceValue(func() []byte { return gzipBytes(body, gzip.BestCompression) }))
			body = gz.(func() []byte)()
			w.Header().Set("Content-Encoding", "gzip")
		}
	}
	http.ServeContent(w, r, name, info.ModTime(), bytes.NewReader(body))
	return true
}

// compressible tells whether gzip is worth it: text formats, and not so small that the header
// outweighs the gain.
func compressible(name string, body []byte) bool {
	switch path.Ext(name) {
	case ".js", ".mjs", ".css", ".svg", ".json", ".xml", ".txt", ".map":
		return len(body) >= 1024
	}
	return false
}

// acceptsGzip reads Accept-Encoding: gzip (or *) listed without q=0.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		name, value, found := strings.Cut(strings.TrimSpace(params), "=")
		if !found || strings.TrimSpace(name) != "q" {
			return true
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		return err == nil && q > 0
	}
	return false
}

func gzipBytes(b []byte, level int) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, level) // the callers' constant levels are valid
	_, _ = zw.Write(b)                        // writes to a bytes.Buffer never fail
	_ = zw.Close()
	return buf.Bytes()
}

// servePage serves an HTML page of the app with this response's CSP nonce stamped on its inline
// and external <script> and <style> tags. It is never cached or validated (no ETag): a stored copy
// would carry a nonce that no longer matches the policy header.
func servePage(w http.ResponseWriter, r *http.Request, status int, page []byte) {
	page = InjectNonce(page, middleware.Nonce(r.Context()))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Add("Vary", "Accept-Encoding")
	// Each response differs (its nonce), so pages are compressed as they are sent; they are small.
	if acceptsGzip(r) {
		page = gzipBytes(page, gzip.DefaultCompression)
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(status)
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

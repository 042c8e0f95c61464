package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"clearvest/api"
	"clearvest/api/httperr"
	"clearvest/api/middleware"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

func TestUnknownAPIRoutesAnswerJSON(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: uiBuild()})

	tests := []struct {
		name      string
		method    string
		path      string
		status    int
		message   string
		wantAllow string
	}{
		{"unknown path", http.MethodGet, "/api/nope", http.StatusNotFound, "Not found", ""},
		{"unknown nested path", http.MethodDelete, "/api/users/nope/deeper", http.StatusNotFound, "Not found", ""},
		{"api root", http.MethodGet, "/api", http.StatusNotFound, "Not found", ""},
		{"api root with slash", http.MethodGet, "/api/", http.StatusNotFound, "Not found", ""},
		{"wrong method on an operation", http.MethodPost, "/api/meta", http.StatusMethodNotAllowed, "This method is not allowed here.", "GET, HEAD"},
		{"wrong method on the UI", http.MethodDelete, "/some/page", http.StatusMethodNotAllowed, "This method is not allowed here.", "GET, HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := do(t, srv, tt.method, tt.path, nil, nil)
			if res.status != tt.status {
				t.Fatalf("status = %d, want %d (body %q)", res.status, tt.status, res.body)
			}
			if got := errorMessage(t, res); got != tt.message {
				t.Errorf("message = %q, want %q", got, tt.message)
			}
			if got := res.header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
			}
		})
	}
}

func TestMetaDescribesTheServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		deps    api.Deps
		version string
		env     string
	}{
		{"defaults", api.Deps{}, "dev", "development"},
		{"production build", api.Deps{Env: api.EnvProduction, Version: "1.4.2"}, "1.4.2", "production"},
		{"unknown environment is development", api.Deps{Env: "staging", Version: "2"}, "2", "development"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := get(t, start(t, tt.deps), "/api/meta")
			if res.status != http.StatusOK {
				t.Fatalf("status = %d, body %q", res.status, res.body)
			}
			var meta map[string]any
			if err := json.Unmarshal(res.body, &meta); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"product": "Clearvest", "version": tt.version, "environment": tt.env, "googleSignIn": false}
			for k, v := range want {
				if meta[k] != v {
					t.Errorf("%s = %v, want %v", k, meta[k], v)
				}
			}
			if got := res.header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
		})
	}
}

var nonceInCSP = regexp.MustCompile(`script-src 'self' 'nonce-([^']+)'; style-src 'self' 'nonce-([^']+)'`)

// cspNonce returns the nonce of a response's policy, checking scripts and styles share it.
func cspNonce(t *testing.T, h http.Header) string {
	t.Helper()
	m := nonceInCSP.FindStringSubmatch(h.Get("Content-Security-Policy"))
	if m == nil || m[1] != m[2] {
		t.Fatalf("CSP %q has no single script/style nonce", h.Get("Content-Security-Policy"))
	}
	return m[1]
}

func TestUIPagesCarryNonce(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: uiBuild()})

	// Pages of the client-side router (a token with dots in it too), and unknown paths, which get
	// the same page with 404 so the app can say "Page not found".
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/my-account", http.StatusOK},
		{"/withdrawal/42", http.StatusOK},
		{"/resetPassword/abc.def.ghi", http.StatusOK},
		{"/some/page", http.StatusNotFound},
		{"/index.html", http.StatusNotFound},
		{"/assetsy", http.StatusNotFound},
		{"/.gitkeep", http.StatusNotFound},
	} {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			res := get(t, srv, tt.path)
			if res.status != tt.status {
				t.Fatalf("status = %d, want %d", res.status, tt.status)
			}
			if ct := res.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			if cc := res.header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("Cache-Control = %q, want no-cache", cc)
			}
			nonce := cspNonce(t, res.header)
			body := string(res.body)
			for _, tag := range []string{`<style nonce="` + nonce + `">`, `<script nonce="` + nonce + `" type="module"`, `<SCRIPT nonce="` + nonce + `">`} {
				if !strings.Contains(body, tag) {
					t.Errorf("index.html lacks %s:\n%s", tag, body)
				}
			}
			if strings.Count(body, "nonce=") != 3 {
				t.Errorf("want exactly 3 nonces in:\n%s", body)
			}
			if !strings.Contains(body, `<div id="root"></div>`) {
				t.Errorf("want the empty app shell, got:\n%s", body)
			}
		})
	}

	t.Run("nonce is fresh per response", func(t *testing.T) {
		t.Parallel()
		a, b := get(t, srv, "/my-account"), get(t, srv, "/my-account")
		if cspNonce(t, a.header) == cspNonce(t, b.header) {
			t.Error("two responses share a nonce")
		}
	})

	t.Run("HEAD answers without a body", func(t *testing.T) {
		t.Parallel()
		for path, status := range map[string]int{"/my-account": http.StatusOK, "/some/page": http.StatusNotFound, "/our-story": http.StatusOK} {
			res := do(t, srv, http.MethodHead, path, nil, nil)
			if res.status != status || len(res.body) != 0 {
				t.Errorf("%s: status = %d, body %q", path, res.status, res.body)
			}
		}
	})
}

func TestUIServesPrerenderedPages(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: uiBuild(), PublicURL: "https://clearvest.example/"})

	for _, tt := range []struct{ path, title, canonical string }{
		{"/", "Clearvest", "/"},
		{"/our-story", "About Us", "/our-story"},
		{"/our-story/", "About Us", "/our-story"},
		{"/Hierarchy", "Member Levels", "/Hierarchy"},
		// The router ignores letter case; the canonical link names the one spelling.
		{"/hierarchy", "Member Levels", "/Hierarchy"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			res := get(t, srv, tt.path)
			if res.status != http.StatusOK {
				t.Fatalf("status = %d, want 200", res.status)
			}
			body := string(res.body)
			for _, want := range []string{
				`<h1>` + tt.title + `</h1>`,
				`<link rel="canonical" href="https://clearvest.example` + tt.canonical + `">`,
				`<meta property="og:url" content="https://clearvest.example` + tt.canonical + `">`,
				`<script nonce="` + cspNonce(t, res.header) + `" type="module"`,
			} {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %s:\n%s", want, body)
				}
			}
			if strings.Contains(body, "public-origin.clearvest.invalid") {
				t.Errorf("placeholder origin left in:\n%s", body)
			}
		})
	}

	t.Run("the template files are not served as they are", func(t *testing.T) {
		t.Parallel()
		res := get(t, srv, "/prerendered/our-story.html")
		if res.status != http.StatusNotFound || strings.Contains(string(res.body), "<h1>About Us</h1>") {
			t.Errorf("status = %d, body:\n%s", res.status, res.body)
		}
	})
}

func TestUISitemapAndRobots(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: uiBuild(), PublicURL: "https://clearvest.example"})

	for _, tt := range []struct{ path, contentType, want string }{
		{"/sitemap.xml", "application/xml; charset=utf-8", "<url><loc>https://clearvest.example/our-story</loc></url>"},
		{"/robots.txt", "text/plain; charset=utf-8", "Sitemap: https://clearvest.example/sitemap.xml\n"},
	} {
		res := get(t, srv, tt.path)
		if res.status != http.StatusOK {
			t.Fatalf("%s: status = %d", tt.path, res.status)
		}
		if got := res.header.Get("Content-Type"); got != tt.contentType {
			t.Errorf("%s: Content-Type = %q, want %q", tt.path, got, tt.contentType)
		}
		if body := string(res.body); !strings.Contains(body, tt.want) || strings.Contains(body, "clearvest.invalid") {
			t.Errorf("%s: body = %q, want it to contain %q", tt.path, body, tt.want)
		}
	}
}

func TestUIWithoutRouteManifestAnswersEveryPath(t *testing.T) {
	t.Parallel()
	build := uiBuild()
	delete(build, "routes.json")
	srv := start(t, api.Deps{Assets: build})
	for _, path := range []string{"/", "/my-account", "/some/page"} {
		if res := get(t, srv, path); res.status != http.StatusOK || !strings.Contains(string(res.body), `<div id="root"></div>`) {
			t.Errorf("%s: status = %d, body:\n%s", path, res.status, res.body)
		}
	}
}

func TestUIGzipsScriptsAndPages(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: uiBuild()})
	for path, want := range map[string]string{"/assets/big.js": "a compressible script", "/our-story": "<h1>About Us</h1>", "/nope": `<div id="root"></div>`} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			res := gzipGet(t, srv.URL+path, "gzip")
			if res.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("Content-Encoding = %q", res.Header.Get("Content-Encoding"))
			}
			if body := gunzip(t, res.body); !strings.Contains(string(body), want) {
				t.Errorf("body lacks %q:\n%s", want, body)
			}
		})
	}
	want := uiBuild()["assets/big.js"].Data

	tests := []struct {
		acceptEncoding string
		gzipped        bool
	}{
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"gzip;q=0", false},
		{"identity", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.acceptEncoding, func(t *testing.T) {
			t.Parallel()
			res := gzipGet(t, srv.URL+"/assets/big.js", tt.acceptEncoding)
			if res.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Vary = %q", res.Header.Get("Vary"))
			}
			if got := res.Header.Get("Content-Encoding") == "gzip"; got != tt.gzipped {
				t.Fatalf("Content-Encoding = %q, want gzip: %v", res.Header.Get("Content-Encoding"), tt.gzipped)
			}
			body := res.body
			if tt.gzipped {
				body = gunzip(t, body)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("body differs from the file (%d bytes, want %d)", len(body), len(want))
			}
		})
	}
}

func TestUIServesBuildFiles(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: uiBuild()})

	tests := []struct {
		path        string
		status      int
		contentType string
		cache       string
		body        string
	}{
		{"/assets/index-4f1c2a.js", http.StatusOK, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", `console.log("clearvest")`},
		{"/assets/index-9b8e7d.css", http.StatusOK, "text/css; charset=utf-8", "public, max-age=31536000, immutable", `body{color:#111}`},
		{"/favicon.svg", http.StatusOK, "image/svg+xml", "no-cache", `<svg xmlns="http://www.w3.org/2000/svg"/>`},
		{"/assets/../assets/index-4f1c2a.js", http.StatusOK, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", `console.log("clearvest")`},
		// A missing hashed file is an error, not the index page.
		{"/assets/index-000000.js", http.StatusNotFound, "application/json", "no-store", ""},
		// Directories are never listed.
		{"/assets/", http.StatusNotFound, "application/json", "no-store", ""},
		{"/assets", http.StatusNotFound, "application/json", "no-store", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			res := get(t, srv, tt.path)
			if res.status != tt.status {
				t.Fatalf("status = %d, want %d", res.status, tt.status)
			}
			if got := res.header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tt.contentType)
			}
			if got := res.header.Get("Cache-Control"); got != tt.cache {
				t.Errorf("Cache-Control = %q, want %q", got, tt.cache)
			}
			if tt.body != "" && string(res.body) != tt.body {
				t.Errorf("body = %q, want %q", res.body, tt.body)
			}
			if strings.Contains(string(res.body), "index-4f1c2a.js") && tt.status != http.StatusOK {
				t.Errorf("response lists files: %q", res.body)
			}
		})
	}
}

func TestUINotBuilt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		deps api.Deps
	}{
		{"no assets", api.Deps{}},
		{"empty build", api.Deps{Assets: fstestEmpty()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := start(t, tt.deps)
			for _, path := range []string{"/", "/my-account"} {
				res := get(t, srv, path)
				if res.status != http.StatusServiceUnavailable {
					t.Fatalf("%s: status = %d, want 503", path, res.status)
				}
				if !strings.Contains(string(res.body), "UI not built") || !strings.Contains(string(res.body), "make run") {
					t.Errorf("%s: body = %q", path, res.body)
				}
			}
			// The API works without a UI.
			if res := get(t, srv, "/api/meta"); res.status != http.StatusOK {
				t.Errorf("/api/meta: status = %d", res.status)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	always := map[string]string{
		"X-Content-Type-Options":     "nosniff",
		"Referrer-Policy":            "strict-origin-when-cross-origin",
		"X-Frame-Options":            "DENY",
		"Cross-Origin-Opener-Policy": "same-origin",
		"Permissions-Policy":         "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
	}
	wantCSP := regexp.MustCompile(`^default-src 'self'; script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'; ` +
		`style-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; ` +
		`object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'$`)

	for _, env := range []string{api.EnvDevelopment, api.EnvProduction} {
		srv := start(t, api.Deps{Env: env, Assets: uiBuild()})
		for _, path := range []string{"/api/meta", "/api/nope", "/some/page", "/assets/index-4f1c2a.js", "/healthz"} {
			t.Run(env+path, func(t *testing.T) {
				t.Parallel()
				res := get(t, srv, path)
				for k, v := range always {
					if got := res.header.Get(k); got != v {
						t.Errorf("%s = %q, want %q", k, got, v)
					}
				}
				if csp := res.header.Get("Content-Security-Policy"); !wantCSP.MatchString(csp) {
					t.Errorf("Content-Security-Policy = %q", csp)
				}
				hsts := res.header.Get("Strict-Transport-Security")
				switch env {
				case api.EnvProduction:
					if hsts != "max-age=63072000; includeSubDomains" {
						t.Errorf("Strict-Transport-Security = %q in production", hsts)
					}
				default:
					if hsts != "" {
						t.Errorf("Strict-Transport-Security = %q outside production", hsts)
					}
				}
			})
		}
	}
}

func TestPanicBecomesGeneric500(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	srv := start(t, api.Deps{Assets: panicFS{}, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})

	res := do(t, srv, http.MethodGet, "/some/page", http.Header{middleware.HeaderRequestID: {"panic-test-1"}}, nil)
	if res.status != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", res.status)
	}
	if got := errorMessage(t, res); got != httperr.InternalMessage {
		t.Errorf("message = %q, want %q", got, httperr.InternalMessage)
	}
	for _, leak := range []string{"boom", "secret", "goroutine", ".go:"} {
		if strings.Contains(string(res.body), leak) {
			t.Errorf("response leaks %q: %q", leak, res.body)
		}
	}
	if res.header.Get("X-Content-Type-Options") != "nosniff" || res.header.Get("Content-Security-Policy") == "" {
		t.Error("500 response lacks security headers")
	}
	if res.header.Get(middleware.HeaderRequestID) != "panic-test-1" {
		t.Errorf("request id = %q", res.header.Get(middleware.HeaderRequestID))
	}

	// The panic is logged with its request ID and stack before the response is written.
	var found bool
	for line := range strings.Lines(logs.String()) {
		var entry map[string]any
		if json.Unmarshal([]byte(line), &entry) != nil || entry["msg"] != "panic serving request" {
			continue
		}
		found = true
		if entry["request_id"] != "panic-test-1" || !strings.Contains(entry["panic"].(string), "boom") ||
			!strings.Contains(entry["stack"].(string), "goroutine") {
			t.Errorf("panic log line lacks request id, value or stack: %s", line)
		}
	}
	if !found {
		t.Errorf("no panic log line in:\n%s", logs.String())
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{MaxBodyBytes: 1 << 10})

	tests := []struct {
		name   string
		method string
		path   string
		size   int
		status int
	}{
		{"over the limit", http.MethodPost, "/api/meta", 2 << 10, http.StatusRequestEntityTooLarge},
		{"over the limit on an unknown route", http.MethodPut, "/api/nope", 1<<10 + 1, http.StatusRequestEntityTooLarge},
		{"at the limit", http.MethodPost, "/api/meta", 1 << 10, http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := do(t, srv, tt.method, tt.path, http.Header{"Content-Type": {"application/json"}},
				strings.NewReader(strings.Repeat("x", tt.size)))
			if res.status != tt.status {
				t.Fatalf("status = %d, want %d (body %q)", res.status, tt.status, res.body)
			}
			msg := errorMessage(t, res)
			if tt.status == http.StatusRequestEntityTooLarge && msg != "The request is too large (the limit is 1 KB)." {
				t.Errorf("message = %q", msg)
			}
		})
	}

	t.Run("default is 1 MiB", func(t *testing.T) {
		t.Parallel()
		srv := start(t, api.Deps{})
		res := do(t, srv, http.MethodPost, "/api/meta", nil, strings.NewReader(strings.Repeat("x", 1<<20+1)))
		if res.status != http.StatusRequestEntityTooLarge {
			t.Fatalf("status = %d, want 413", res.status)
		}
		if msg := errorMessage(t, res); msg != "The request is too large (the limit is 1 MB)." {
			t.Errorf("message = %q", msg)
		}
	})
}

func TestRequestIDIsEchoed(t *testing.T) {
	t.Parallel()
	srv := start(t, api.Deps{Assets: uiBuild()})
	generated := regexp.MustCompile(`^[A-Z2-7]{26}$`)

	tests := []struct {
		name     string
		incoming []string
		want     string // "" means a freshly generated ID
	}{
		{"sane incoming id is kept", []string{"web-7f3a_b2"}, "web-7f3a_b2"},
		{"64 characters is the maximum", []string{strings.Repeat("a", 64)}, strings.Repeat("a", 64)},
		{"none", nil, ""},
		{"empty", []string{""}, ""},
		{"too long", []string{strings.Repeat("a", 65)}, ""},
		{"log injection", []string{"abc\",\"level\":\"ERROR"}, ""},
		{"spaces", []string{"a b"}, ""},
		{"non-ASCII", []string{"ïd"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for _, v := range tt.incoming {
				h.Add(middleware.HeaderRequestID, v)
			}
			for _, path := range []string{"/api/meta", "/api/nope", "/some/page"} {
				got := do(t, srv, http.MethodGet, path, h, nil).header.Get(middleware.HeaderRequestID)
				switch {
				case tt.want != "" && got != tt.want:
					t.Errorf("%s: request id = %q, want %q", path, got, tt.want)
				case tt.want == "" && !generated.MatchString(got):
					t.Errorf("%s: request id = %q, want a generated one", path, got)
				}
			}
		})
	}

	t.Run("generated ids differ", func(t *testing.T) {
		t.Parallel()
		a := get(t, srv, "/api/meta").header.Get(middleware.HeaderRequestID)
		b := get(t, srv, "/api/meta").header.Get(middleware.HeaderRequestID)
		if a == b {
			t.Errorf("two requests got the same id %q", a)
		}
	})
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	res := get(t, start(t, api.Deps{}), "/api/openapi.json")
	if res.status != http.StatusOK {
		t.Fatalf("status = %d", res.status)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}

	doc, err := openapi3.NewLoader().LoadFromData(res.body)
	if err != nil {
		t.Fatalf("document does not parse: %v", err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Errorf("document is not valid OpenAPI: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/api" {
		t.Errorf("servers = %v, want [/api]", doc.Servers)
	}
	meta := doc.Paths.Value("/meta")
	if meta == nil || meta.Get == nil || meta.Get.OperationID != "getMeta" {
		t.Fatalf("GET /meta getMeta missing: %v %q", doc.Paths.InMatchingOrder(), meta.Get.OperationID)
	}
	errSchema := doc.Components.Schemas["Error"]
	if errSchema == nil || errSchema.Value.Properties["message"] == nil {
		t.Errorf("Error schema missing or has no message")
	}
	for _, name := range []string{"BadRequest", "NotFound", "Conflict", "PayloadTooLarge", "UnprocessableEntity", "TooManyRequests", "InternalError"} {
		if doc.Components.Responses[name] == nil {
			t.Errorf("response %s missing", name)
		}
	}
}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	errDown := errors.New("dial tcp 10.1.2.3:5432: connection refused")
	tests := []struct {
		name    string
		deps    api.Deps
		status  int
		reasons []string
	}{
		{"ready", api.Deps{Health: fakeDB{}, Readiness: fakeReadiness{}}, http.StatusOK, nil},
		{"database down", api.Deps{Health: fakeDB{err: errDown}, Readiness: fakeReadiness{}}, http.StatusServiceUnavailable, []string{"database unreachable"}},
		{"projections not ready", api.Deps{Health: fakeDB{}, Readiness: fakeReadiness{reasons: []string{"projection a is 45s behind (limit 30s)", "projection b failed at position 7 and is parked"}}},
			http.StatusServiceUnavailable, []string{"projection a is 45s behind (limit 30s)", "projection b failed at position 7 and is parked"}},
		{"projection state unknown", api.Deps{Health: fakeDB{}, Readiness: fakeReadiness{err: errDown}}, http.StatusServiceUnavailable, []string{"projection state unknown"}},
		{"nothing configured", api.Deps{}, http.StatusServiceUnavailable, []string{"database check not configured", "projection check not configured"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := start(t, tt.deps)

			if res := get(t, srv, "/healthz"); res.status != http.StatusOK || strings.TrimSpace(string(res.body)) != `{"status":"ok"}` {
				t.Errorf("/healthz = %d %q, want 200 {\"status\":\"ok\"}", res.status, res.body)
			}

			res := get(t, srv, "/readyz")
			if res.status != tt.status {
				t.Fatalf("/readyz status = %d, want %d (body %q)", res.status, tt.status, res.body)
			}
			var body struct {
				Status  string   `json:"status"`
				Reasons []string `json:"reasons"`
			}
			if err := json.Unmarshal(res.body, &body); err != nil {
				t.Fatal(err)
			}
			if strings.Join(body.Reasons, "|") != strings.Join(tt.reasons, "|") {
				t.Errorf("reasons = %q, want %q", body.Reasons, tt.reasons)
			}
			if strings.Contains(string(res.body), "10.1.2.3") {
				t.Errorf("readiness leaks internal error: %s", res.body)
			}
		})
	}
}

// TestNotReadyWhileARestoredLogNeedsRepair serves /readyz on a real event store whose database
// looks freshly restored into a younger cluster: not ready until positions are moved on.
func TestNotReadyWhileARestoredLogNeedsRepair(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(ctx, pool, postgres.Migrations); err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	srv := start(t, api.Deps{Health: pool, Readiness: fakeReadiness{}, Positions: store})
	if res := get(t, srv, "/readyz"); res.status != http.StatusOK {
		t.Fatalf("/readyz before the restore = %d %s", res.status, res.body)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
		VALUES (((pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 1000000) << 16) | 1, gen_random_uuid(),
		        'account-restored', 1, 't.restored', 1, '{}', '{}', now())`); err != nil {
		t.Fatal(err)
	}
	res := get(t, srv, "/readyz")
	if res.status != http.StatusServiceUnavailable || !strings.Contains(string(res.body), "event positions need moving on after a restore") {
		t.Fatalf("/readyz with a restored log = %d %s, want 503 naming the positions", res.status, res.body)
	}
	if _, err := postgres.AdvancePositionOffset(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if res := get(t, srv, "/readyz"); res.status != http.StatusOK {
		t.Fatalf("/readyz after moving positions on = %d %s", res.status, res.body)
	}
}

type rawResponse struct {
	*http.Response
	body []byte
}

// gzipGet sends Accept-Encoding itself, so Go's client leaves the body as it came.
func gzipGet(t *testing.T, url, acceptEncoding string) rawResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", acceptEncoding)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{res, body}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"clearvest/api"
)

const indexHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>Clearvest</title>
<style>body{margin:0}</style>
<script type="module" crossorigin src="/assets/index-4f1c2a.js"></script>
<link rel="stylesheet" crossorigin href="/assets/index-9b8e7d.css">
</head>
<body><div id="root"></div><SCRIPT>window.boot=1</SCRIPT></body>
</html>
`

// uiBuild is a small Vite-shaped build: index.html, hashed assets and a root-level file.
func uiBuild() fstest.MapFS {
	return fstest.MapFS{
		"index.html":              {Data: []byte(indexHTML)},
		".gitkeep":                {Data: []byte("keep")},
		"assets/index-4f1c2a.js":  {Data: []byte(`console.log("clearvest")`)},
		"assets/index-9b8e7d.css": {Data: []byte(`body{color:#111}`)},
		"favicon.svg":             {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
		"routes.json": {Data: []byte(`{"routes": [
			{"path": "/", "prerendered": "prerendered/index.html"},
			{"path": "/our-story", "prerendered": "prerendered/our-story.html"},
			{"path": "/Hierarchy", "prerendered": "prerendered/Hierarchy.html"},
			{"path": "/my-account"},
			{"path": "/transaction-History"},
			{"path": "/withdrawal/:id"},
			{"path": "/resetPassword/:resetToken"}
		]}`)},
		"prerendered/index.html":     {Data: []byte(prerenderedPage("Clearvest", "/"))},
		"prerendered/our-story.html": {Data: []byte(prerenderedPage("About Us", "/our-story"))},
		"prerendered/Hierarchy.html": {Data: []byte(prerenderedPage("Member Levels", "/Hierarchy"))},
		"sitemap.xml": {Data: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://public-origin.clearvest.invalid/</loc></url>
  <url><loc>https://public-origin.clearvest.invalid/our-story</loc></url>
</urlset>
`)},
		"robots.txt":    {Data: []byte("User-agent: *\nDisallow: /api/\n\nSitemap: https://public-origin.clearvest.invalid/sitemap.xml\n")},
		"assets/big.js": {Data: []byte(strings.Repeat(`console.log("a compressible script");`, 100))},
	}
}

// prerenderedPage is shaped like the UI build's prerendered pages: the index.html template with
// the page's head (absolute URLs on the placeholder origin) and its markup in #root.
func prerenderedPage(title, path string) string {
	head := `<title>` + title + `</title>
<link rel="canonical" href="https://public-origin.clearvest.invalid` + path + `">
<meta property="og:url" content="https://public-origin.clearvest.invalid` + path + `">`
	page := strings.Replace(indexHTML, "<title>Clearvest</title>", head, 1)
	return strings.Replace(page, `<div id="root"></div>`, `<div id="root"><h1>`+title+`</h1></div>`, 1)
}

// start serves api.New(deps) over real HTTP for the duration of the test.
func start(t *testing.T, deps api.Deps) *httptest.Server {
	t.Helper()
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	srv := httptest.NewServer(api.New(deps))
	t.Cleanup(srv.Close)
	return srv
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, srv *httptest.Server, method, path string, header http.Header, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func get(t *testing.T, srv *httptest.Server, path string) response {
	t.Helper()
	return do(t, srv, http.MethodGet, path, nil, nil)
}

// errorMessage decodes an error response and fails the test unless it is JSON of the Error
// schema.
func errorMessage(t *testing.T, r response) string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json (body %q)", ct, r.body)
	}
	var e struct {
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil || e.Message == nil {
		t.Fatalf("body %q is not {\"message\": ...}: %v", r.body, err)
	}
	return *e.Message
}

// logBuffer collects log output written by server goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type fakeDB struct{ err error }

func (f fakeDB) Ping(context.Context) error { return f.err }

type fakeReadiness struct {
	reasons []string
	err     error
}

func (f fakeReadiness) NotReady(context.Context) ([]string, error) { return f.reasons, f.err }

// panicFS panics when the UI handler touches it, standing in for any handler bug.
type panicFS struct{}

func (panicFS) Open(string) (fs.File, error) { panic("boom: secret internal detail") }

func fstestEmpty() fstest.MapFS { return fstest.MapFS{} }

// Package ui carries the built single-page app inside the Go binary, so one file serves the
// whole product and the served UI always matches the API it was built against.
package ui

import (
	"embed"
	"io/fs"
)

// all: keeps dist/.gitkeep, so a fresh clone compiles before the UI has been built; the
// embedded tree then has no index.html and the server should say so rather than serve nothing.
//
//go:embed all:dist
var dist embed.FS

// Assets returns the contents of ui/dist (index.html at the root, hashed files under assets/).
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		// fs.Sub fails only for an invalid path name, and "dist" is a constant valid one.
		panic(err)
	}
	return sub
}

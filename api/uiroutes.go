package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// uiRoutes knows the UI's pages, from the route manifest the UI build writes (dist/routes.json,
// derived from ui/src/app/routes.ts), so a path no page answers gets a real 404.
type uiRoutes struct {
	routes []uiRoute
}

type uiRoute struct {
	// Path as the manifest spells it, e.g. /withdrawal/:id.
	Path string `json:"path"`
	// Build file with the page's prerendered HTML; empty for pages rendered only in the browser.
	Prerendered string `json:"prerendered,omitempty"`
	// Build file with the templates the page is filled from with current data (livepages.go).
	Data     string `json:"data,omitempty"`
	segments []string
}

func parseUIRoutes(manifest []byte) (uiRoutes, error) {
	var m struct {
		Routes []uiRoute `json:"routes"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return uiRoutes{}, fmt.Errorf("route manifest: %w", err)
	}
	for i, r := range m.Routes {
		if !strings.HasPrefix(r.Path, "/") {
			return uiRoutes{}, fmt.Errorf("route manifest: path %q does not start with /", r.Path)
		}
		m.Routes[i].segments = splitPath(r.Path)
	}
	return uiRoutes{routes: m.Routes}, nil
}

// splitPath gives a path's segments, ignoring empty ones, as the UI's router does (a trailing
// slash or a doubled one changes nothing).
func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

// match finds the route the UI's router shows for an (escaped) request path. Like the router, it
// ignores letter case in fixed segments (/hierarchy shows /Hierarchy) and lets `:name` stand for
// one non-empty segment. A fixed route wins over one with parameters.
func (t uiRoutes) match(escapedPath string) (uiRoute, bool) {
	segments := splitPath(escapedPath)
	var found uiRoute
	best := -1
	for _, r := range t.routes {
		if len(r.segments) != len(segments) {
			continue
		}
		fixed, ok := 0, true
		for i, want := range r.segments {
			if strings.HasPrefix(want, ":") {
				continue
			}
			if !strings.EqualFold(want, segments[i]) {
				ok = false
				break
			}
			fixed++
		}
		if ok && fixed > best {
			found, best = r, fixed
		}
	}
	return found, best >= 0
}

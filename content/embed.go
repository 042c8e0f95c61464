// Package content carries the operator's default site content (FAQ, team, how it works, the
// static pages, the Help Center's contact details) inside the binary. CLEARVEST_CONTENT_DIR
// points at a directory of the same files that replaces these at request time, so an operator
// edits content without a rebuild (docs/content.md).
package content

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml pages/*.md
var files embed.FS

// Files returns the shipped content: faq.yaml, team.yaml, how-it-works.yaml, support.yaml and
// pages/<slug>.md.
func Files() fs.FS { return files }

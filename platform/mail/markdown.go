package mail

import (
	"bytes"
	htmltemplate "html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// markdownRenderer turns staff-written Markdown into the HTML of a message. It is CommonMark
// with tables, strikethrough and bare links (GitHub's dialect), and deliberately without
// html.WithUnsafe: raw HTML in the source is dropped (left as a comment), and links and images
// to javascript:, vbscript:, file: and data: URLs lose their target. Everything else is escaped.
var markdownRenderer = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
	goldmark.WithRendererOptions(html.WithHardWraps()),
)

// RenderMarkdown renders staff-written Markdown as safe HTML for a message body.
func RenderMarkdown(source string) (htmltemplate.HTML, error) {
	var buf bytes.Buffer
	if err := markdownRenderer.Convert([]byte(source), &buf); err != nil {
		return "", err
	}
	return htmltemplate.HTML(buf.String()), nil // #nosec: rendered without raw HTML, see above
}

package mail

import (
	"strings"
	"testing"
)

// Staff write Markdown; it becomes HTML with its formatting, and nothing in it is taken as HTML:
// raw tags are dropped, dangerous link targets lose their target, text is escaped.
func TestMarkdownIsRenderedSafely(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, source  string
		want, refused []string
	}{
		{"formatting", "# News\n\nWe **grew** and *thank* you.\n\n- one\n- two\n\n[Plans](https://clearvest.example/plans)",
			[]string{"<h1>News</h1>", "<strong>grew</strong>", "<em>thank</em>", "<li>one</li>", `<a href="https://clearvest.example/plans">Plans</a>`}, nil},
		{"raw html block", "<script>alert(1)</script>\n\nafter", []string{"<p>after</p>"}, []string{"<script", "alert(1)"}},
		{"inline html", "a <b onclick=\"x()\">bold</b> word", []string{"bold"}, []string{"<b", "onclick"}},
		{"javascript link", "[click](javascript:alert(1))", []string{"click"}, []string{"javascript:"}},
		{"data image", "![x](data:text/html;base64,PHNjcmlwdD4=)", nil, []string{"data:text/html"}},
		{"escaped text", "5 < 6 & \"quotes\"", []string{"5 &lt; 6 &amp; &quot;quotes&quot;"}, nil},
		{"autolink", "see https://clearvest.example", []string{`<a href="https://clearvest.example">https://clearvest.example</a>`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			html, err := RenderMarkdown(tc.source)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(html), w) {
					t.Errorf("want %q in:\n%s", w, html)
				}
			}
			for _, r := range tc.refused {
				if strings.Contains(string(html), r) {
					t.Errorf("%q must not be in:\n%s", r, html)
				}
			}
		})
	}
}

// The broadcast template carries the Markdown as HTML in the branded layout and as its source in
// the plain-text part; the subject stays one escaped line.
func TestBroadcastTemplate(t *testing.T) {
	t.Parallel()
	tp := newTestTemplates(t)
	subject, text, html, err := tp.RenderIn("de", TemplateBroadcast, BroadcastData{Name: "Ada <x>", Subject: "Neu\r\n<b>s</b>",
		Markdown: "**Wichtig**: <img src=x onerror=alert(1)>"})
	if err != nil {
		t.Fatal(err)
	}
	if subject != "Neu <b>s</b>" {
		t.Errorf("subject %q", subject)
	}
	if !strings.Contains(html, "<strong>Wichtig</strong>") || strings.Contains(html, "onerror") || !strings.Contains(html, "Ada &lt;x&gt;") {
		t.Errorf("html:\n%s", html)
	}
	if !strings.Contains(html, "<title>Neu &lt;b&gt;s&lt;/b&gt;</title>") {
		t.Errorf("subject not escaped in the title:\n%s", html)
	}
	if !strings.Contains(text, "**Wichtig**") || !strings.Contains(text, "Hallo Ada <x>") {
		t.Errorf("text:\n%s", text)
	}
	if _, _, _, err := tp.Render(TemplateBroadcast, BroadcastData{Subject: "x", Markdown: "  "}); err == nil {
		t.Error("an empty message rendered")
	}
}

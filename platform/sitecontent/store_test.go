package sitecontent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"clearvest/content"
	"clearvest/platform/sitecontent"
)

func TestShippedContentLoads(t *testing.T) {
	t.Parallel()
	s, err := sitecontent.New(content.Files(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	faq, err := s.FAQ()
	if err != nil {
		t.Fatal(err)
	}
	if len(faq.Items) != 8 {
		t.Fatalf("%d FAQ items, want 8", len(faq.Items))
	}
	team, err := s.Team()
	if err != nil {
		t.Fatal(err)
	}
	if len(team.Members) != 6 || !team.Sample {
		t.Fatalf("team: %d members, sample %v; want 6 labelled as a sample", len(team.Members), team.Sample)
	}
	how, err := s.HowItWorks()
	if err != nil {
		t.Fatal(err)
	}
	if len(how.Steps) != 7 {
		t.Fatalf("%d steps, want 7", len(how.Steps))
	}
	for _, slug := range []string{"privacy-policy", "license", "our-story"} {
		p, err := s.Page(slug)
		if err != nil {
			t.Fatalf("page %s: %v", slug, err)
		}
		if !p.Sample || !strings.Contains(p.HTML, "Sample text") {
			t.Errorf("page %s is not marked as sample text", slug)
		}
	}
	if got := s.Slugs(); strings.Join(got, ",") != "license,our-story,privacy-policy" {
		t.Errorf("slugs %v", got)
	}
	sup, err := s.Support()
	if err != nil || sup.Email == "" || sup.ResponseTime == "" {
		t.Fatalf("support %+v, %v", sup, err)
	}
}

func TestUnknownPageIsNotFound(t *testing.T) {
	t.Parallel()
	s, err := sitecontent.New(content.Files(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"nope", "../faq", "pages/license", "License", ""} {
		if _, err := s.Page(slug); err != sitecontent.ErrPageNotFound {
			t.Errorf("Page(%q) = %v, want ErrPageNotFound", slug, err)
		}
	}
}

func TestMarkdownDropsRawHTML(t *testing.T) {
	t.Parallel()
	files := shipped(t)
	files["pages/x.md"] = &fstest.MapFile{Data: []byte("---\ntitle: X\n---\nHello <script>alert(1)</script> **bold** [bad](javascript:alert(1))\n\n<div onclick=\"x\">raw</div>\n")}
	s, err := sitecontent.New(files, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Page("x")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "onclick", "javascript:"} {
		if strings.Contains(p.HTML, bad) {
			t.Errorf("rendered page keeps %q: %s", bad, p.HTML)
		}
	}
	if !strings.Contains(p.HTML, "<strong>bold</strong>") {
		t.Errorf("Markdown not rendered: %s", p.HTML)
	}
}

// TestValidationNamesFileAndField: each broken file fails New with its file and field named.
func TestValidationNamesFileAndField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, data, want string
	}{
		{"faq answer missing", "faq.yaml", "items:\n  - id: a\n    question: Q?\n", "content: faq.yaml: items[0].answer: is required"},
		{"faq duplicate id", "faq.yaml", "items:\n  - {id: a, question: Q, answer: A}\n  - {id: a, question: Q, answer: A}\n", "faq.yaml: items[1].id: \"a\" is used twice"},
		{"faq unknown field", "faq.yaml", "items: []\nquestions: []\n", "faq.yaml: yaml: unmarshal errors:\n  line 2: field questions not found"},
		{"team bad icon", "team.yaml", "heading: H\nmembers:\n  - {id: a, name: N, title: T, image: /a.svg, description: D, icon: rocket}\n", "team.yaml: members[0].icon: must be one of"},
		{"team off-site image", "team.yaml", "heading: H\nmembers:\n  - {id: a, name: N, title: T, image: 'javascript:x', description: D, icon: pen}\n", "team.yaml: members[0].image:"},
		{"step link elsewhere", "how-it-works.yaml", "steps:\n  - {id: a, title: T, description: D, icon: user, link: '//evil.example'}\n", "how-it-works.yaml: steps[0].link:"},
		{"support email", "support.yaml", "email: nobody\nresponse_time: soon\n", "support.yaml: email: must be an e-mail address"},
		{"page without front matter", "pages/x.md", "# Hi\n", "pages/x.md: front matter:"},
		{"page without title", "pages/x.md", "---\nsample: true\n---\nText\n", "pages/x.md: title: is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, c.file, c.data)
			_, err := sitecontent.New(content.Files(), dir, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestDirectoryOverridesAndReloads: a file of the directory replaces the shipped one, an edit
// is served on the next request, a broken edit keeps the last good version, and a removed
// file falls back to the shipped one.
func TestDirectoryOverridesAndReloads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "support.yaml", "email: help@example.com\nresponse_time: Within a day.\n")
	s, err := sitecontent.New(content.Files(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectEmail := func(want string) {
		t.Helper()
		sup, err := s.Support()
		if err != nil || sup.Email != want {
			t.Fatalf("Support() = %+v, %v; want e-mail %s", sup, err, want)
		}
	}
	expectEmail("help@example.com")

	path := write(t, dir, "support.yaml", "email: desk@example.com\nresponse_time: Within a day.\n")
	touch(t, path, 1)
	expectEmail("desk@example.com")

	path = write(t, dir, "support.yaml", "email: broken\nresponse_time: Within a day.\n")
	touch(t, path, 2)
	expectEmail("desk@example.com")

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	shippedSupport, err := sitecontent.New(content.Files(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := shippedSupport.Support()
	expectEmail(want.Email)

	// A page only the directory has is served, and appears in the list.
	write(t, dir, "pages/terms.md", "---\ntitle: Terms\nsample: true\n---\nSample terms.\n")
	p, err := s.Page("terms")
	if err != nil || p.Title != "Terms" || !p.Sample {
		t.Fatalf("Page(terms) = %+v, %v", p, err)
	}
	// Removed, it is gone again.
	if err := os.Remove(filepath.Join(dir, "pages", "terms.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Page("terms"); err != sitecontent.ErrPageNotFound {
		t.Fatalf("removed page: %v, want ErrPageNotFound", err)
	}
}

// TestFileBrokenFromTheStartServesTheShippedOne: a file that appears broken in the directory
// while the server runs leaves the shipped version served.
func TestFileBrokenFromTheStartServesTheShippedOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := sitecontent.New(content.Files(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "faq.yaml", "items: [")
	faq, err := s.FAQ()
	if err != nil || len(faq.Items) != 8 {
		t.Fatalf("FAQ() = %d items, %v; want the shipped 8", len(faq.Items), err)
	}
}

func shipped(t *testing.T) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	for _, name := range []string{"faq.yaml", "team.yaml", "how-it-works.yaml", "support.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "content", name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = &fstest.MapFile{Data: data}
	}
	return out
}

func write(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// touch gives the file a distinct modification time, as an edit a moment later would: two
// writes within the file system's timestamp resolution would otherwise look alike.
func touch(t *testing.T, path string, n int) {
	t.Helper()
	at := time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

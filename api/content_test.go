package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/content"
	"clearvest/platform/sitecontent"
)

// TestContentEndpoints: the shipped content through the API, public and cacheable; an unknown
// page is a 404; an operator's edit in the content directory is served without a restart.
func TestContentEndpoints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store, err := sitecontent.New(content.Files(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, api.Deps{Content: store})

	res := get(t, srv, "/api/content/faq")
	if res.status != http.StatusOK || res.header.Get("Cache-Control") != "public, max-age=60" {
		t.Fatalf("faq: %d %v", res.status, res.header)
	}
	var faq struct {
		Items []struct{ ID, Question, AnswerHTML string } `json:"items"`
	}
	if err := json.Unmarshal(res.body, &faq); err != nil || len(faq.Items) != 8 {
		t.Fatalf("faq %s", res.body)
	}

	var team struct {
		Sample  bool `json:"sample"`
		Members []struct {
			Name, Image, Icon string
		} `json:"members"`
	}
	res = get(t, srv, "/api/content/team")
	if err := json.Unmarshal(res.body, &team); err != nil || !team.Sample || len(team.Members) != 6 {
		t.Fatalf("team %s", res.body)
	}

	var how struct {
		Steps []struct {
			Title           string `json:"title"`
			DescriptionHTML string `json:"descriptionHtml"`
		} `json:"steps"`
	}
	res = get(t, srv, "/api/content/how-it-works")
	if err := json.Unmarshal(res.body, &how); err != nil || len(how.Steps) != 7 || !strings.HasPrefix(how.Steps[0].DescriptionHTML, "<p>") {
		t.Fatalf("how it works %s", res.body)
	}

	for _, slug := range []string{"privacy-policy", "license", "our-story"} {
		res = get(t, srv, "/api/content/pages/"+slug)
		var page struct {
			Title  string `json:"title"`
			Sample bool   `json:"sample"`
			HTML   string `json:"html"`
		}
		if err := json.Unmarshal(res.body, &page); err != nil || res.status != http.StatusOK || !page.Sample || !strings.Contains(page.HTML, "Sample text") {
			t.Fatalf("page %s: %d %s", slug, res.status, res.body)
		}
	}
	res = get(t, srv, "/api/content/pages/terms")
	if res.status != http.StatusNotFound || errorMessage(t, res) != "Page not found" {
		t.Fatalf("unknown page: %d %s", res.status, res.body)
	}

	// The operator adds a page and edits the contact details; both show on the next request.
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pages", "terms.md"), []byte("---\ntitle: Terms\nsample: false\n---\nOur terms.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res = get(t, srv, "/api/content/pages/terms"); res.status != http.StatusOK || !strings.Contains(string(res.body), "Our terms.") {
		t.Fatalf("added page: %d %s", res.status, res.body)
	}
	supportFile := filepath.Join(dir, "support.yaml")
	if err := os.WriteFile(supportFile, []byte("email: desk@example.com\nresponse_time: Within two days.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Minute)
	if err := os.Chtimes(supportFile, at, at); err != nil {
		t.Fatal(err)
	}
	if res = get(t, srv, "/api/content/support"); !strings.Contains(string(res.body), "desk@example.com") {
		t.Fatalf("edited support details not served: %s", res.body)
	}
}

// TestTeamSampleProfilesOnlyInDevelopment: the shipped team is made of sample profiles. A
// development server sends them (the site labels them); a production server sends no team until
// the operator's team.yaml has real profiles, and then sends those.
func TestTeamSampleProfilesOnlyInDevelopment(t *testing.T) {
	t.Parallel()
	type team struct {
		Sample  bool `json:"sample"`
		Members []struct {
			Name string `json:"name"`
		} `json:"members"`
	}
	read := func(srv *httptest.Server) team {
		t.Helper()
		res := get(t, srv, "/api/content/team")
		var got team
		if err := json.Unmarshal(res.body, &got); err != nil || res.status != http.StatusOK {
			t.Fatalf("team: %d %s", res.status, res.body)
		}
		return got
	}
	dir := t.TempDir()
	store, err := sitecontent.New(content.Files(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	development := start(t, api.Deps{Content: store, Env: api.EnvDevelopment})
	production := start(t, api.Deps{Content: store, Env: api.EnvProduction, PublicURL: "https://clearvest.example"})

	if got := read(development); !got.Sample || len(got.Members) == 0 {
		t.Errorf("development: want the labelled sample profiles, got %+v", got)
	}
	if got := read(production); got.Sample || len(got.Members) != 0 {
		t.Errorf("production: want no team while the profiles are samples, got %+v", got)
	}

	real := "sample: false\nheading: Our team\nintro: ''\nmembers:\n" +
		"  - id: ana\n    name: Ana Real\n    title: Operations\n    image: /team/member-1.svg\n    icon: compass\n    description: Runs operations.\n"
	if err := os.WriteFile(filepath.Join(dir, "team.yaml"), []byte(real), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, srv := range map[string]*httptest.Server{"development": development, "production": production} {
		if got := read(srv); got.Sample || len(got.Members) != 1 || got.Members[0].Name != "Ana Real" {
			t.Errorf("%s: want the operator's team, got %+v", name, got)
		}
	}
}

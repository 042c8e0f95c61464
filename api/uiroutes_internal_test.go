package api

import "testing"

// The manifest's shape as the UI build writes it, with the kinds of route the app has.
const testManifest = `{"routes": [
  {"path": "/", "prerendered": "prerendered/index.html"},
  {"path": "/my-account"},
  {"path": "/Hierarchy", "prerendered": "prerendered/Hierarchy.html"},
  {"path": "/transaction-History"},
  {"path": "/withdrawal/:id"},
  {"path": "/pending-kyc"},
  {"path": "/pending-kyc/:id"},
  {"path": "/resetPassword/:resetToken"}
]}`

func TestUIRoutesMatch(t *testing.T) {
	t.Parallel()
	routes, err := parseUIRoutes([]byte(testManifest))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // "" for no page
	}{
		{"/", "/"},
		{"", "/"},
		{"/my-account", "/my-account"},
		{"/my-account/", "/my-account"},
		{"/Hierarchy", "/Hierarchy"},
		{"/hierarchy", "/Hierarchy"},
		{"/transaction-History", "/transaction-History"},
		{"/transaction-history", "/transaction-History"},
		{"/withdrawal/42", "/withdrawal/:id"},
		{"/withdrawal/a%2Fb", "/withdrawal/:id"},
		{"/withdrawal", ""},
		{"/withdrawal/", ""},
		{"/withdrawal/42/more", ""},
		{"/pending-kyc", "/pending-kyc"},
		{"/pending-kyc/7", "/pending-kyc/:id"},
		{"/resetPassword/abc.def.ghi", "/resetPassword/:resetToken"},
		{"/my-account-extra", ""},
		{"/index.html", ""},
		{"/definitely-missing", ""},
		{"/my-account/settings", ""},
	}
	for _, tt := range tests {
		got, ok := routes.match(tt.path)
		if tt.want == "" {
			if ok {
				t.Errorf("match(%q) = %q, want no page", tt.path, got.Path)
			}
			continue
		}
		if !ok || got.Path != tt.want {
			t.Errorf("match(%q) = %q, %v; want %q", tt.path, got.Path, ok, tt.want)
		}
	}
}

func TestUIRoutesPrerenderedFile(t *testing.T) {
	t.Parallel()
	routes, err := parseUIRoutes([]byte(testManifest))
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := routes.match("/hierarchy"); r.Prerendered != "prerendered/Hierarchy.html" {
		t.Errorf("/hierarchy prerendered = %q", r.Prerendered)
	}
	if r, _ := routes.match("/withdrawal/1"); r.Prerendered != "" {
		t.Errorf("/withdrawal/1 prerendered = %q, want none", r.Prerendered)
	}
}

func TestUIRoutesRejectsBadManifest(t *testing.T) {
	t.Parallel()
	for _, manifest := range []string{`not json`, `{"routes": [{"path": "my-account"}]}`} {
		if _, err := parseUIRoutes([]byte(manifest)); err == nil {
			t.Errorf("parseUIRoutes(%q) accepted it", manifest)
		}
	}
}

package api_test

import (
	"net/http/httptest"
	"testing"

	"clearvest/api"
	"clearvest/api/middleware"
)

func TestSetPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pos  int64
		want string
	}{
		{42, "42"},
		{9223372036854775807, "9223372036854775807"},
		{0, ""}, // nothing appended: nothing to wait for
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		api.SetPosition(w, tt.pos)
		if got := w.Header().Get(middleware.HeaderPosition); got != tt.want {
			t.Errorf("SetPosition(%d): header = %q, want %q", tt.pos, got, tt.want)
		}
	}
}

func TestInjectNonce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, nonce, want string
	}{
		{"script and style", `<style>a{}</style><script src="/a.js"></script>`, "N1",
			`<style nonce="N1">a{}</style><script nonce="N1" src="/a.js"></script>`},
		{"upper case", `<SCRIPT>x</SCRIPT>`, "N2", `<SCRIPT nonce="N2">x</SCRIPT>`},
		{"tag followed by newline", "<script\ntype=module>", "N3", "<script nonce=\"N3\"\ntype=module>"},
		{"similar names are left alone", `<scripts><styles><stylesheet>`, "N4", `<scripts><styles><stylesheet>`},
		{"links need no nonce", `<link rel="stylesheet" href="/a.css">`, "N5", `<link rel="stylesheet" href="/a.css">`},
		{"no nonce", `<script></script>`, "", `<script></script>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(api.InjectNonce([]byte(tt.in), tt.nonce)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

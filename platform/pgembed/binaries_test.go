package pgembed

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With nothing installed, Start goes through embedded-postgres's real download code against a
// repository that has nothing, and must end with the one-paragraph explanation.
func TestStartWithoutPostgreSQL(t *testing.T) {
	repo := httptest.NewServer(http.NotFoundHandler())
	defer repo.Close()
	t.Setenv("HOME", t.TempDir())   // embedded-postgres keeps its download cache there
	t.Setenv("TMPDIR", t.TempDir()) // and leaves a log file behind in the temp directory
	saved, savedRepo := systemCandidates, binaryRepository
	systemCandidates = func(context.Context) []*binaries { return nil }
	binaryRepository = repo.URL
	t.Cleanup(func() { systemCandidates, binaryRepository = saved, savedRepo })

	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil { // reachable by the server's user when root
			t.Fatal(err)
		}
	}
	_, err := Start(t.Context(), Options{DataDir: filepath.Join(dir, "data"), Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("err = %v, want ErrNoBinaries", err)
	}
	msg := err.Error()
	for _, want := range []string{"apt-get install postgresql", "brew install postgresql@16", "DATABASE_URL", "no version found"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message should be one paragraph:\n%s", msg)
	}
}

func TestVersionOrdering(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b string }{
		{"/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin"},
		{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin"},
		{"/opt/homebrew/opt/postgresql@14/bin", "/opt/homebrew/opt/postgresql@16/bin"},
	}
	for _, tt := range tests {
		if compareDirVersions(tt.a, tt.b) >= 0 || compareDirVersions(tt.b, tt.a) <= 0 {
			t.Errorf("%s should sort before %s", tt.a, tt.b)
		}
	}
	for in, want := range map[string]string{"16.4.0": "16", "9.6.24": "9.6", "15": "15"} {
		if got := majorOf(in); got != want {
			t.Errorf("majorOf(%q) = %q, want %q", in, got, want)
		}
	}
}

package pgembed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// debianRoot is where Debian and Ubuntu install the server programs. The packages keep initdb
// and pg_ctl off PATH on purpose (only wrappers such as pg_ctlcluster are on it), so a plain
// PATH lookup misses a perfectly good installation.
const debianRoot = "/usr/lib/postgresql"

// homebrewGlobs find Homebrew's postgresql@N formulae, which are keg-only and so also off PATH.
var homebrewGlobs = []string{"/opt/homebrew/opt/postgresql@*/bin", "/usr/local/opt/postgresql@*/bin"}

// downloadVersion is the release fetched when nothing is installed; it matches the postgres
// image in docker-compose.yml so a cluster can move between the two.
const downloadVersion = embeddedpostgres.V16

// Seams for tests: where installed binaries are looked for, and how missing ones are fetched.
var (
	systemCandidates  = findSystemCandidates
	downloadBinaries  = downloadWithEmbeddedPostgres
	binaryRepository  = "https://repo1.maven.org/maven2"
	versionPattern    = regexp.MustCompile(`\(PostgreSQL\) (\d+)(?:\.(\d+))?`)
	dirVersionPattern = regexp.MustCompile(`(\d+)(?:\.(\d+))?$`)
)

// ErrNoBinaries matches (errors.Is) the error Start returns when PostgreSQL is neither
// installed nor downloadable.
var ErrNoBinaries = errors.New("PostgreSQL server programs not found")

type missingError struct{ download error }

func (e *missingError) Error() string {
	return fmt.Sprintf("PostgreSQL is not installed (looked for pg_config, initdb and pg_ctl on PATH, in %s/*/bin and in Homebrew's postgresql@*), "+
		"and downloading it failed (%v). Install it — `sudo apt-get install postgresql` on Debian or Ubuntu, `brew install postgresql@16` on macOS — "+
		"and start Clearvest again, or set DATABASE_URL to use an existing PostgreSQL server.", debianRoot, e.download)
}

func (e *missingError) Is(target error) bool { return target == ErrNoBinaries }
func (e *missingError) Unwrap() error        { return e.download }

// binaries is one PostgreSQL installation.
type binaries struct {
	initdbPath, pgCtlPath string
	version               string // major version, as PG_VERSION spells it: "16", "9.6"
}

func (b *binaries) initdb() string { return b.initdbPath }
func (b *binaries) pgCtl() string  { return b.pgCtlPath }

// findBinaries picks an installed PostgreSQL able to run the cluster, downloading one when
// nothing is installed.
func findBinaries(ctx context.Context, p paths, acct *account, log *slog.Logger) (*binaries, error) {
	bin, err := installedBinaries(ctx, p, log)
	if !errors.Is(err, ErrNoBinaries) {
		return bin, err
	}
	if v := clusterVersion(p.cluster); v != "" && v != majorOf(string(downloadVersion)) {
		return nil, fmt.Errorf("the cluster in %s was created by PostgreSQL %s, which is no longer installed; install it again (`apt-get install postgresql-%s` on Debian or Ubuntu) or set DATABASE_URL", p.cluster, v, v)
	}
	log.Info("no installed PostgreSQL found; downloading it", "version", downloadVersion, "into", p.downloaded)
	start := time.Now()
	if err := downloadBinaries(ctx, p, log); err != nil {
		return nil, &missingError{download: err}
	}
	log.Info("PostgreSQL downloaded", "took", time.Since(start).Round(time.Millisecond).String())
	if err := acct.chownTree(p.downloaded); err != nil {
		return nil, err
	}
	return installedBinaries(ctx, p, log)
}

// installedBinaries returns the installation to use for the cluster in p without downloading:
// the one whose major version created the cluster, else the newest found.
func installedBinaries(ctx context.Context, p paths, log *slog.Logger) (*binaries, error) {
	var found []*binaries
	seen := map[string]bool{}
	for _, cand := range append(systemCandidates(ctx), downloadedCandidate(p)...) {
		real, err := filepath.EvalSymlinks(cand.pgCtlPath)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		out, err := exec.CommandContext(ctx, cand.pgCtlPath, "--version").Output()
		if err != nil {
			log.Debug("ignoring unusable pg_ctl", "path", cand.pgCtlPath, "err", err)
			continue
		}
		m := versionPattern.FindStringSubmatch(string(out))
		if m == nil {
			continue
		}
		cand.version = majorVersion(m[1], m[2])
		found = append(found, cand)
	}
	if len(found) == 0 {
		return nil, ErrNoBinaries
	}
	want := clusterVersion(p.cluster)
	if want == "" {
		return found[0], nil
	}
	for _, b := range found {
		if b.version == want {
			return b, nil
		}
	}
	return nil, fmt.Errorf("the cluster in %s was created by PostgreSQL %s, but only PostgreSQL %s is installed (%s); "+
		"install version %s's server too (`apt-get install postgresql-%s` on Debian or Ubuntu), or upgrade the cluster with pg_upgrade",
		p.cluster, want, found[0].version, filepath.Dir(found[0].pgCtlPath), want, want)
}

// findSystemCandidates lists installations in order of preference: what pg_config reports (the
// installation a developer chose), then PATH, then the standard package locations, newest first.
func findSystemCandidates(ctx context.Context) []*binaries {
	var cands []*binaries
	inDir := func(dir string) {
		initdb, pgctl := filepath.Join(dir, "initdb"), filepath.Join(dir, "pg_ctl")
		if isExecutable(initdb) && isExecutable(pgctl) {
			cands = append(cands, &binaries{initdbPath: initdb, pgCtlPath: pgctl})
		}
	}
	if pgConfig, err := exec.LookPath("pg_config"); err == nil {
		if out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output(); err == nil {
			inDir(strings.TrimSpace(string(out)))
		}
	}
	initdb, err1 := exec.LookPath("initdb")
	pgctl, err2 := exec.LookPath("pg_ctl")
	if err1 == nil && err2 == nil {
		cands = append(cands, &binaries{initdbPath: initdb, pgCtlPath: pgctl})
	}
	for _, pattern := range append([]string{debianRoot + "/*/bin"}, homebrewGlobs...) {
		dirs, _ := filepath.Glob(pattern)
		slices.SortFunc(dirs, func(a, b string) int { return compareDirVersions(b, a) })
		for _, dir := range dirs {
			inDir(dir)
		}
	}
	return cands
}

func downloadedCandidate(p paths) []*binaries {
	dir := filepath.Join(p.downloaded, "bin")
	initdb, pgctl := filepath.Join(dir, "initdb"), filepath.Join(dir, "pg_ctl")
	if isExecutable(initdb) && isExecutable(pgctl) {
		return []*binaries{{initdbPath: initdb, pgCtlPath: pgctl}}
	}
	return nil
}

// downloadWithEmbeddedPostgres fetches binaries with embedded-postgres. That library only
// offers a whole start-up (download, initdb, start), so it runs one against a scratch cluster
// that is thrown away; what remains is the extracted installation in p.downloaded, which the
// normal code path then uses like any other. As root its initdb fails after the extraction,
// which is fine: only the binaries are wanted.
func downloadWithEmbeddedPostgres(ctx context.Context, p paths, log *slog.Logger) error {
	scratch, err := os.MkdirTemp(p.dataDir, ".postgres-download-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	port, err := freePort()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	ep := embeddedpostgres.NewDatabase(embeddedpostgres.DefaultConfig().
		Version(downloadVersion).
		Port(uint32(port)).
		BinaryRepositoryURL(binaryRepository).
		BinariesPath(p.downloaded).
		RuntimePath(filepath.Join(scratch, "runtime")).
		DataPath(filepath.Join(scratch, "data")).
		StartTimeout(time.Minute).
		Logger(&out))
	done := make(chan error, 1)
	go func() { done <- ep.Start() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err == nil {
		if stopErr := ep.Stop(); stopErr != nil {
			log.Warn("stopping the scratch cluster used for the download", "err", stopErr)
		}
	}
	if len(downloadedCandidate(p)) > 0 {
		return nil
	}
	if err == nil {
		err = errors.New("no pg_ctl among the downloaded files")
	}
	return err
}

func clusterVersion(cluster string) string {
	b, err := os.ReadFile(filepath.Join(cluster, "PG_VERSION"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// majorVersion spells a version the way PG_VERSION does: one number since PostgreSQL 10, two before.
func majorVersion(first, second string) string {
	if n, _ := strconv.Atoi(first); n < 10 && second != "" {
		return first + "." + second
	}
	return first
}

func majorOf(version string) string {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) == 1 {
		return parts[0]
	}
	return majorVersion(parts[0], parts[1])
}

// compareDirVersions orders .../15/bin and .../postgresql@16/bin by the number in their parent.
func compareDirVersions(a, b string) int {
	key := func(dir string) [2]int {
		m := dirVersionPattern.FindStringSubmatch(filepath.Base(filepath.Dir(dir)))
		if m == nil {
			return [2]int{}
		}
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		return [2]int{x, y}
	}
	ka, kb := key(a), key(b)
	if ka[0] != kb[0] {
		return ka[0] - kb[0]
	}
	return ka[1] - kb[1]
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

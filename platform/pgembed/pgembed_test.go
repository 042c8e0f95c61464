package pgembed_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/platform/pgembed"
)

// dataDir returns a fresh data directory the server's user can reach: as root the server runs
// as another user, and t.TempDir's parent is private (0700) to the test's user.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "data")
}

func chownLike(t *testing.T, path, like string) {
	t.Helper()
	fi, err := os.Stat(like)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if err := os.Lchown(path, int(st.Uid), int(st.Gid)); err != nil {
		t.Fatal(err)
	}
}

func query(t *testing.T, url, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real PostgreSQL server")
	}
	ctx := t.Context()
	opt := pgembed.Options{DataDir: dataDir(t), Logger: testLogger(t)}

	if _, err := pgembed.Attach(ctx, opt); !errors.Is(err, pgembed.ErrNotRunning) {
		t.Fatalf("Attach before any start: err = %v, want ErrNotRunning", err)
	}

	// Two processes starting at once (here: two goroutines, each with its own lock file handle)
	// must produce one cluster with one owner, not two initdbs fighting over the directory.
	began := time.Now()
	var wg sync.WaitGroup
	clusters := make([]*pgembed.Cluster, 2)
	errs := make([]error, 2)
	for i := range clusters {
		wg.Go(func() { clusters[i], errs[i] = pgembed.Start(ctx, opt) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	t.Logf("first start (initdb + start + create database): %v", time.Since(began).Round(time.Millisecond))
	owner, other := clusters[0], clusters[1]
	if !owner.Owned() {
		owner, other = other, owner
	}
	t.Cleanup(func() { _ = pgembed.Shutdown(context.Background(), opt) })
	if !owner.Owned() || other.Owned() {
		t.Fatalf("Owned() = %v and %v, want exactly one owner", owner.Owned(), other.Owned())
	}
	if owner.URL() != other.URL() {
		t.Fatalf("concurrent starts disagree: %s vs %s", owner.URL(), other.URL())
	}

	query(t, owner.URL(), "select 1")
	query(t, owner.URL(), "create table kept (v int); insert into kept values (42)")

	attached, err := pgembed.Attach(ctx, opt)
	if err != nil {
		t.Fatalf("Attach while running: %v", err)
	}
	if attached.Owned() || attached.URL() != owner.URL() {
		t.Fatalf("Attach: Owned() = %v, URL %s; want false, %s", attached.Owned(), attached.URL(), owner.URL())
	}
	if err := attached.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	query(t, owner.URL(), "select 1") // an attached Stop must leave the server alone

	began = time.Now()
	if err := owner.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("stop: %v", time.Since(began).Round(time.Millisecond))
	if err := owner.Stop(ctx); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := pgembed.Attach(ctx, opt); !errors.Is(err, pgembed.ErrNotRunning) {
		t.Fatalf("Attach after Stop: err = %v, want ErrNotRunning", err)
	}

	// A crash leaves postmaster.pid behind; the next start must not be blocked by it.
	stale := "999999\n" + owner.Dir() + "\n0\n" + "5\n" + "\n127.0.0.1\n0 0\nready   \n"
	pidFile := filepath.Join(owner.Dir(), "postmaster.pid")
	if err := os.WriteFile(pidFile, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	chownLike(t, pidFile, owner.Dir()) // as the dead server would have left it

	began = time.Now()
	again, err := pgembed.Start(ctx, opt)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Logf("restart of an existing cluster: %v", time.Since(began).Round(time.Millisecond))
	if !again.Owned() {
		t.Fatal("restart: Owned() = false")
	}
	query(t, again.URL(), "do $$ begin if (select v from kept) <> 42 then raise 'lost data'; end if; end $$")

	if err := pgembed.Shutdown(ctx, opt); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := pgembed.Shutdown(ctx, opt); !errors.Is(err, pgembed.ErrNotRunning) {
		t.Fatalf("second Shutdown: err = %v, want ErrNotRunning", err)
	}

	if info, err := os.Stat(filepath.Join(filepath.Dir(owner.Dir()), "postgres.password")); err != nil {
		t.Fatal(err)
	} else if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("password file mode = %04o, want 0600", perm)
	}
}

func TestStartRefusesForeignDirectory(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	if err := os.MkdirAll(filepath.Join(dir, "postgres"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "postgres", "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := pgembed.Start(t.Context(), pgembed.Options{DataDir: dir})
	if err == nil {
		t.Fatal("Start used a non-empty directory that is not a cluster")
	}
	if _, statErr := os.Stat(filepath.Join(dir, "postgres", "notes.txt")); statErr != nil {
		t.Fatalf("the directory's contents were touched: %v", statErr)
	}
}

// TestStartRefusesAMalformedSetting: settings reach the server through a shell, so anything
// but name=value with a plain name is refused before a server is started.
func TestStartRefusesAMalformedSetting(t *testing.T) {
	t.Parallel()
	for _, setting := range []string{"fsync", "=off", "work_mem;touch /tmp/x=1", "Fsync=off"} {
		_, err := pgembed.Start(t.Context(), pgembed.Options{DataDir: dataDir(t), Settings: []string{setting}})
		if err == nil || !strings.Contains(err.Error(), "is not name=value") {
			t.Errorf("setting %q: err = %v, want a refusal", setting, err)
		}
	}
}

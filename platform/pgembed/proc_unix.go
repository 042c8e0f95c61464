//go:build unix

package pgembed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// SystemUser is created (useradd --system) when Clearvest runs as root on a machine without a
// "postgres" user: PostgreSQL refuses to run as root, so the server needs an account of its own.
const SystemUser = "clearvest-pg"

// serverUsers are tried in order for a new cluster; the last is created when none exists.
var serverUsers = []string{"postgres", SystemUser}

// account is the unprivileged user the server runs as when Clearvest runs as root; nil otherwise,
// in which case the server simply runs as the current user.
type account struct {
	name     string
	uid, gid uint32
}

// serverAccount chooses who runs the server. An existing cluster keeps its owner (PostgreSQL
// insists the data directory belongs to the server's user); a new one gets "postgres" when the
// distribution's packages created it, else SystemUser, created on the spot.
func serverAccount(ctx context.Context, p paths, log *slog.Logger) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if fi, err := os.Stat(p.cluster); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			name := strconv.FormatUint(uint64(st.Uid), 10)
			if u, err := user.LookupId(name); err == nil {
				name = u.Username
			}
			return &account{name: name, uid: st.Uid, gid: st.Gid}, nil
		}
	}
	for _, name := range serverUsers {
		if a, err := lookupAccount(name); err == nil {
			return a, nil
		}
	}
	create := serverUsers[len(serverUsers)-1]
	useradd, err := exec.LookPath("useradd")
	if err != nil {
		useradd = "/usr/sbin/useradd" // root's PATH does not always include sbin
	}
	out, err := exec.CommandContext(ctx, useradd, "--system", "--user-group", "--no-create-home",
		"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
		"--comment", "Clearvest embedded PostgreSQL", create).CombinedOutput()
	// Another process may have created it at the same moment; either way, look again.
	if a, lookErr := lookupAccount(create); lookErr == nil {
		if err == nil {
			log.Info("created system user for the embedded PostgreSQL server", "user", create)
		}
		return a, nil
	}
	return nil, fmt.Errorf("running as root, Clearvest must run PostgreSQL as an unprivileged user (initdb refuses root), "+
		"but none of %q exists and creating %q with useradd failed: %v %s; create one, or run Clearvest as a normal user",
		serverUsers, create, err, bytes.TrimSpace(out))
}

func lookupAccount(name string) (*account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return &account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
}

// prepareDataDir lets the server's user pass through the data directory to reach its cluster.
// Execute-only for others: nobody can list the directory, and the secrets in it stay 0600.
func (a *account) prepareDataDir(dataDir string) error {
	fi, err := os.Stat(dataDir)
	if err != nil {
		return err
	}
	if !a.canTraverse(fi) {
		if err := os.Chmod(dataDir, fi.Mode().Perm()|0o011); err != nil {
			return err
		}
	}
	for dir := filepath.Dir(dataDir); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if !a.canTraverse(fi) {
			return fmt.Errorf("PostgreSQL runs as the unprivileged user %q (it refuses root), which cannot enter %s (mode %04o) to reach the data directory %s; "+
				"choose a data directory it can reach (e.g. CLEARVEST_DATA_DIR=/var/lib/clearvest) or allow passing through: chmod o+x %s",
				a.name, dir, fi.Mode().Perm(), dataDir, dir)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}

// canTraverse applies the kernel's rule: the owner bits for the owner, else the group bits for
// the group (only the primary one: the server runs without supplementary groups), else other.
func (a *account) canTraverse(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	mode := fi.Mode().Perm()
	switch {
	case !ok:
		return true
	case st.Uid == a.uid:
		return mode&0o100 != 0
	case st.Gid == a.gid:
		return mode&0o010 != 0
	default:
		return mode&0o001 != 0
	}
}

func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	return os.Lchown(path, int(a.uid), int(a.gid))
}

func (a *account) chownTree(root string) error {
	if a == nil {
		return nil
	}
	return filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return a.chown(path)
	})
}

// sysProcAttr runs PostgreSQL programs in their own process group, so a Ctrl-C meant for
// Clearvest does not also hit pg_ctl halfway through, and as the server's user when set.
func (a *account) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if a != nil {
		attr.Credential = &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: []uint32{}}
	}
	return attr
}

// lockFile holds an exclusive flock on path until the returned function is called. The lock
// is tied to the open file, so it disappears with a crashed process instead of going stale.
func lockFile(ctx context.Context, path string, log *slog.Logger) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	for waited := false; ; waited = true {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(fd, syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		if !waited {
			log.Info("another process is starting the embedded PostgreSQL; waiting for it", "lock", path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

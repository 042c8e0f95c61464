// Package pgembed runs a private PostgreSQL cluster under Clearvest's data directory, so that
// `clearvest serve` needs no database setup.
//
// Layout inside the data directory:
//
//	postgres/            the cluster (PGDATA); also holds server.log and the unix socket
//	postgres.password    the superuser password, 0600, readable only by the app's user
//	postgres.lock        flock'ed while a process starts the cluster, so two never both initdb
//	postgres-bin/        PostgreSQL binaries, only when none were installed and a download worked
//
// The server listens on 127.0.0.1 only, on a free port chosen at each start (or the one
// Options.Port names), and requires a password even there: other local users must not reach
// the ledger. The running port is read back from postmaster.pid, which is how CLI tools find a
// cluster that `serve` started (Attach). A server outlives the process that started it only if that process does not call
// Stop (e.g. `clearvest postgres start`, or a crash); the next Start then attaches to it.
package pgembed

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

const (
	// Database is the database the app uses inside the cluster.
	Database = "clearvest"
	// Superuser is the cluster's superuser, which the app connects as.
	Superuser = "clearvest"

	clusterDirName   = "postgres"
	passwordFileName = "postgres.password"
	lockFileName     = "postgres.lock"
	logFileName      = "server.log"

	// pgctlTimeout bounds pg_ctl's own waiting; a cold start after a crash may replay WAL.
	pgctlTimeout = 120 * time.Second
	pingTimeout  = 3 * time.Second
)

// ErrNotRunning is returned by Attach and Shutdown when no server runs for the data directory.
var ErrNotRunning = errors.New("no running PostgreSQL cluster for this data directory")

// Options says where the cluster lives and where to report what happens to it.
type Options struct {
	// DataDir is Clearvest's data directory; the cluster lives in DataDir/postgres.
	DataDir string
	// Logger receives lifecycle events; nil discards them.
	Logger *slog.Logger
	// Port, when not 0, is the port a started server listens on instead of a free one chosen
	// at each start; connection strings handed out earlier then stay valid across a restart.
	Port int
	// Settings are extra server settings ("name=value", as for postgres -c) for a started
	// server, such as a test's fsync=off. They do not apply to a server only attached to.
	Settings []string
}

// Cluster is a running embedded PostgreSQL server.
type Cluster struct {
	paths    paths
	port     int
	pid      int
	password string
	log      *slog.Logger
	settings []string // extra -c settings for the server this process starts

	mu    sync.Mutex
	owned bool      // this process started the server and must stop it
	bin   *binaries // nil when attached: only an owned server is stopped through Cluster
	acct  *account  // nil unless running as root
}

// URL is the connection string for the app's database, password included.
func (c *Cluster) URL() string { return c.urlFor(Database) }

func (c *Cluster) urlFor(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(Superuser, c.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Owned reports whether this process started the server (and so Stop will stop it).
func (c *Cluster) Owned() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.owned
}

// Port is the loopback TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// PID is the postmaster's process id.
func (c *Cluster) PID() int { return c.pid }

// Dir is the cluster directory (PGDATA).
func (c *Cluster) Dir() string { return c.paths.cluster }

// LogFile is the server's log file.
func (c *Cluster) LogFile() string { return c.paths.log }

// Stop shuts the server down (fast mode: sessions are disconnected, no data is lost) if this
// process started it. For a cluster it only attached to, Stop does nothing: the process that
// started it, or `clearvest postgres stop`, owns its lifetime. Stop is safe to call twice.
func (c *Cluster) Stop(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.owned {
		return nil
	}
	start := time.Now()
	if _, err := run(ctx, c.acct, c.paths.dataDir, c.bin.pgCtl(), "stop", "-D", c.paths.cluster, "-m", "fast", "-w", "-t", seconds(pgctlTimeout)); err != nil {
		return fmt.Errorf("stopping PostgreSQL: %w", err)
	}
	c.owned = false
	c.log.Info("embedded PostgreSQL stopped", "data_dir", c.paths.cluster, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// Start returns the server of opt.DataDir, starting it (and creating the cluster on first
// use) unless one already runs, in which case it attaches and Owned reports false.
func Start(ctx context.Context, opt Options) (*Cluster, error) {
	p, err := newPaths(opt.DataDir)
	if err != nil {
		return nil, err
	}
	log := logger(opt)
	acct, err := serverAccount(ctx, p, log)
	if err != nil {
		return nil, err
	}
	// Directories created here must let the server's user through when that is another user;
	// execute-only, so nobody else can list them.
	perm := os.FileMode(0o700)
	if acct != nil {
		perm = 0o711
	}
	if err := os.MkdirAll(p.dataDir, perm); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	if acct != nil {
		if err := acct.prepareDataDir(p.dataDir); err != nil {
			return nil, err
		}
	}

	unlock, err := lockFile(ctx, p.lock, log)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", p.lock, err)
	}
	defer unlock()

	if c, err := attach(ctx, p, log); err == nil {
		log.Info("embedded PostgreSQL already running; attached", "data_dir", p.cluster, "port", c.port, "pid", c.pid)
		return c, nil
	} else if !errors.Is(err, ErrNotRunning) {
		return nil, err
	}

	bin, err := findBinaries(ctx, p, acct, log)
	if err != nil {
		return nil, err
	}
	for _, setting := range opt.Settings {
		// The options pass through /bin/sh: a name is a plain identifier, the value is quoted.
		if name, _, ok := strings.Cut(setting, "="); !ok || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_.") != "" {
			return nil, fmt.Errorf("pgembed: server setting %q is not name=value", setting)
		}
	}
	c := &Cluster{paths: p, log: log, bin: bin, acct: acct, port: opt.Port, settings: opt.Settings}
	begin := time.Now()
	initialized, err := isCluster(p.cluster)
	if err != nil {
		return nil, err
	}
	if initialized {
		if c.password, err = readPassword(p.password); err != nil {
			return nil, err
		}
	} else if err := c.initdb(ctx); err != nil {
		return nil, err
	}
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	c.owned = true
	if err := c.ensureDatabase(ctx); err != nil {
		if stopErr := c.Stop(context.WithoutCancel(ctx)); stopErr != nil {
			log.Error("stopping embedded PostgreSQL after a failed start", "err", stopErr)
		}
		return nil, err
	}
	log.Info("embedded PostgreSQL started",
		"data_dir", p.cluster, "port", c.port, "pid", c.pid, "version", bin.version,
		"created", !initialized, "took", time.Since(begin).Round(time.Millisecond).String())
	return c, nil
}

// Attach returns the server already running for opt.DataDir, or ErrNotRunning. It never
// starts anything, which is what CLI tools want while `serve` runs.
func Attach(ctx context.Context, opt Options) (*Cluster, error) {
	p, err := newPaths(opt.DataDir)
	if err != nil {
		return nil, err
	}
	return attach(ctx, p, logger(opt))
}

// Shutdown stops the server of opt.DataDir whoever started it, or returns ErrNotRunning.
func Shutdown(ctx context.Context, opt Options) error {
	p, err := newPaths(opt.DataDir)
	if err != nil {
		return err
	}
	log := logger(opt)
	if ok, err := isCluster(p.cluster); err != nil {
		return err
	} else if !ok {
		return ErrNotRunning
	}
	acct, err := serverAccount(ctx, p, log)
	if err != nil {
		return err
	}
	bin, err := installedBinaries(ctx, p, log)
	if err != nil {
		return err
	}
	// pg_ctl status exits 3 when no server runs (a stale postmaster.pid included).
	if _, err := run(ctx, acct, p.dataDir, bin.pgCtl(), "status", "-D", p.cluster); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			return ErrNotRunning
		}
		return fmt.Errorf("checking PostgreSQL status: %w", err)
	}
	c := &Cluster{paths: p, log: log, bin: bin, acct: acct, owned: true}
	return c.Stop(ctx)
}

type paths struct {
	dataDir, cluster, password, lock, log, downloaded string
}

func newPaths(dataDir string) (paths, error) {
	if dataDir == "" {
		return paths{}, errors.New("pgembed: no data directory given")
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return paths{}, err
	}
	cluster := filepath.Join(abs, clusterDirName)
	return paths{
		dataDir:    abs,
		cluster:    cluster,
		password:   filepath.Join(abs, passwordFileName),
		lock:       filepath.Join(abs, lockFileName),
		log:        filepath.Join(cluster, logFileName),
		downloaded: filepath.Join(abs, "postgres-bin"),
	}, nil
}

func logger(opt Options) *slog.Logger {
	if opt.Logger != nil {
		return opt.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// isCluster tells an initialised cluster from an absent one, and refuses a directory that is
// neither: deleting it could destroy data someone cares about, so a person must decide.
func isCluster(dir string) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return true, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if len(entries) > 0 {
		return false, fmt.Errorf("%s is not empty but holds no PostgreSQL cluster (no PG_VERSION); move it away to let Clearvest create a new one", dir)
	}
	return false, nil
}

func attach(ctx context.Context, p paths, log *slog.Logger) (*Cluster, error) {
	pid, port, err := readPostmasterPID(filepath.Join(p.cluster, "postmaster.pid"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotRunning
	}
	if err != nil {
		return nil, err
	}
	password, err := readPassword(p.password)
	if err != nil {
		return nil, err
	}
	c := &Cluster{paths: p, port: port, pid: pid, password: password, log: log}
	if err := c.ping(ctx); err != nil {
		log.Debug("postmaster.pid present but no server answers", "data_dir", p.cluster, "port", port, "err", err)
		return nil, ErrNotRunning
	}
	return c, nil
}

// readPostmasterPID returns the pid (line 1) and port (line 4) the postmaster recorded.
func readPostmasterPID(path string) (pid, port int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, 0, ErrNotRunning // being written, or truncated by a crash
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(lines[0]))
	port, err2 := strconv.Atoi(strings.TrimSpace(lines[3]))
	if err1 != nil || err2 != nil || port <= 0 {
		return 0, 0, ErrNotRunning
	}
	return pid, port, nil
}

// ping checks that the server on c.port answers our password and serves our directory: a
// stale postmaster.pid may name a port that another server has taken since.
func (c *Cluster) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var dir string
	if err := conn.QueryRow(ctx, "select current_setting('data_directory')").Scan(&dir); err != nil {
		return err
	}
	if !sameFile(dir, c.paths.cluster) {
		return fmt.Errorf("server on port %d serves %s, not %s", c.port, dir, c.paths.cluster)
	}
	return nil
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func readPassword(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("the embedded cluster exists but its password file %s is missing; restore it, or move the cluster directory away to create a new, empty one", path)
	}
	if err != nil {
		return "", fmt.Errorf("reading the embedded cluster's password: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func (c *Cluster) initdb(ctx context.Context) error {
	start := time.Now()
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	// URL-safe so the password needs no escaping wherever the URL is pasted.
	c.password = base64.RawURLEncoding.EncodeToString(secret)
	if err := writeFileAtomic(c.paths.password, []byte(c.password+"\n")); err != nil {
		return fmt.Errorf("writing %s: %w", c.paths.password, err)
	}
	if err := os.MkdirAll(c.paths.cluster, 0o700); err != nil {
		return err
	}
	if err := c.acct.chown(c.paths.cluster); err != nil {
		return err
	}

	// initdb reads the password itself, as the server's user, who must not be able to read the
	// app's password file; so it gets a short-lived copy of its own.
	pwfile := c.paths.password
	if c.acct != nil {
		f, err := os.CreateTemp(c.paths.dataDir, ".initdb-pw-*")
		if err != nil {
			return err
		}
		pwfile = f.Name()
		defer os.Remove(pwfile)
		_, err = f.WriteString(c.password + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = c.acct.chown(pwfile)
		}
		if err != nil {
			return err
		}
	}

	out, err := run(ctx, c.acct, c.paths.dataDir, c.bin.initdb(),
		"-D", c.paths.cluster,
		"-U", Superuser,
		"--pwfile="+pwfile,
		"--auth-local=scram-sha-256",
		"--auth-host=scram-sha-256",
		"--encoding=UTF8",
		// C collation: identical ordering on every machine and no dependency on installed locales.
		"--no-locale",
		// Page checksums: a ledger wants silent disk corruption reported, not served.
		"--data-checksums",
	)
	if err != nil {
		return fmt.Errorf("initdb failed: %w\n%s", err, tail(out, 20))
	}
	c.log.Info("embedded PostgreSQL cluster created", "data_dir", c.paths.cluster, "version", c.bin.version, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

func (c *Cluster) start(ctx context.Context) error {
	var lastErr error
	// The port is free when chosen but another process may take it before the server binds;
	// that race is rare, and a fresh port fixes it.
	for attempt := 0; attempt < 3; attempt++ {
		port := c.port
		if port == 0 {
			var err error
			if port, err = freePort(); err != nil {
				return err
			}
		}
		logStart := fileSize(c.paths.log)
		out, err := run(ctx, c.acct, c.paths.dataDir, c.bin.pgCtl(), "start",
			"-D", c.paths.cluster,
			"-l", c.paths.log,
			"-w", "-t", seconds(pgctlTimeout),
			"-o", c.serverOptions(port),
		)
		if err == nil {
			c.port = port
			c.pid, _, err = readPostmasterPID(filepath.Join(c.paths.cluster, "postmaster.pid"))
			if err != nil {
				return fmt.Errorf("reading postmaster.pid after start: %w", err)
			}
			return nil
		}
		serverLog := readFrom(c.paths.log, logStart)
		lastErr = fmt.Errorf("pg_ctl start failed: %w\n%s\n%s", err, tail(out, 10), tail(serverLog, 20))
		if c.port != 0 || (!bytes.Contains(serverLog, []byte("could not bind")) && !bytes.Contains(serverLog, []byte("already in use"))) {
			break // a port asked for is not swapped for another
		}
		c.log.Warn("port taken before PostgreSQL could bind it; retrying on another", "port", port)
	}
	return fmt.Errorf("starting PostgreSQL in %s (log: %s): %w", c.paths.cluster, c.paths.log, lastErr)
}

// serverOptions is handed to pg_ctl -o, which passes it through /bin/sh: values are quoted.
func (c *Cluster) serverOptions(port int) string {
	opts := []string{"-p " + strconv.Itoa(port), "-c listen_addresses=127.0.0.1"}
	// The socket goes in the cluster directory because the packaged default (/var/run/postgresql)
	// belongs to the system server. Unix socket paths are limited to ~104 bytes; when ours would
	// be longer, or unquotable, the socket is turned off: Clearvest connects over TCP anyway.
	socket := filepath.Join(c.paths.cluster, ".s.PGSQL."+strconv.Itoa(port))
	if len(socket) < 100 && !strings.ContainsAny(c.paths.cluster, "'\\") {
		opts = append(opts, "-c unix_socket_directories='"+c.paths.cluster+"'")
	} else {
		opts = append(opts, "-c unix_socket_directories=''")
	}
	for _, setting := range c.settings {
		name, value, _ := strings.Cut(setting, "=")
		opts = append(opts, "-c "+name+"='"+strings.ReplaceAll(value, "'", `'\''`)+"'")
	}
	return strings.Join(opts, " ")
}

func (c *Cluster) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.urlFor("postgres"))
	if err != nil {
		return fmt.Errorf("connecting to the embedded cluster: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "select exists (select 1 from pg_database where datname = $1)", Database).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "create database "+pgx.Identifier{Database}.Sanitize()); err != nil {
		return fmt.Errorf("creating database %s: %w", Database, err)
	}
	c.log.Info("database created", "database", Database)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// run executes a PostgreSQL program, as acct when set, and returns its combined output.
func run(ctx context.Context, acct *account, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	// A working directory the server's user may enter; the caller's may be /root.
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.SysProcAttr = acct.sysProcAttr()
	// pg_ctl start leaves a server behind; if it ever kept our pipe open, Wait must not hang.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return out.Bytes(), err
}

func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}

func readFrom(path string, offset int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return b
}

// tail returns the last n lines of a program's output, for error messages.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func seconds(d time.Duration) string { return strconv.Itoa(int(d.Seconds())) }

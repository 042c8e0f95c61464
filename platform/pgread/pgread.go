// Package pgread holds the read replicas (PostgreSQL hot standbys of the primary) and routes the
// read-model queries of safe requests to them (docs/operations.md, "Read replicas").
//
// A replica is in rotation only while it answers, is still a standby, and replays the primary's
// WAL within the maximum lag; Check decides that, and Run calls it in the background. Reads pick
// a replica per request (Pick, WithReplica); On gives the query functions the chosen pool, or
// the primary when nothing was chosen, so everything outside a safe request (commands, the event
// store, projections, background jobs) keeps reading the primary. A replica query that fails
// for want of a connection is run once more on the primary, so a standby that stops costs no
// request.
package pgread

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/platform/pgavail"
)

// Querier is what read-model queries read through: a pool, a transaction, or On's choice.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

var _ Querier = (*pgxpool.Pool)(nil)

// Replica is one standby's pool and what the last check learned of it.
type Replica struct {
	name string
	pool *pgxpool.Pool
	set  *Set

	inRotation atomic.Bool
	lagBits    atomic.Uint64 // float64 seconds
	// applied is the lowest projection checkpoint seen on the standby. Replay only moves it
	// forward, so a position up to it needs no query.
	applied atomic.Int64

	mu     sync.Mutex
	reason string // why it is out of rotation; "" in rotation
}

// Name identifies the replica in logs, metrics and /readyz: host:port/database, no credentials.
func (r *Replica) Name() string { return r.name }

// InRotation reports whether reads may go to the replica.
func (r *Replica) InRotation() bool { return r.inRotation.Load() }

// Lag is the replay lag the last check measured.
func (r *Replica) Lag() time.Duration {
	return time.Duration(math.Float64frombits(r.lagBits.Load()) * float64(time.Second))
}

// Reason says why the replica is out of rotation; "" while it is in.
func (r *Replica) Reason() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason
}

// AppliedFunc reads the lowest checkpoint of the read models as q's database sees it;
// projections.Runner.AppliedOn is one.
type AppliedFunc func(ctx context.Context, q Querier) (int64, error)

// Set is the primary and its replicas.
type Set struct {
	primary  *pgxpool.Pool
	replicas []*Replica
	maxLag   time.Duration
	applied  AppliedFunc
	target   func(position int64) int64
	now      func() time.Time
	poll     time.Duration
	log      *slog.Logger

	next atomic.Uint64 // round robin over the replicas in rotation

	mu      sync.Mutex
	samples []sample // the primary's WAL position over time, oldest first

	inRotation *prometheus.GaugeVec
	lagSeconds *prometheus.GaugeVec
	fallbacks  *prometheus.CounterVec
}

type sample struct {
	at  time.Time
	lsn int64
}

// Option configures a Set.
type Option func(*Set)

// WithClock replaces the wall clock the lag is measured with (tests move it instead of waiting).
func WithClock(now func() time.Time) Option { return func(s *Set) { s.now = now } }

// WithLogger sets the logger rotation changes are reported to.
func WithLogger(l *slog.Logger) Option { return func(s *Set) { s.log = l } }

// WithApplied sets how a replica's replayed read models are measured, for positioned reads;
// without it WaitFor always fails and positioned reads go to the primary.
func WithApplied(f AppliedFunc) Option { return func(s *Set) { s.applied = f } }

// WithTarget sets what a replica must have replayed for a read positioned at position, once
// the primary's read models have passed it: a position beyond the log's head is the head's
// (projections.Runner.Reached bounds it).
func WithTarget(f func(position int64) int64) Option { return func(s *Set) { s.target = f } }

// WithMetrics registers the replicas' gauges and counters.
func WithMetrics(reg prometheus.Registerer) Option {
	return func(s *Set) {
		s.inRotation = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "clearvest_read_replica_in_rotation",
			Help: "1 while the read replica serves reads, 0 while it is out of rotation (unreachable, not a standby, or lagging).",
		}, []string{"replica"})
		s.lagSeconds = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "clearvest_read_replica_lag_seconds",
			Help: "How long ago the primary had WAL the read replica has not replayed yet, at the last check that reached it.",
		}, []string{"replica"})
		s.fallbacks = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clearvest_read_replica_fallbacks_total",
			Help: "Reads of a replica that failed for want of a connection and were served by the primary.",
		}, []string{"replica"})
		reg.MustRegister(s.inRotation, s.lagSeconds, s.fallbacks)
	}
}

// DefaultPoll is how often WaitFor reads a replica's checkpoints while a positioned read waits.
const DefaultPoll = 25 * time.Millisecond

// New makes a Set of the primary and the replicas' pools. Replicas start out of rotation until
// the first Check.
func New(primary *pgxpool.Pool, replicas []*pgxpool.Pool, maxLag time.Duration, opts ...Option) *Set {
	s := &Set{primary: primary, maxLag: maxLag, now: time.Now, poll: DefaultPoll, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(s)
	}
	for _, p := range replicas {
		r := &Replica{name: poolName(p), pool: p, set: s, reason: "not checked yet"}
		s.replicas = append(s.replicas, r)
		if s.inRotation != nil {
			s.inRotation.WithLabelValues(r.name).Set(0)
			s.lagSeconds.WithLabelValues(r.name).Set(0)
			s.fallbacks.WithLabelValues(r.name)
		}
	}
	return s
}

// Open connects a pool to each URL (lazily: a standby that is down at start-up joins the
// rotation when it comes up) with the primary's pool settings.
func Open(ctx context.Context, primary *pgxpool.Pool, urls []string, maxLag time.Duration, opts ...Option) (*Set, error) {
	var pools []*pgxpool.Pool
	for i, u := range urls {
		cfg, err := pgxpool.ParseConfig(u)
		if err != nil {
			for _, p := range pools {
				p.Close()
			}
			return nil, fmt.Errorf("read replica %d: %w", i+1, err)
		}
		pc := primary.Config()
		cfg.MaxConns, cfg.MinConns = pc.MaxConns, 0
		cfg.MaxConnLifetime, cfg.MaxConnLifetimeJitter = pc.MaxConnLifetime, pc.MaxConnLifetimeJitter
		cfg.MaxConnIdleTime, cfg.HealthCheckPeriod = pc.MaxConnIdleTime, pc.HealthCheckPeriod
		// A standby that does not answer quickly is skipped, not waited for.
		cfg.ConnConfig.ConnectTimeout = 2 * time.Second
		if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
			cfg.ConnConfig.RuntimeParams["application_name"] = "clearvest"
		}
		p, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			for _, p := range pools {
				p.Close()
			}
			return nil, fmt.Errorf("read replica %d: %w", i+1, err)
		}
		pools = append(pools, p)
	}
	return New(primary, pools, maxLag, opts...), nil
}

// Close closes the replicas' pools (not the primary's).
func (s *Set) Close() {
	for _, r := range s.replicas {
		r.pool.Close()
	}
}

// Replicas lists the replicas in the order they were configured.
func (s *Set) Replicas() []*Replica { return s.replicas }

// MaxLag is the lag above which a replica leaves the rotation.
func (s *Set) MaxLag() time.Duration { return s.maxLag }

func poolName(p *pgxpool.Pool) string {
	c := p.Config().ConnConfig
	return fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database)
}

// Pick returns a replica in rotation, in turn, or nil when none is.
func (s *Set) Pick() *Replica {
	n := len(s.replicas)
	if n == 0 {
		return nil
	}
	start := s.next.Add(1)
	for i := range n {
		if r := s.replicas[(start+uint64(i))%uint64(n)]; r.InRotation() {
			return r
		}
	}
	return nil
}

// Run checks the replicas every interval until ctx ends.
func (s *Set) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, every+time.Second)
		if err := s.Check(cctx); err != nil && ctx.Err() == nil {
			s.log.Warn("read replicas: checking the primary's WAL position failed; rotation unchanged", "err", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Check measures every replica once and puts it in or out of rotation. The lag is how long ago
// the primary had WAL the standby has not replayed yet, from the primary's positions sampled at
// each check: unlike the time of the last replayed transaction it does not grow while the
// primary is idle, and unlike a byte count it reads as time. An error means the primary could
// not be read; the replicas are then left as they were.
func (s *Set) Check(ctx context.Context) error {
	if len(s.replicas) == 0 {
		return nil
	}
	var primaryLSN int64
	if err := s.primary.QueryRow(ctx, `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&primaryLSN); err != nil {
		return fmt.Errorf("primary WAL position: %w", err)
	}
	now := s.now()
	s.mu.Lock()
	s.samples = append(s.samples, sample{at: now, lsn: primaryLSN})
	keep := max(10*s.maxLag, time.Minute)
	drop := 0
	for drop < len(s.samples)-1 && now.Sub(s.samples[drop].at) > keep {
		drop++
	}
	s.samples = s.samples[drop:]
	samples := append([]sample(nil), s.samples...)
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, r := range s.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.checkReplica(ctx, r, now, samples)
		}()
	}
	wg.Wait()
	return nil
}

func (s *Set) checkReplica(ctx context.Context, r *Replica, now time.Time, samples []sample) {
	var standby bool
	var replayed int64
	err := r.pool.QueryRow(ctx, `SELECT pg_is_in_recovery(), coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0)`).Scan(&standby, &replayed)
	switch {
	case err != nil:
		r.setState(false, r.Lag(), "unreachable")
		s.log.Debug("read replica check failed", "replica", r.name, "err", err)
		return
	case !standby:
		// A promoted standby no longer follows the primary: what it holds may differ.
		r.setState(false, r.Lag(), "not a standby (promoted?)")
		return
	}
	var lag time.Duration
	for _, sm := range samples {
		if sm.lsn > replayed {
			lag = now.Sub(sm.at)
			break
		}
	}
	if s.applied != nil {
		if a, err := s.applied(ctx, r.pool); err == nil {
			r.noteApplied(a)
		}
	}
	if lag > s.maxLag {
		r.setState(false, lag, fmt.Sprintf("replay lag %s over %s", lag.Round(100*time.Millisecond), s.maxLag))
		return
	}
	r.setState(true, lag, "")
}

func (r *Replica) noteApplied(a int64) {
	for {
		cur := r.applied.Load()
		if a <= cur || r.applied.CompareAndSwap(cur, a) {
			return
		}
	}
}

func (r *Replica) setState(in bool, lag time.Duration, reason string) {
	s := r.set
	r.mu.Lock()
	was := r.inRotation.Load()
	r.lagBits.Store(math.Float64bits(lag.Seconds()))
	r.inRotation.Store(in)
	r.reason = reason
	if s.inRotation != nil {
		v := 0.0
		if in {
			v = 1
		}
		s.inRotation.WithLabelValues(r.name).Set(v)
		s.lagSeconds.WithLabelValues(r.name).Set(lag.Seconds())
	}
	r.mu.Unlock()
	switch {
	case in && !was:
		s.log.Info("read replica in rotation", "replica", r.name, "lag", lag)
	case !in && was:
		s.log.Warn("read replica out of rotation", "replica", r.name, "reason", reason)
	}
}

// Detail is a /readyz detail line naming the replicas out of rotation and why; "" when every
// replica is in. A replica out of rotation does not make the process unready: reads go to the
// primary.
func (s *Set) Detail(context.Context) (string, error) {
	var out []string
	for _, r := range s.replicas {
		if !r.InRotation() {
			out = append(out, fmt.Sprintf("read replica %s out of rotation: %s", r.name, r.Reason()))
		}
	}
	return strings.Join(out, "; "), nil
}

// ErrNotApplied is WaitFor's answer when the replica has not replayed the position in time.
var ErrNotApplied = errors.New("read replica has not replayed the position yet")

// WaitFor blocks until r's replayed read models have passed position, polling the standby,
// until ctx ends (the caller bounds it). The replica must stay in rotation while it waits.
func (s *Set) WaitFor(ctx context.Context, r *Replica, position int64) error {
	if position <= r.applied.Load() {
		return nil
	}
	if s.applied == nil {
		return ErrNotApplied
	}
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		a, err := s.applied(ctx, r.pool)
		if err != nil {
			if ctx.Err() != nil {
				return ErrNotApplied
			}
			if connectionError(err) {
				r.markDown(err)
			}
			return err
		}
		r.noteApplied(a)
		if position <= a {
			return nil
		}
		if !r.InRotation() {
			return ErrNotApplied
		}
		select {
		case <-ctx.Done():
			return ErrNotApplied
		case <-t.C:
		}
	}
}

// markDown takes the replica out of rotation at once after a failed connection; the next
// check that reaches it puts it back.
func (r *Replica) markDown(err error) {
	if r.InRotation() {
		r.set.log.Warn("read replica query failed; out of rotation until it answers a check", "replica", r.name, "err", err)
	}
	r.setState(false, r.Lag(), "unreachable")
}

// connectionError reports whether err says the standby could not run the query at all, as
// opposed to answering it: the database unreachable (pgavail.Unreachable: no connection, a
// connection lost, the server shutting down or starting), a query cancelled by replay, or no
// connection slot free. Those are worth running again on the primary.
func connectionError(err error) bool {
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if pgavail.Unreachable(err) || isRecoveryConflict(err) {
		return true
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == "53300" // too many connections
	}
	var netErr net.Error
	return errors.As(err, &netErr) || pgconn.SafeToRetry(err)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"clearvest/app/queuefeed"
	"clearvest/domain/clock"
	"clearvest/platform/config"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"clearvest/api"
	"clearvest/api/middleware"
	appaudit "clearvest/app/audit"
	"clearvest/app/chainwatch"
	"clearvest/content"
	"clearvest/eventstore/postgres"
	"clearvest/platform/auth/ratelimit"
	"clearvest/platform/idempotency"
	"clearvest/platform/mail"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgread"
	"clearvest/platform/sitecontent"
	"clearvest/projections"
	"clearvest/ui"
)

// appClock is the clock every service of a serve process reads. With the development tools on
// (development chosen explicitly, on a loopback address) it is the test clock, an offset clock
// that POST /api/dev/clock moves forward; the offset lives in this process's memory only, so it
// starts at zero and resets on restart, and neither other serve processes nor CLI commands see
// it. Otherwise it is the system clock, and no test clock exists to be moved.
func appClock(cfg config.Config) (clock.Clock, *clock.Offset) {
	if !cfg.DevTools() {
		return clock.System(), nil
	}
	dev := clock.NewOffset(clock.System())
	return dev, dev
}

// relaxedGCPercent is the garbage collector's target for serve and events verify unless GOGC
// says otherwise. Both keep little live data (caches of a few megabytes; one page and one
// account) and allocate per request or event, so at Go's default (collect each time the heap
// doubles) collection ran many times a second and took about a quarter of their CPU
// (docs/benchmarks.md, "Money commands over HTTP" and "events verify"); letting the heap grow to
// five times the live data costs tens of megabytes. GOMEMLIMIT, when set, still bounds it.
const relaxedGCPercent = 400

func relaxGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(relaxedGCPercent)
	}
}

// serveMetricsWired, when set, is given serve's metrics registry once everything that exports
// metrics is wired and before the listeners serve. Tests use it to check that the alerting rules
// and the dashboard in docs/observability name only metrics serve registers.
var serveMetricsWired func(*prometheus.Registry)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func runServe(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: serve: %v", errUsage, err)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	// Before anything is opened: development's tools (the mailbox, the test clock, demo data)
	// must never be reachable from a network, and an unset CLEARVEST_ENV is not a choice.
	if err := cfg.CheckServe(); err != nil {
		return err
	}
	relaxGC()
	pool, _, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := pgmigrate.Apply(ctx, pool, allMigrations()...); err != nil {
		return err
	}
	if _, err := resumePositions(ctx, pool, logger); err != nil {
		return err
	}

	codec, cipher, err := newCodec(ctx, pool, cfg)
	if err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	store := postgres.New(pool, postgres.WithLogger(logger), postgres.WithMetrics(reg))
	defer store.Close()
	runner, err := projections.NewRunner(pool, store, allProjections(codec), projections.WithLogger(logger), projections.WithMetrics(reg))
	if err != nil {
		return err
	}
	if err := runner.Prepare(ctx); err != nil {
		return withSkipHint(err)
	}
	reg.MustRegister(projections.LagCollector{Runner: runner})

	// Listening before the rest is wired lets e-mailed links name the port actually bound when
	// only CLEARVEST_ADDR was changed (the default public URL assumes :8080).
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (set CLEARVEST_ADDR to use another address)", cfg.Addr, err)
	}
	cfg.PublicURL = publicURL(cfg.PublicURL, ln.Addr())
	// Metrics get their own listener, or none: never the public one.
	var mln net.Listener
	if cfg.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("listen on %s for metrics: %w (set CLEARVEST_METRICS_ADDR to use another address)", cfg.MetricsAddr, err)
		}
	}
	closeListeners := func() {
		ln.Close()
		if mln != nil {
			mln.Close()
		}
	}
	clk, devClock := appClock(cfg)
	ident, err := newIdentity(ctx, cfg, clk, pool, store, codec, cipher, reg, logger)
	if err != nil {
		closeListeners()
		return err
	}
	if err := ident.accounts.CheckSecrets(ctx); err != nil {
		ln.Close()
		return err
	}
	var demo []demoLogin
	if cfg.DevTools() {
		// The plans first: the demo investor's sample investment is in one of them.
		if err := seedDemoPlans(ctx, ident.plans, logger); err != nil {
			closeListeners()
			return err
		}
		if demo, err = seedDemo(ctx, cfg, ident.accounts, ident.kyc, ident.money, logger); err != nil {
			closeListeners()
			return err
		}
	}
	mailbox := ""
	if cfg.DevTools() {
		mailbox, _ = mail.MailboxDir(cfg.MailURL)
	}
	idem, err := idempotency.NewStore(pool, cfg.SecretKey, cfg.PreviousSecretKeys)
	if err != nil {
		ln.Close()
		return err
	}

	// Broken content stops the start, naming the file and field, rather than a page later.
	siteContent, err := sitecontent.New(content.Files(), cfg.ContentDir, logger)
	if err != nil {
		closeListeners()
		return err
	}

	referralBonuses, err := projections.NewReactorRunner(pool, store, ident.referrals, projections.WithLogger(logger), projections.WithReadsSharedWith(runner))
	if err != nil {
		closeListeners()
		return err
	}

	// Every serve process pays out due investments; a pass also runs when the development test
	// clock moves, so moving it past an end date settles at once.
	maturity := ident.money.MaturityJob(5 * time.Second)
	if err := maturity.Register(reg); err != nil {
		closeListeners()
		return err
	}

	// Every serve process refreshes the market data cache; the refreshes are claimed in the
	// database, so the providers are asked once per period whatever the number of processes.
	market, err := newMarketData(cfg.Market, pool, logger)
	if err != nil {
		closeListeners()
		return err
	}

	// Every serve process runs the chain watchers (docs/chain.md); each network is leased in the
	// database, so one process reads a node at a time and the events are appended once.
	addresses, err := newChainAddresses(cfg.Chain, ident, clk)
	if err != nil {
		closeListeners()
		return err
	}
	chains, err := newChainWatch(ctx, cfg.Chain, ident, addresses, market, clk, reg, logger)
	if err != nil {
		closeListeners()
		return err
	}
	defer chains.close()
	details := []api.ReadinessDetail{ident.money.MaturityDetail}
	if chains.watcher != nil {
		details = append(details, chains.watcher.Detail)
	}
	reads, err := openReplicas(ctx, cfg.Reads, pool, runner, reg, logger)
	if err != nil {
		closeListeners()
		return err
	}
	var readRouter middleware.ReadRouter // nil unless replicas are configured: one pool, as before
	if reads != nil {
		defer reads.Close()
		details = append(details, reads.Detail)
		readRouter = reads
	}

	// The request limits (docs/security.md, "Rate limits and quotas") count in PostgreSQL, shared
	// by every serve process; a load test turns them off outside production.
	var requestLimiter *ratelimit.Limiter
	if !cfg.Limits.Off {
		requestLimiter = ratelimit.New(pool, clk)
	} else {
		logger.Warn("request limits and the open deposit quota are off (CLEARVEST_REQUEST_LIMITS=off)")
	}
	auditService, err := appaudit.New(appaudit.Deps{Pool: pool, Store: store, Codec: ident.codec})
	if err != nil {
		return err
	}
	queueFeed := queuefeed.New(store, 0, logger)
	handler := api.New(api.Deps{
		Logger: logger, Env: cfg.Env, Version: version, Assets: ui.Assets(),
		Health: pool, Readiness: runner, Positions: store, Details: details, ReadYourWrites: runner, Reads: readRouter, Metrics: reg,
		Accounts: ident.accounts, KYC: ident.kyc, Plans: ident.plans, Money: ident.money, Approvals: ident.approvals, Referrals: ident.referrals, Community: ident.community, PublicURL: cfg.PublicURL, MailboxDir: mailbox, Idempotency: idem,
		Content: siteContent, Support: ident.support, Settings: ident.settings, Broadcast: ident.broadcast,
		DevClock:       devClock,
		DevClockMoved:  maturity.Wake,
		TrustedProxies: cfg.TrustedProxies,
		Market:         market,
		RequestLimiter: requestLimiter,
		Audit:          auditService,
		QueueFeed:      queueFeed,
		Chains:         chains.status(),
		ChainAddresses: addresses, ChainConfirmations: chainConfirmations(cfg.Chain),
		ChainProgress: chainwatch.NewProgressReader(pool),
	})
	srv := &http.Server{
		Addr: cfg.Addr, Handler: handler, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
	}
	// Open event streams (GET /api/users/events) end when shutdown starts; the browsers reconnect
	// to another process, and Shutdown need not wait for them.
	srv.RegisterOnShutdown(ident.money.CloseChanges)
	srv.RegisterOnShutdown(queueFeed.Close)

	workers, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	runnerDone := make(chan struct{})
	go func() { defer close(runnerDone); _ = runner.Run(workers) }()
	senderDone := make(chan struct{})
	go func() { defer close(senderDone); _ = ident.sender.Run(workers) }()
	tidyDone := make(chan struct{})
	go func() { defer close(tidyDone); tidyKeys(workers, cipher, logger) }()
	sweeperDone := make(chan struct{})
	go func() {
		defer close(sweeperDone)
		idem.Run(workers, 10*time.Minute, func(err error) { logger.Warn("sweeping idempotency keys", "err", err) })
	}()
	maturityDone := make(chan struct{})
	go func() { defer close(maturityDone); maturity.Run(workers) }()
	sessionsDone := make(chan struct{})
	go func() { defer close(sessionsDone); _ = ident.accounts.WatchSessions(workers) }()
	// Reactors follow the log like the projections, each with its own checkpoint and lock, and
	// issue commands outside any read-model transaction.
	referralsDone := make(chan struct{})
	go func() { defer close(referralsDone); _ = referralBonuses.Run(workers) }()

	marketDone := make(chan struct{})
	go func() { defer close(marketDone); market.Run(workers) }()
	readsDone := make(chan struct{})
	go func() {
		defer close(readsDone)
		if reads != nil {
			reads.Run(workers, replicaCheckEvery(cfg.Reads.MaxLag))
		}
	}()
	chainsDone := make(chan struct{})
	go func() {
		defer close(chainsDone)
		if chains.watcher != nil {
			chains.watcher.Run(workers)
		}
	}()

	if serveMetricsWired != nil {
		serveMetricsWired(reg)
	}
	serveErr := make(chan error, 2)
	go func() { serveErr <- srv.Serve(ln) }()
	var metricsSrv *http.Server
	if mln != nil {
		metricsSrv = &http.Server{
			Handler: api.MetricsHandler(reg, logger), ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
			ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second,
		}
		go func() { serveErr <- metricsSrv.Serve(mln) }()
		logger.Info("serving metrics", "addr", mln.Addr().String())
	}
	logger.Info("serving", "addr", ln.Addr().String(), "env", cfg.Env, "version", version)
	fmt.Fprintf(stdout, "\nClearvest is running at %s\n", cfg.PublicURL)
	if mln != nil {
		fmt.Fprintf(stdout, "Metrics: http://%s/metrics\n", mln.Addr())
	}
	printDemoLogins(stdout, demo, cfg.PublicURL, mailbox != "")
	fmt.Fprint(stdout, "Press Ctrl-C to stop.\n\n")

	select {
	case err = <-serveErr:
		srv.Close() // the metrics listener failed: stop the public one too
	case <-ctx.Done():
		logger.Info("shutting down")
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		err = srv.Shutdown(shutdownCtx)
	}
	if metricsSrv != nil {
		_ = metricsSrv.Close()
	}
	stopWorkers()
	<-runnerDone
	<-senderDone
	<-tidyDone
	<-sweeperDone
	<-sessionsDone
	<-referralsDone
	<-maturityDone
	<-marketDone
	<-chainsDone
	<-readsDone
	ident.commands.SnapshotsSaved() // saved after their commands, off the requests' path
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// publicURL prefers the configured public URL; with the default one it names the port actually
// bound, which differs when CLEARVEST_ADDR is changed.
func publicURL(configured string, addr net.Addr) string {
	if configured != "" && configured != "http://localhost:8080" {
		return configured
	}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return fmt.Sprintf("http://localhost:%d", tcp.Port)
	}
	return configured
}

// openReplicas connects the read replicas (CLEARVEST_READ_DATABASE_URL) and checks them once, so
// that the standbys that are up serve from the first request; nil when none is configured.
func openReplicas(ctx context.Context, cfg config.Reads, primary *pgxpool.Pool, runner *projections.Runner, reg prometheus.Registerer, logger *slog.Logger) (*pgread.Set, error) {
	if len(cfg.URLs) == 0 {
		return nil, nil
	}
	reads, err := pgread.Open(ctx, primary, cfg.URLs, cfg.MaxLag,
		pgread.WithLogger(logger), pgread.WithMetrics(reg),
		pgread.WithApplied(func(ctx context.Context, q pgread.Querier) (int64, error) { return runner.AppliedOn(ctx, q) }),
		pgread.WithTarget(runner.ReplicaTarget))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.EnvReadDatabaseURL, err)
	}
	checkCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := reads.Check(checkCtx); err != nil {
		logger.Warn("read replicas: first check failed; they join the rotation when a check passes", "err", err)
	}
	for _, r := range reads.Replicas() {
		logger.Info("read replica", "replica", r.Name(), "in_rotation", r.InRotation(), "reason", r.Reason())
	}
	return reads, nil
}

// replicaCheckEvery is how often the replicas' lag is measured: often enough that a standby
// falling behind leaves the rotation well within the maximum lag.
func replicaCheckEvery(maxLag time.Duration) time.Duration {
	return min(time.Second, maxLag/4)
}

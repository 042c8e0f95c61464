package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/platform/config"
	"clearvest/platform/pgembed"
)

// loadConfig reads the process environment; every subcommand shares it so that CLI tools see
// the same database and data directory as `serve`.
func loadConfig() (config.Config, error) {
	return config.Load(os.Getenv)
}

// openDatabase connects to DATABASE_URL, or else to the embedded cluster of the data directory,
// starting it unless another process (a running `serve`, `clearvest postgres start`) already
// did. closeFn closes the pool and stops the cluster only if this process started it, so a CLI
// tool never pulls the database from under a running server.
func openDatabase(ctx context.Context, cfg config.Config, logger *slog.Logger) (pool *pgxpool.Pool, url string, closeFn func(), err error) {
	url = cfg.DatabaseURL
	source := config.EnvDatabaseURL
	stopCluster := func() {}
	if url == "" {
		cluster, err := pgembed.Start(ctx, pgembed.Options{DataDir: cfg.DataDir, Logger: logger})
		if err != nil {
			return nil, "", nil, fmt.Errorf("embedded PostgreSQL: %w", err)
		}
		url, source = cluster.URL(), "embedded PostgreSQL"
		stopCluster = func() {
			// Runs at shutdown, when ctx is usually already cancelled.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if err := cluster.Stop(ctx); err != nil {
				logger.Error("stopping embedded PostgreSQL", "err", err)
			}
		}
	}

	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		stopCluster()
		return nil, "", nil, fmt.Errorf("%s: %w", source, err)
	}
	// Sized for a 2-core host: enough for concurrent requests plus the projection runner's and
	// reactors' long-lived connections, well below PostgreSQL's default max_connections (100),
	// so several `serve` processes can share one server.
	pcfg.MaxConns = 20
	pcfg.MinConns = 2
	pcfg.MaxConnLifetime = time.Hour
	pcfg.MaxConnLifetimeJitter = 5 * time.Minute
	pcfg.MaxConnIdleTime = 10 * time.Minute
	pcfg.HealthCheckPeriod = 30 * time.Second
	pcfg.ConnConfig.ConnectTimeout = 10 * time.Second
	if pcfg.ConnConfig.RuntimeParams["application_name"] == "" {
		pcfg.ConnConfig.RuntimeParams["application_name"] = "clearvest"
	}

	pool, err = pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		stopCluster()
		return nil, "", nil, fmt.Errorf("%s: %w", source, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		stopCluster()
		return nil, "", nil, fmt.Errorf("connecting to %s: %w", source, err)
	}
	logger.Info("database connected", "source", source, "host", pcfg.ConnConfig.Host, "port", pcfg.ConnConfig.Port, "database", pcfg.ConnConfig.Database)
	return pool, url, func() {
		pool.Close()
		stopCluster()
	}, nil
}

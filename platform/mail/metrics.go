package mail

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

var (
	pendingDesc = prometheus.NewDesc("clearvest_mail_outbox_pending",
		"Outbox messages not yet sent nor given up, whichever process enqueued them.", nil, nil)
	oldestPendingDesc = prometheus.NewDesc("clearvest_mail_outbox_oldest_pending_seconds",
		"Age of the oldest outbox message not yet sent nor given up; 0 when there is none.", nil, nil)
)

// OutboxCollector exposes the outbox's backlog, read from the database at scrape time: the
// counters of a Sender only know what its own process did, while a relay outage shows as a
// backlog every process can see.
type OutboxCollector struct{ Pool *pgxpool.Pool }

// Describe implements prometheus.Collector.
func (c OutboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- oldestPendingDesc
}

// Collect implements prometheus.Collector.
func (c OutboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var pending int64
	var oldest float64
	// The partial index on pending rows keeps this cheap however many sent rows the table holds.
	err := c.Pool.QueryRow(ctx, `
		SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
		FROM mail_outbox WHERE status = 'pending'`).Scan(&pending, &oldest)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(pendingDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(oldestPendingDesc, prometheus.GaugeValue, max(oldest, 0))
}

package projections

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	applied  *prometheus.CounterVec
	failures *prometheus.CounterVec
	logReads prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		applied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clearvest_projection_events_applied_total", Help: "Events applied to read models by this process.",
		}, []string{"projection"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clearvest_projection_batch_failures_total", Help: "Projection batches that failed for a transient reason and were retried.",
		}, []string{"projection"}),
		logReads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clearvest_projection_log_reads_total", Help: "Reads of the event log for live projection batches; projections that wake together share one.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.applied, m.failures, m.logReads)
	}
	return m
}

var (
	lagEventsDesc  = prometheus.NewDesc("clearvest_projection_lag_events", "Events visible in the log but not yet applied.", []string{"projection"}, nil)
	lagSecondsDesc = prometheus.NewDesc("clearvest_projection_lag_seconds", "Age of the oldest event not yet applied.", []string{"projection"}, nil)
	positionDesc   = prometheus.NewDesc("clearvest_projection_position", "Global position of the last applied event.", []string{"projection"}, nil)
	failedDesc     = prometheus.NewDesc("clearvest_projection_failed", "1 while the projection is parked at an event its Apply refused, else 0.", []string{"projection"}, nil)
	stoodDownDesc  = prometheus.NewDesc("clearvest_projection_stood_down", "1 while this process applies nothing to the projection because another definition built its read model, else 0.", []string{"projection"}, nil)
	reactorLagDesc = prometheus.NewDesc("clearvest_reactor_lag_seconds", "Age of the oldest event a reactor has not passed yet.", []string{"reactor"}, nil)
	reactorEvDesc  = prometheus.NewDesc("clearvest_reactor_lag_events", "Events visible in the log that a reactor has not passed yet.", []string{"reactor"}, nil)
	skippedDesc    = prometheus.NewDesc("clearvest_projection_skipped_events", "Events operators told the projection to pass without applying.", []string{"projection"}, nil)
)

// LagCollector exposes projection and reactor lag and projection state, read from the database at scrape time so every
// process reports the same truth whichever of them runs the projections (except stood_down,
// which is about this process's definition).
type LagCollector struct{ Runner *Runner }

// Describe implements prometheus.Collector.
func (c LagCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- lagEventsDesc
	ch <- lagSecondsDesc
	ch <- positionDesc
	ch <- failedDesc
	ch <- stoodDownDesc
	ch <- skippedDesc
	ch <- reactorLagDesc
	ch <- reactorEvDesc
}

// Collect implements prometheus.Collector.
func (c LagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, err := c.Runner.Status(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(lagEventsDesc, err)
		return
	}
	for _, s := range st {
		ch <- prometheus.MustNewConstMetric(lagEventsDesc, prometheus.GaugeValue, float64(s.LagEvents), s.Name)
		ch <- prometheus.MustNewConstMetric(lagSecondsDesc, prometheus.GaugeValue, s.LagSeconds, s.Name)
		ch <- prometheus.MustNewConstMetric(positionDesc, prometheus.GaugeValue, float64(s.Position), s.Name)
		ch <- prometheus.MustNewConstMetric(failedDesc, prometheus.GaugeValue, oneIf(s.State == StateFailed), s.Name)
		ch <- prometheus.MustNewConstMetric(stoodDownDesc, prometheus.GaugeValue, oneIf(s.State == StateStoodDown), s.Name)
		ch <- prometheus.MustNewConstMetric(skippedDesc, prometheus.GaugeValue, float64(len(s.Skips)), s.Name)
	}
	reactors, err := ReactorStatuses(ctx, c.Runner.pool, c.Runner.store)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(reactorLagDesc, err)
		return
	}
	for _, r := range reactors {
		ch <- prometheus.MustNewConstMetric(reactorLagDesc, prometheus.GaugeValue, r.LagSeconds, r.Name)
		ch <- prometheus.MustNewConstMetric(reactorEvDesc, prometheus.GaugeValue, float64(r.LagEvents), r.Name)
	}
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

package postgres

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	appends   prometheus.Counter
	events    prometheus.Counter
	conflicts prometheus.Counter
	duration  prometheus.Histogram
}

// WithMetrics registers the store's Prometheus collectors.
func WithMetrics(reg prometheus.Registerer) Option {
	return func(s *Store) {
		m := &metrics{
			appends:   prometheus.NewCounter(prometheus.CounterOpts{Name: "clearvest_eventstore_appends_total", Help: "Successful appends."}),
			events:    prometheus.NewCounter(prometheus.CounterOpts{Name: "clearvest_eventstore_events_appended_total", Help: "Events appended."}),
			conflicts: prometheus.NewCounter(prometheus.CounterOpts{Name: "clearvest_eventstore_append_conflicts_total", Help: "Appends refused by an expected-version check."}),
			duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "clearvest_eventstore_append_seconds", Help: "Append latency.",
				Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, 1}}),
		}
		reg.MustRegister(m.appends, m.events, m.conflicts, m.duration)
		s.metrics = m
	}
}

func (m *metrics) observe(start time.Time, events int, err error, conflict bool) {
	if m == nil {
		return
	}
	switch {
	case err == nil:
		m.appends.Inc()
		m.events.Add(float64(events))
		m.duration.Observe(time.Since(start).Seconds())
	case conflict:
		m.conflicts.Inc()
	}
}

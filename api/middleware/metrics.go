package middleware

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics records HTTP request metrics in Prometheus:
//
//	clearvest_http_request_duration_seconds{method, route, status}  histogram
//	clearvest_http_requests_in_flight                                 gauge
//
// route is the chi route pattern and status the class ("2xx"), so the number of series stays
// bounded whatever paths clients send.
type Metrics struct {
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

// NewMetrics registers the HTTP collectors with reg. Registering twice with the same registry
// (two routers in one process, as in tests) reuses the collectors already there.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	return &Metrics{
		duration: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "clearvest",
			Subsystem: "http",
			Name:      "request_duration_seconds",
			Help:      "Time to serve an HTTP request, by method, chi route pattern and status class.",
			Buckets:   prometheus.DefBuckets,
		}, []string{"method", "route", "status"})),
		inFlight: register(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "clearvest",
			Subsystem: "http",
			Name:      "requests_in_flight",
			Help:      "HTTP requests being served right now.",
		})),
	}
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		// Only a clashing definition of the same name gets here: a programming error that must
		// not start a server with half its metrics missing.
		panic(err)
	}
	return c
}

// Middleware observes every request. It must run inside the chi router (installed with Use) so
// that the route pattern is known once the handler returns.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		m.inFlight.Inc()
		rec := wrap(w)
		defer func() {
			m.inFlight.Dec()
			m.duration.WithLabelValues(methodLabel(r.Method), routePattern(r), statusClass(rec.Status())).
				Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(rec, r)
	})
}

// methodLabel keeps arbitrary client-chosen methods from becoming label values.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	default:
		return "OTHER"
	}
}

func statusClass(code int) string {
	if code < 100 || code > 599 {
		return "other"
	}
	return strconv.Itoa(code/100) + "xx"
}

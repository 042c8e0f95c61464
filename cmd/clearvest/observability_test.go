package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.yaml.in/yaml/v3"

	"clearvest/platform/pgtest"
)

const (
	alertsFile    = "../../docs/observability/alerts.yml"
	dashboardFile = "../../docs/observability/grafana-dashboard.json"
)

// TestObservabilityFilesNameServesMetrics starts serve as an operator would, watching a (dead)
// Bitcoin node so the chain watcher's metrics exist too, and checks that every clearvest_*
// metric the alerting rules and the dashboard query is one serve registers. A renamed metric
// would otherwise leave an alert that can never fire and a panel that stays empty.
func TestObservabilityFilesNameServesMetrics(t *testing.T) {
	alerts := alertNames(t)
	dashboard := dashboardNames(t)
	// A parse that found nothing would pass vacuously.
	if len(alerts) < 10 || len(dashboard) < 20 {
		t.Fatalf("found %d metric names in %s and %d in %s; the parsing is broken", len(alerts), alertsFile, len(dashboard), dashboardFile)
	}

	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	t.Setenv("CLEARVEST_DATA_DIR", t.TempDir())
	t.Setenv("CLEARVEST_SECRET_KEY", base64.StdEncoding.EncodeToString(make([]byte, 32)))
	t.Setenv("CLEARVEST_ENV", "development")
	t.Setenv("CLEARVEST_ADDR", "127.0.0.1:0")
	t.Setenv("CLEARVEST_METRICS_ADDR", "127.0.0.1:0")
	// Nothing listens on port 1: the watcher's passes fail, but its metrics are registered.
	// A read replica, even one that never answers, registers the replicas' metrics.
	t.Setenv("CLEARVEST_READ_DATABASE_URL", "postgres://u:p@127.0.0.1:1/standby")
	t.Setenv("CLEARVEST_CHAIN_BTC_RPC_URL", "http://u:p@127.0.0.1:1")
	t.Setenv("CLEARVEST_CHAIN_BTC_XPUB", "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs")
	wired := make(chan *prometheus.Registry, 1)
	serveMetricsWired = func(reg *prometheus.Registry) {
		select {
		case wired <- reg:
		default:
		}
	}
	t.Cleanup(func() { serveMetricsWired = nil })

	ctx, stop := context.WithCancel(testCtx(t))
	defer stop()
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, nil, io.Discard, slog.New(slog.DiscardHandler)) }()
	var reg *prometheus.Registry
	select {
	case reg = <-wired:
	case err := <-done:
		t.Fatalf("serve stopped before wiring its metrics: %v", err)
	}
	if missing := unregisteredMetrics(reg, alerts); len(missing) > 0 {
		t.Errorf("%s uses metrics serve does not register: %v", alertsFile, missing)
	}
	if missing := unregisteredMetrics(reg, dashboard); len(missing) > 0 {
		t.Errorf("%s uses metrics serve does not register: %v", dashboardFile, missing)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestUnregisteredMetricsReportsUnknownNames: the check counts a vector without series as
// registered (Gather would not show it), knows a histogram's series by their suffixes, and
// reports a misspelt name and a counter's name with a histogram's suffix.
func TestUnregisteredMetricsReportsUnknownNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	things := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clearvest_things_total", Help: "Things."}, []string{"kind"})
	reg.MustRegister(things,
		prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "clearvest_wait_seconds", Help: "Waits."}, []string{"kind"}))
	// A series makes the counter's type known, so its name with a histogram's suffix is not.
	things.WithLabelValues("a").Inc()
	names := metricNames(`sum(rate(clearvest_things_total[5m])) / sum(rate(clearvest_wait_seconds_count[5m]))
		+ histogram_quantile(0.9, rate(clearvest_wait_seconds_bucket[5m])) + clearvest_thngs_total + clearvest_things_total_sum`)
	got := unregisteredMetrics(reg, names)
	want := []string{"clearvest_things_total_sum", "clearvest_thngs_total"}
	if !slices.Equal(got, want) {
		t.Errorf("unregistered %v, want %v", got, want)
	}
	// The probe leaves the registry as it was: checking twice gives the same answer.
	if again := unregisteredMetrics(reg, names); !slices.Equal(again, want) {
		t.Errorf("second check %v, want %v", again, want)
	}
}

var metricNameRE = regexp.MustCompile(`\bclearvest_[a-zA-Z0-9_]+`)

// metricNames lists the clearvest_* names in PromQL text, sorted and without repeats.
func metricNames(exprs ...string) []string {
	var out []string
	for _, e := range exprs {
		out = append(out, metricNameRE.FindAllString(e, -1)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// alertNames reads the names from the rules' expressions and from annotations, which may query.
func alertNames(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Expr        string            `yaml:"expr"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
			for _, a := range r.Annotations {
				exprs = append(exprs, a)
			}
		}
	}
	return metricNames(exprs...)
}

// dashboardNames reads the names from every panel query and template variable query.
func dashboardNames(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				walk(k, c)
			}
		case []any:
			for _, c := range v {
				walk(key, c)
			}
		case string:
			if key == "expr" || key == "query" || key == "definition" {
				exprs = append(exprs, v)
			}
		}
	}
	walk("", doc)
	return metricNames(exprs...)
}

// unregisteredMetrics returns the names no collector of reg describes; a histogram's _bucket,
// _sum and _count series count as its name. It asks the registry itself, not Gather: a vector
// nobody has used yet has no series but is registered all the same.
//
// The registry has no list of its descriptors, but it refuses a descriptor whose name it knows
// with other labels or help; a probe with a help text nobody uses tells whether it knows a name.
func unregisteredMetrics(reg *prometheus.Registry, names []string) []string {
	var missing []string
	for _, name := range names {
		known := registered(reg, name)
		if !known {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if base, ok := strings.CutSuffix(name, suffix); ok && registered(reg, base) && isHistogram(reg, base) {
					known = true
				}
			}
		}
		if !known {
			missing = append(missing, name)
		}
	}
	return missing
}

func registered(reg *prometheus.Registry, name string) bool {
	probe := probeCollector{prometheus.NewDesc(name, "probe of whether the name is registered", nil, nil)}
	if err := reg.Register(probe); err != nil {
		return strings.Contains(err.Error(), "same fully-qualified name")
	}
	reg.Unregister(probe)
	return false
}

// isHistogram tells a histogram (or summary) from a counter that merely ends in _count: only
// those expose the suffixed series. A vector with no series yet is taken on trust.
func isHistogram(reg *prometheus.Registry, name string) bool {
	families, err := reg.Gather()
	if err != nil {
		return true
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetType().String() == "HISTOGRAM" || f.GetType().String() == "SUMMARY"
		}
	}
	return true
}

type probeCollector struct{ desc *prometheus.Desc }

func (p probeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }
func (p probeCollector) Collect(chan<- prometheus.Metric)    {}

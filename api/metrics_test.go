package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"clearvest/api"
)

func TestMetricsExposeRequestLatencyByRoute(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	// Other packages register their collectors in the same registry.
	other := prometheus.NewCounter(prometheus.CounterOpts{Name: "clearvest_test_other_total", Help: "x"})
	reg.MustRegister(other)
	other.Inc()

	srv := start(t, api.Deps{Metrics: reg, Assets: uiBuild()})
	scraper := httptest.NewServer(api.MetricsHandler(reg, nil))
	t.Cleanup(scraper.Close)
	for _, path := range []string{"/api/meta", "/api/meta", "/api/nope", "/withdrawal/42"} {
		get(t, srv, path)
	}
	res := get(t, scraper, "/metrics")
	if res.status != http.StatusOK {
		t.Fatalf("status = %d", res.status)
	}
	body := string(res.body)
	for _, want := range []string{
		"# TYPE clearvest_http_request_duration_seconds histogram",
		`clearvest_http_request_duration_seconds_count{method="GET",route="/api/meta",status="2xx"} 2`,
		`clearvest_http_request_duration_seconds_count{method="GET",route="/api/*",status="4xx"} 1`,
		`clearvest_http_request_duration_seconds_count{method="GET",route="/*",status="2xx"} 1`,
		`clearvest_http_request_duration_seconds_bucket{method="GET",route="/api/meta",status="2xx",le="+Inf"} 2`,
		// The scrape does not pass through the public listener.
		"clearvest_http_requests_in_flight 0",
		"clearvest_test_other_total 1",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(body, "/withdrawal/42") {
		t.Error("a raw path became a label value")
	}

	t.Run("the public listener does not serve them", func(t *testing.T) {
		t.Parallel()
		res := get(t, srv, "/metrics")
		if res.status != http.StatusNotFound || strings.Contains(string(res.body), "clearvest_") {
			t.Errorf("public GET /metrics = %d %.80s, want a 404 without metrics", res.status, res.body)
		}
	})

	t.Run("two routers can share a registry", func(t *testing.T) {
		t.Parallel()
		srv2 := start(t, api.Deps{Metrics: reg})
		if res := get(t, srv2, "/healthz"); res.status != http.StatusOK {
			t.Errorf("status = %d", res.status)
		}
	})
}

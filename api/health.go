package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"clearvest/api/apigen"
	"clearvest/api/httperr"
	"clearvest/api/middleware"
	"clearvest/eventstore/postgres"
)

// readyTimeout bounds all readiness checks together; a probe that hangs is a failed probe.
const readyTimeout = 2 * time.Second

// healthz answers as long as the process can serve HTTP. It checks nothing else on purpose:
// restarting the process would not fix a database outage.
func healthz(w http.ResponseWriter, _ *http.Request) {
	writeStatus(w, http.StatusOK, probeResult{Status: "ok"})
}

type probeResult struct {
	Status  string   `json:"status"`
	Reasons []string `json:"reasons,omitempty"`
	// Details are worth knowing but do not make the process unready: traffic elsewhere would
	// not fix them.
	Details []string `json:"details,omitempty"`
}

// ReadinessDetail returns one line for /readyz's details, or "" when there is nothing to say.
// *money.Service's MaturityDetail is one.
type ReadinessDetail func(ctx context.Context) (string, error)

// readyz tells a load balancer whether to send this process traffic: the database must answer,
// every projection must be running (not parked at a failed event, not stood down for a newer
// definition) and nearly caught up, and new events must sort above the log's head (they do not
// in a restored database until serve or migrate moves positions on). The endpoint is public:
// reasons name projections and positions, and underlying errors are only logged.
type readyz struct {
	db          Pinger
	projections ReadinessChecker
	positions   PositionChecker
	details     []ReadinessDetail
}

func (h readyz) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	log := middleware.Logger(ctx)
	var reasons []string

	switch {
	case h.db == nil:
		reasons = append(reasons, "database check not configured")
	default:
		if err := h.db.Ping(ctx); err != nil {
			log.WarnContext(ctx, "readiness: database ping failed", "error", err)
			reasons = append(reasons, "database unreachable")
		}
	}

	switch {
	case h.projections == nil:
		reasons = append(reasons, "projection check not configured")
	default:
		notReady, err := h.projections.NotReady(ctx)
		if err != nil {
			log.WarnContext(ctx, "readiness: projection state unknown", "error", err)
			reasons = append(reasons, "projection state unknown")
		}
		reasons = append(reasons, notReady...)
	}

	if h.positions != nil {
		if err := h.positions.CheckPositions(ctx); errors.Is(err, postgres.ErrPositionsBehind) {
			log.ErrorContext(ctx, "readiness: the event log's head is above the next append's position; run clearvest migrate", "error", err)
			reasons = append(reasons, "event positions need moving on after a restore")
		} else if err != nil {
			log.WarnContext(ctx, "readiness: event positions unchecked", "error", err)
			reasons = append(reasons, "event positions unchecked")
		}
	}

	var details []string
	for _, detail := range h.details {
		d, err := detail(ctx)
		if err != nil {
			log.WarnContext(ctx, "readiness: a detail could not be read", "error", err)
			continue
		}
		if d != "" {
			details = append(details, d)
		}
	}

	if len(reasons) > 0 {
		writeStatus(w, http.StatusServiceUnavailable, probeResult{Status: "unavailable", Reasons: reasons, Details: details})
		return
	}
	writeStatus(w, http.StatusOK, probeResult{Status: "ready", Details: details})
}

func writeStatus(w http.ResponseWriter, status int, body probeResult) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// openAPIDocument serves the API document embedded in the generated server, so the served
// contract is exactly the one the server was built from.
func openAPIDocument(w http.ResponseWriter, r *http.Request) {
	doc, err := apigen.GetSpecJSON()
	if err != nil {
		httperr.Write(w, r, fmt.Errorf("decoding embedded OpenAPI document: %w", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(doc)
}

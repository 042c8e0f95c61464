package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/projections"
)

// TestReadyzNamesAParkedProjection runs /readyz over the real runner: an event the users read
// model cannot decode parks it, the probe says so by name, and skipping the event makes the
// process ready again.
func TestReadyzNamesAParkedProjection(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	srv := start(t, api.Deps{Health: env.Pool, Readiness: env.Runner})
	ready := func() (int, []string) {
		res := get(t, srv, "/readyz")
		var body struct{ Reasons []string }
		if err := json.Unmarshal(res.body, &body); err != nil {
			t.Fatalf("/readyz body %q: %v", res.body, err)
		}
		return res.status, body.Reasons
	}
	waitReady := func(what string, want func(int, []string) bool) (int, []string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			status, reasons := ready()
			if want(status, reasons) {
				return status, reasons
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: /readyz stayed %d %q", what, status, reasons)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitReady("before the bad event", func(status int, _ []string) bool { return status == http.StatusOK })

	bad, err := env.Store.Append(context.Background(), eventstore.StreamAppend{
		Stream: eventstore.NewStreamID(identity.StreamCategory, eventstore.NewEventID().String()), ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: identity.TypeRegistered, SchemaVersion: 1, Data: []byte(`{"userId": 42}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	position := bad[0].Position
	parked := fmt.Sprintf("projection users failed at position %d and is parked", position)
	_, reasons := waitReady("after the bad event", func(status int, reasons []string) bool {
		return status == http.StatusServiceUnavailable && slices.Contains(reasons, parked)
	})
	for _, r := range reasons {
		if strings.Contains(r, "userId") || strings.Contains(r, "json") {
			t.Errorf("readiness reason leaks the error text: %q", r)
		}
	}

	for _, name := range env.Runner.Names() {
		_, err := env.Runner.Skip(context.Background(), projections.SkipRequest{Name: name, Position: position, Reason: "malformed test event", By: "test"})
		if err != nil {
			t.Fatalf("skip for %s: %v", name, err)
		}
	}
	waitReady("after skipping the event", func(status int, _ []string) bool { return status == http.StatusOK })
}

// TestReadyzDetailsDoNotMakeItUnready gives /readyz a detail to report (the maturity job's
// parked accounts): the probe shows it and stays ready.
func TestReadyzDetailsDoNotMakeItUnready(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	srv := start(t, api.Deps{Health: env.Pool, Readiness: env.Runner, Details: []api.ReadinessDetail{
		func(context.Context) (string, error) {
			return "maturity: 2 accounts could not be settled and are parked", nil
		},
		func(context.Context) (string, error) { return "", nil },
		func(context.Context) (string, error) { return "", fmt.Errorf("unreadable") },
	}})
	deadline := time.Now().Add(20 * time.Second)
	for {
		res := get(t, srv, "/readyz")
		var body struct {
			Status  string
			Details []string
		}
		if err := json.Unmarshal(res.body, &body); err != nil {
			t.Fatalf("/readyz body %q: %v", res.body, err)
		}
		if res.status == http.StatusOK {
			if body.Status != "ready" || !slices.Equal(body.Details, []string{"maturity: 2 accounts could not be settled and are parked"}) {
				t.Fatalf("/readyz: %s", res.body)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz stayed %d: %s", res.status, res.body)
		}
		time.Sleep(10 * time.Millisecond) // polls a probe, as a load balancer does; no ordering rests on it
	}
}

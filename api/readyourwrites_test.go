package api_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"clearvest/api"
	"clearvest/api/middleware"
)

// signedInApp is an app with one signed-in member whose bearer token the tests send.
func signedInApp(t *testing.T) (*app, string) {
	t.Helper()
	a := newApp(t)
	_, u := a.member(t, "reader@example.com", "subscriber")
	return a, u.Token
}

// query sends GET (or HEAD) /api/meta with the given position header values.
func query(t *testing.T, a *app, token, method string, positions ...string) response {
	t.Helper()
	c := a.apiClient(t, token)
	if len(positions) > 0 {
		c.header[middleware.HeaderPosition] = positions
	}
	return c.do(method, "/api/meta", nil)
}

// gateWaiter reports each position it is asked for, then blocks until release is closed.
type gateWaiter struct {
	asked   chan int64
	release chan struct{}
}

func (g *gateWaiter) WaitFor(ctx context.Context, position int64) error {
	g.asked <- position
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recordingWaiter returns err at once and counts its calls.
type recordingWaiter struct {
	err   error
	calls atomic.Int64
	last  atomic.Int64
}

func (w *recordingWaiter) WaitFor(_ context.Context, position int64) error {
	w.calls.Add(1)
	w.last.Store(position)
	return w.err
}

func TestReadYourWritesWaitsForThePosition(t *testing.T) {
	t.Parallel()
	base, token := signedInApp(t)
	waiter := &gateWaiter{asked: make(chan int64, 1), release: make(chan struct{})}
	a := newAppWaitingOn(t, base, waiter)

	done := make(chan response, 1)
	go func() { done <- query(t, a, token, http.MethodGet, "4217") }()

	if got := <-waiter.asked; got != 4217 {
		t.Fatalf("waited for position %d, want 4217", got)
	}
	select {
	case res := <-done:
		t.Fatalf("answered (%d) before the read models caught up", res.status)
	default:
	}
	close(waiter.release)

	res := <-done
	if res.status != http.StatusOK {
		t.Fatalf("status = %d, body %q", res.status, res.body)
	}
	if got := res.header.Get(middleware.HeaderStale); got != "" {
		t.Errorf("%s = %q after a successful wait", middleware.HeaderStale, got)
	}
}

func TestReadYourWritesServesStaleWhenTheWaitFails(t *testing.T) {
	t.Parallel()
	base, token := signedInApp(t)
	tests := []struct {
		name   string
		waiter api.Waiter
	}{
		{"wait timed out", &recordingWaiter{err: context.DeadlineExceeded}},
		{"waiter failed", &recordingWaiter{err: errors.New("projection stopped")}},
		{"no waiter configured", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := query(t, newAppWaitingOn(t, base, tt.waiter), token, http.MethodGet, "9")
			if res.status != http.StatusOK {
				t.Fatalf("status = %d, want 200 (body %q)", res.status, res.body)
			}
			if got := res.header.Get(middleware.HeaderStale); got != "true" {
				t.Errorf("%s = %q, want true", middleware.HeaderStale, got)
			}
		})
	}
}

func TestReadYourWritesHeaderHandling(t *testing.T) {
	t.Parallel()
	base, token := signedInApp(t)
	tests := []struct {
		name     string
		method   string
		values   []string
		status   int
		waitedAt int64 // 0: the waiter must not be called
	}{
		{"no header", http.MethodGet, nil, http.StatusOK, 0},
		{"position", http.MethodGet, []string{"17"}, http.StatusOK, 17},
		{"leading zeros", http.MethodGet, []string{"0017"}, http.StatusOK, 17},
		{"largest position", http.MethodGet, []string{"9223372036854775807"}, http.StatusOK, 9223372036854775807},
		{"position zero needs no wait", http.MethodGet, []string{"0"}, http.StatusOK, 0},
		{"HEAD waits too", http.MethodHead, []string{"5"}, http.StatusOK, 5},
		{"commands ignore it", http.MethodPost, []string{"garbage"}, http.StatusMethodNotAllowed, 0},
		{"letters", http.MethodGet, []string{"abc"}, http.StatusBadRequest, 0},
		{"negative", http.MethodGet, []string{"-1"}, http.StatusBadRequest, 0},
		{"plus sign", http.MethodGet, []string{"+1"}, http.StatusBadRequest, 0},
		{"exponent", http.MethodGet, []string{"1e3"}, http.StatusBadRequest, 0},
		{"hex", http.MethodGet, []string{"0x10"}, http.StatusBadRequest, 0},
		{"decimal", http.MethodGet, []string{"1.5"}, http.StatusBadRequest, 0},
		{"overflow", http.MethodGet, []string{"9223372036854775808"}, http.StatusBadRequest, 0},
		{"empty", http.MethodGet, []string{""}, http.StatusBadRequest, 0},
		{"two values", http.MethodGet, []string{"1", "2"}, http.StatusBadRequest, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			waiter := &recordingWaiter{}
			res := query(t, newAppWaitingOn(t, base, waiter), token, tt.method, tt.values...)
			if res.status != tt.status {
				t.Fatalf("status = %d, want %d (body %q)", res.status, tt.status, res.body)
			}
			if tt.status == http.StatusBadRequest {
				if msg := errorMessage(t, res); msg != "The X-Clearvest-Position header must be a whole number, zero or more." {
					t.Errorf("message = %q", msg)
				}
			}
			switch calls := waiter.calls.Load(); {
			case tt.waitedAt == 0 && calls != 0:
				t.Errorf("waiter called %d times, want none", calls)
			case tt.waitedAt != 0 && (calls != 1 || waiter.last.Load() != tt.waitedAt):
				t.Errorf("waiter called %d times, last at %d; want once at %d", calls, waiter.last.Load(), tt.waitedAt)
			}
		})
	}
}

// TestAnonymousCallersNeverWait: waiting costs the server, so a caller who is not signed in
// cannot ask for it, whatever position (or junk) they send.
func TestAnonymousCallersNeverWait(t *testing.T) {
	t.Parallel()
	base, _ := signedInApp(t)
	waiter := &recordingWaiter{err: errors.New("must not be asked")}
	a := newAppWaitingOn(t, base, waiter)
	for _, tc := range []struct{ who, token, position string }{
		{"no token", "", "9223372036854775807"},
		{"an invalid token", "not-a-token", "9223372036854775807"},
		{"no token, junk position", "", "abc"},
	} {
		res := query(t, a, tc.token, http.MethodGet, tc.position)
		if res.status != http.StatusOK || res.header.Get(middleware.HeaderStale) != "" {
			t.Errorf("%s: status %d, stale %q; want 200 and no wait", tc.who, res.status, res.header.Get(middleware.HeaderStale))
		}
	}
	if n := waiter.calls.Load(); n != 0 {
		t.Fatalf("anonymous requests waited %d times", n)
	}
}

// TestAPositionBeyondTheHeadWaitsForTheHeadOnly: with the real read models, a signed-in caller
// sending the largest position gets fresh data, not a wait until the timeout and a stale mark.
func TestAPositionBeyondTheHeadWaitsForTheHeadOnly(t *testing.T) {
	t.Parallel()
	a, token := signedInApp(t)
	c := a.apiClient(t, token)
	c.header[middleware.HeaderPosition] = []string{"9223372036854775807"}
	res := c.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusOK)
	if got := res.header.Get(middleware.HeaderStale); got != "" {
		t.Fatalf("%s = %q: the request waited for a position the log never reached", middleware.HeaderStale, got)
	}
}

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
	waiter := &gateWaiter{asked: make(chan int64, 1), release: make(chan struct{})}
	srv := start(t, api.Deps{ReadYourWrites: waiter})

	done := make(chan response, 1)
	go func() {
		done <- do(t, srv, http.MethodGet, "/api/meta", http.Header{middleware.HeaderPosition: {"4217"}}, nil)
	}()

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
			srv := start(t, api.Deps{ReadYourWrites: tt.waiter})
			res := do(t, srv, http.MethodGet, "/api/meta", http.Header{middleware.HeaderPosition: {"9"}}, nil)
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
			srv := start(t, api.Deps{ReadYourWrites: waiter})
			h := http.Header{}
			for _, v := range tt.values {
				h.Add(middleware.HeaderPosition, v)
			}
			res := do(t, srv, tt.method, "/api/meta", h, nil)
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

package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"clearvest/api/httperr"
	"clearvest/api/middleware"
)

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestBodyLimitStopsAStreamedBody(t *testing.T) {
	t.Parallel()
	handler := middleware.RequestID(discard())(middleware.BodyLimit(16)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			httperr.WriteRequestError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})))
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	tests := []struct {
		name   string
		size   int
		status int
	}{
		{"within the limit", 16, http.StatusNoContent},
		{"over the limit, no Content-Length", 17, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Hiding the reader's type makes the client stream the body chunked, with no
			// Content-Length for the middleware to check up front.
			body := io.MultiReader(strings.NewReader(strings.Repeat("x", tt.size)))
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, body)
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d", res.StatusCode, tt.status)
			}
			if req.ContentLength != 0 {
				t.Fatalf("request had a Content-Length")
			}
		})
	}
}

func TestRecoverAbortsAResponseAlreadyStarted(t *testing.T) {
	t.Parallel()
	handler := middleware.RequestID(discard())(middleware.Recover(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, `{"balance":`)
		w.(http.Flusher).Flush()
		panic("half way")
	})))
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	res, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.ReadAll(res.Body); err == nil {
		t.Error("a truncated response was delivered as if complete")
	}
}

func TestRecoverAnswersJSON(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	handler := middleware.RequestID(slog.New(slog.NewJSONHandler(&logs, nil)))(
		middleware.Recover(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			panic(errors.New("nil map in ledger"))
		})))
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/x", nil))

	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d", w.Code)
	}
	if strings.TrimSpace(w.Body.String()) != `{"message":"`+httperr.InternalMessage+`"}` {
		t.Errorf("body = %q", w.Body.String())
	}
	if !strings.Contains(logs.String(), "nil map in ledger") {
		t.Errorf("panic not logged: %s", logs.String())
	}
}

func TestAccessLogNamesTheRouteNotThePath(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	r := chi.NewRouter()
	r.Use(middleware.RequestID(slog.New(slog.NewJSONHandler(&logs, nil))), middleware.AccessLog("/healthz"))
	r.Patch("/api/users/verifyUser/{token}", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "hello")
	})
	r.Get("/healthz", func(http.ResponseWriter, *http.Request) {})

	req := httptest.NewRequest(http.MethodPatch, "/api/users/verifyUser/s3cr3t-token?email=ann%40example.com", nil)
	req.Header.Set(middleware.HeaderRequestID, "trace-9")
	r.ServeHTTP(httptest.NewRecorder(), req)
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))

	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one info line (health probes are debug), got:\n%s", logs.String())
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &entry); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"msg": "http request", "method": "PATCH", "route": "/api/users/verifyUser/{token}",
		"status": float64(202), "bytes": float64(5), "request_id": "trace-9",
	}
	for k, v := range want {
		if entry[k] != v {
			t.Errorf("%s = %v, want %v", k, entry[k], v)
		}
	}
	if _, ok := entry["duration_ms"].(float64); !ok {
		t.Errorf("duration_ms missing: %s", lines[0])
	}
	for _, secret := range []string{"s3cr3t", "example.com", "email"} {
		if strings.Contains(lines[0], secret) {
			t.Errorf("access log leaks %q: %s", secret, lines[0])
		}
	}
}

// blockingWaiter blocks until its context ends and reports that it did.
type blockingWaiter struct {
	started chan struct{}
	ended   chan error
}

func (b *blockingWaiter) WaitFor(ctx context.Context, _ int64) error {
	close(b.started)
	<-ctx.Done()
	b.ended <- ctx.Err()
	return ctx.Err()
}

func TestReadYourWritesCapsTheWait(t *testing.T) {
	t.Parallel()
	waiter := &blockingWaiter{started: make(chan struct{}), ended: make(chan error, 1)}
	handler := middleware.RequestID(discard())(middleware.ReadYourWrites(waiter, nil, 1, signedIn)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	})))
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/x", nil)
	req.Header.Set(middleware.HeaderPosition, "3")
	handler.ServeHTTP(w, req)

	if err := <-waiter.ended; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiter ended with %v, want the cap's deadline", err)
	}
	if w.Code != http.StatusOK || w.Header().Get(middleware.HeaderStale) != "true" {
		t.Errorf("got %d stale=%q, want 200 stale=true", w.Code, w.Header().Get(middleware.HeaderStale))
	}
}

func TestReadYourWritesStopsWhenTheClientLeaves(t *testing.T) {
	t.Parallel()
	waiter := &blockingWaiter{started: make(chan struct{}), ended: make(chan error, 1)}
	var handlerRan bool
	handler := middleware.ReadYourWrites(waiter, nil, 0, signedIn)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		handlerRan = true
	}))
	ctx, cancel := context.WithCancel(t.Context())
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/x", nil)
	req.Header.Set(middleware.HeaderPosition, "3")
	w := httptest.NewRecorder()
	go func() {
		<-waiter.started
		cancel()
	}()
	handler.ServeHTTP(w, req)

	if handlerRan {
		t.Error("handler ran for a client that left")
	}
	if w.Code != httperr.StatusClientClosedRequest {
		t.Errorf("status = %d, want %d", w.Code, httperr.StatusClientClosedRequest)
	}
}

func TestValidRequestID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"abc":                   true,
		"A-b_9":                 true,
		strings.Repeat("x", 64): true,
		strings.Repeat("x", 65): false,
		"":                      false,
		"a b":                   false,
		"a\nb":                  false,
		"a/b":                   false,
		"ünï":                   false,
	} {
		if got := middleware.ValidRequestID(id); got != want {
			t.Errorf("ValidRequestID(%q) = %v, want %v", id, got, want)
		}
	}
}

// FuzzPositionHeader sends arbitrary X-Clearvest-Position values through the middleware: it must
// never panic, must answer 400 or pass through, and must wait for exactly the decimal value
// when it accepts one.
func FuzzPositionHeader(f *testing.F) {
	for _, s := range []string{"0", "1", "42", "0042", "9223372036854775807", "9223372036854775808",
		"-1", "+1", "1e9", "0x1f", " 1", "1 ", "", "١٢", "99999999999999999999999", "1\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		var waitedFor int64 = -1
		waiter := waiterFunc(func(_ context.Context, pos int64) error { waitedFor = pos; return nil })
		called := false
		handler := middleware.ReadYourWrites(waiter, nil, 0, signedIn)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			called = true
		}))
		req := httptest.NewRequest(http.MethodGet, "/api/x", nil)
		req.Header.Set(middleware.HeaderPosition, value)
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, req)

		want, err := strconv.ParseInt(value, 10, 64)
		// Leading zeros are accepted, but no value longer than an int64 can ever be.
		valid := err == nil && want >= 0 && value != "" && len(value) <= 19 && strings.Trim(value, "0123456789") == ""
		switch {
		case valid && (!called || w.Code != http.StatusOK):
			t.Fatalf("%q refused (status %d)", value, w.Code)
		case valid && want > 0 && waitedFor != want:
			t.Fatalf("%q: waited for %d", value, waitedFor)
		case !valid && (called || w.Code != http.StatusBadRequest):
			t.Fatalf("%q accepted (status %d, handler ran %v)", value, w.Code, called)
		}

		pos, perr := middleware.ParsePosition(value)
		if (perr == nil) != valid || (valid && pos != want) {
			t.Fatalf("ParsePosition(%q) = %d, %v", value, pos, perr)
		}
	})
}

// FuzzRequestID checks that whatever a client sends as X-Request-ID, the ID the server uses is
// a safe one.
func FuzzRequestID(f *testing.F) {
	for _, s := range []string{"", "abc", strings.Repeat("a", 64), strings.Repeat("a", 65), "a\"b", "a\r\nb", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, incoming string) {
		var seen string
		handler := middleware.RequestID(discard())(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			seen = middleware.RequestIDFrom(r.Context())
		}))
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set(middleware.HeaderRequestID, incoming)
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, req)

		echoed := w.Header().Get(middleware.HeaderRequestID)
		if echoed != seen || !middleware.ValidRequestID(echoed) {
			t.Fatalf("incoming %q: echoed %q, context %q", incoming, echoed, seen)
		}
		if middleware.ValidRequestID(incoming) && echoed != incoming {
			t.Fatalf("valid id %q replaced by %q", incoming, echoed)
		}
	})
}

// signedIn stands for authentication having found a signed-in caller.
func signedIn(*http.Request) bool { return true }

type waiterFunc func(context.Context, int64) error

func (f waiterFunc) WaitFor(ctx context.Context, pos int64) error { return f(ctx, pos) }

// recordingRouter is a ReadRouter that records the positions it was asked about; it chooses a
// replica for the positions in replicaFor, and puts its fellBack in the context for the handler.
type recordingRouter struct {
	asked      []int64
	replicaFor map[int64]bool
}

type routeKey struct{}

func (r *recordingRouter) Route(ctx context.Context, position int64, _ time.Duration, fellBack func()) (context.Context, bool) {
	r.asked = append(r.asked, position)
	return context.WithValue(ctx, routeKey{}, fellBack), r.replicaFor[position]
}

func TestReadYourWritesRoutesSafeRequests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		method    string
		position  string
		signedIn  bool
		waitErr   error
		fallBack  bool
		wantAsked []int64 // nil: the router is not asked
		wantFrom  string
	}{
		{name: "unpositioned read", method: http.MethodGet, wantAsked: []int64{0}, wantFrom: "replica"},
		{name: "anonymous read ignores the position", method: http.MethodGet, position: "7", wantAsked: []int64{0}, wantFrom: "replica"},
		{name: "positioned read the replica has replayed", method: http.MethodGet, position: "7", signedIn: true, wantAsked: []int64{7}, wantFrom: "replica"},
		{name: "positioned read the replica has not replayed", method: http.MethodGet, position: "9", signedIn: true, wantAsked: []int64{9}, wantFrom: "primary"},
		{name: "primary wait failed", method: http.MethodGet, position: "7", signedIn: true, waitErr: errors.New("slow"), wantAsked: []int64{-1}, wantFrom: "primary"},
		{name: "replica query fell back", method: http.MethodHead, fallBack: true, wantAsked: []int64{0}, wantFrom: "primary"},
		{name: "commands stay on the primary", method: http.MethodPost, position: "7", signedIn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			router := &recordingRouter{replicaFor: map[int64]bool{0: true, 7: true}}
			waiter := waiterFunc(func(context.Context, int64) error { return tc.waitErr })
			handler := middleware.RequestID(discard())(middleware.ReadYourWrites(waiter, router, time.Second,
				func(*http.Request) bool { return tc.signedIn })(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if fellBack, _ := r.Context().Value(routeKey{}).(func()); tc.fallBack && fellBack != nil {
					fellBack()
				}
				w.WriteHeader(http.StatusOK)
			})))
			req := httptest.NewRequest(tc.method, "/api/x", nil)
			if tc.position != "" {
				req.Header.Set(middleware.HeaderPosition, tc.position)
			}
			w := httptest.NewRecorder()
			handler.ServeHTTP(w, req)
			if !slices.Equal(router.asked, tc.wantAsked) || w.Header().Get(middleware.HeaderReadFrom) != tc.wantFrom {
				t.Errorf("router asked %v, %s %q; want %v and %q", router.asked, middleware.HeaderReadFrom,
					w.Header().Get(middleware.HeaderReadFrom), tc.wantAsked, tc.wantFrom)
			}
		})
	}

	// Without a router nothing is routed and no header is sent.
	handler := middleware.ReadYourWrites(nil, nil, time.Second, signedIn)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/x", nil))
	if got := w.Header().Values(middleware.HeaderReadFrom); got != nil {
		t.Errorf("%s = %q without replicas", middleware.HeaderReadFrom, got)
	}
}

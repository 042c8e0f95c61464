package httperr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/api/httperr"
	"clearvest/api/internal/reqctx"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/platform/pgavail"
)

var errInsufficient = domainerr.New(domainerr.RuleBroken, "Insufficient balance")

// tooFast is a rate-limit error that knows when to come back.
type tooFast struct {
	err   *domainerr.Error
	after time.Duration
}

func (e tooFast) Error() string             { return e.err.Error() }
func (e tooFast) Kind() domainerr.Kind      { return e.err.Kind() }
func (e tooFast) RetryAfter() time.Duration { return e.after }

type body struct {
	Message *string `json:"message"`
	Field   *string `json:"field"`
}

type result struct {
	status int
	header http.Header
	body   body
	raw    string
	log    string
}

// write calls fn on a fresh request whose context carries a request ID and a logger.
func write(t *testing.T, ctx context.Context, fn func(http.ResponseWriter, *http.Request)) result {
	t.Helper()
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/x", nil)
	r = r.WithContext(reqctx.WithRequestID(r.Context(), "req-1", logger.With("request_id", "req-1")))
	w := httptest.NewRecorder()
	fn(w, r)

	var b body
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || b.Message == nil {
		t.Fatalf("body %q is not {\"message\": ...}: %v", w.Body.String(), err)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	return result{status: w.Code, header: w.Header(), body: b, raw: w.Body.String(), log: logs.String()}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	secret := errors.New("pq: password authentication failed for user clearvest at 10.0.0.5")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name       string
		ctx        context.Context
		err        error
		status     int
		message    string
		field      string
		retryAfter string
	}{
		{"invalid field", nil, domainerr.Field("email", "Please enter a valid email"), 400, "Please enter a valid email", "email", ""},
		{"unauthenticated", nil, domainerr.E(domainerr.Unauthenticated, "Invalid email or password"), 401, "Invalid email or password", "", ""},
		{"forbidden", nil, domainerr.E(domainerr.Forbidden, "Your account is suspended"), 403, "Your account is suspended", "", ""},
		{"not found", nil, domainerr.E(domainerr.NotFound, "Withdrawal not found"), 404, "Withdrawal not found", "", ""},
		{"conflict", nil, domainerr.E(domainerr.Conflict, "Email already registered"), 409, "Email already registered", "", ""},
		{"too large", nil, domainerr.E(domainerr.TooLarge, "File size must be less than 10MB."), 413, "File size must be less than 10MB.", "", ""},
		{"unsupported media", nil, domainerr.E(domainerr.UnsupportedMedia, "Only JPEG, PNG or PDF files"), 415, "Only JPEG, PNG or PDF files", "", ""},
		{"rule broken", nil, errInsufficient, 422, "Insufficient balance", "", ""},
		{"sentinel with a specific message", nil, errInsufficient.WithMessage("Insufficient balance: $20.00 available"), 422, "Insufficient balance: $20.00 available", "", ""},
		{"wrapped with an internal cause", nil, fmt.Errorf("start investment: %w", errInsufficient.Wrap(secret)), 422, "Insufficient balance", "", ""},
		{"rate limited", nil, domainerr.E(domainerr.RateLimited, "Too many login attempts"), 429, "Too many login attempts", "", ""},
		{"rate limited with retry after", nil, fmt.Errorf("login: %w", tooFast{domainerr.E(domainerr.RateLimited, "Slow down"), 1500 * time.Millisecond}), 429, "Slow down", "", "2"},
		{"empty message falls back", nil, domainerr.E(domainerr.Forbidden, ""), 403, "You are not allowed to do this.", "", ""},
		{"unknown kind is ours", nil, domainerr.E(domainerr.Kind(99), "weird"), 500, httperr.InternalMessage, "", ""},
		{"concurrency", nil, &eventstore.ConcurrencyError{Stream: "account-1", Expected: 3, Actual: 4}, 409, httperr.ConcurrencyMessage, "", ""},
		{"wrapped concurrency", nil, fmt.Errorf("confirm deposit: %w", &eventstore.ConcurrencyError{}), 409, httperr.ConcurrencyMessage, "", ""},
		{"text the store cannot hold", nil, fmt.Errorf("append: %w: %w", eventstore.ErrInvalidEvent, eventstore.ErrNullCharacter), 400, `Text cannot contain the null character (\u0000).`, "", ""},
		{"another invalid event is ours", nil, fmt.Errorf("append: %w: id, type, schema version and data are required", eventstore.ErrInvalidEvent), 500, httperr.InternalMessage, "", ""},
		{"body too large", nil, fmt.Errorf("decode: %w", &http.MaxBytesError{Limit: 1 << 20}), 413, "The request is too large (the limit is 1 MB).", "", ""},
		{"internal", nil, secret, 500, httperr.InternalMessage, "", ""},
		{"client went away", canceled, fmt.Errorf("query: %w", context.Canceled), httperr.StatusClientClosedRequest, httperr.InternalMessage, "", ""},
		{"cancelled by us is ours", nil, context.Canceled, 500, httperr.InternalMessage, "", ""},
		{"database refused the connection", nil, fmt.Errorf("create deposit: %w", &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 5432}, Err: syscall.ECONNREFUSED}), 503, httperr.UnavailableMessage, "", "3"},
		{"database restarting", nil, fmt.Errorf("load: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P03", Message: "the database system is starting up at 10.0.0.5"}), 503, httperr.UnavailableMessage, "", "3"},
		{"database shut down", nil, &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}, 503, httperr.UnavailableMessage, "", "3"},
		{"classified unavailable", nil, pgavail.Classify(fmt.Errorf("read: %w", io.ErrUnexpectedEOF)), 503, httperr.UnavailableMessage, "", "3"},
		{"client left while the database was away", canceled, fmt.Errorf("query: %w", errors.Join(context.Canceled, syscall.ECONNRESET)), httperr.StatusClientClosedRequest, httperr.InternalMessage, "", ""},
		{"serialization failure is not unavailability", nil, &pgconn.PgError{Code: "40001", Message: "could not serialize access"}, 500, httperr.InternalMessage, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			res := write(t, ctx, func(w http.ResponseWriter, r *http.Request) { httperr.Write(w, r, tt.err) })
			if res.status != tt.status {
				t.Errorf("status = %d, want %d", res.status, tt.status)
			}
			if *res.body.Message != tt.message {
				t.Errorf("message = %q, want %q", *res.body.Message, tt.message)
			}
			switch {
			case tt.field == "" && res.body.Field != nil:
				t.Errorf("field = %q, want none", *res.body.Field)
			case tt.field != "" && (res.body.Field == nil || *res.body.Field != tt.field):
				t.Errorf("field = %v, want %q", res.body.Field, tt.field)
			}
			if got := res.header.Get("Retry-After"); got != tt.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tt.retryAfter)
			}
			if strings.Contains(res.raw, "10.0.0.5") {
				t.Errorf("internal cause leaked: %s", res.raw)
			}
			if cc := res.header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q", cc)
			}
			if res.status == 503 && !strings.Contains(res.log, "database unavailable") {
				t.Errorf("503 not logged: %s", res.log)
			}
			if res.status == 500 {
				if !strings.Contains(res.log, `"level":"ERROR"`) || !strings.Contains(res.log, `"request_id":"req-1"`) {
					t.Errorf("500 not logged as an error with its request id: %s", res.log)
				}
			} else if strings.Contains(res.log, `"level":"ERROR"`) {
				t.Errorf("client error logged as a server error: %s", res.log)
			}
		})
	}
}

func TestWriteRequestError(t *testing.T) {
	t.Parallel()
	typeErr := json.Unmarshal([]byte(`{"amount": true}`), &struct {
		Amount string `json:"amount"`
	}{})

	tests := []struct {
		name    string
		err     error
		status  int
		message string
		field   string
	}{
		{"not JSON", fmt.Errorf("can't decode JSON body: %w", json.Unmarshal([]byte(`{"amount":`), &struct{}{})), 400, httperr.MalformedMessage, ""},
		{"wrong type", fmt.Errorf("can't decode JSON body: %w", typeErr), 400, `The field "amount" has the wrong type.`, "amount"},
		{"body too large", fmt.Errorf("can't decode JSON body: %w", &http.MaxBytesError{Limit: 2048}), 413, "The request is too large (the limit is 2 KB).", ""},
		{"classified passes through", domainerr.Field("amount", "Amount is required"), 400, "Amount is required", "amount"},
		{"anything else is the client's", errors.New("unexpected EOF"), 400, httperr.MalformedMessage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := write(t, context.Background(), func(w http.ResponseWriter, r *http.Request) { httperr.WriteRequestError(w, r, tt.err) })
			if res.status != tt.status || *res.body.Message != tt.message {
				t.Errorf("got %d %q, want %d %q", res.status, *res.body.Message, tt.status, tt.message)
			}
			if tt.field != "" && (res.body.Field == nil || *res.body.Field != tt.field) {
				t.Errorf("field = %v, want %q", res.body.Field, tt.field)
			}
		})
	}
}

func TestRespond(t *testing.T) {
	t.Parallel()
	res := write(t, context.Background(), func(w http.ResponseWriter, r *http.Request) {
		httperr.Respond(w, r, http.StatusNotFound, httperr.NotFoundMessage)
	})
	if res.status != 404 || *res.body.Message != "Not found" || res.body.Field != nil {
		t.Errorf("got %d %s", res.status, res.raw)
	}
}

// startedWriter is a ResponseWriter whose response is already under way.
type startedWriter struct{ *httptest.ResponseRecorder }

func (startedWriter) Written() bool { return true }

func TestWriteAfterTheResponseStartedOnlyLogs(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	rec.WriteHeader(http.StatusOK)
	_, _ = rec.WriteString(`{"partial":`)
	var logs bytes.Buffer
	r := httptest.NewRequest(http.MethodGet, "/api/x", nil)
	r = r.WithContext(reqctx.WithRequestID(r.Context(), "req-2", slog.New(slog.NewJSONHandler(&logs, nil))))
	httperr.Write(startedWriter{rec}, r, errors.New("encoder failed"))
	if rec.Code != http.StatusOK || rec.Body.String() != `{"partial":` {
		t.Errorf("response changed after it started: %d %q", rec.Code, rec.Body.String())
	}
	if !strings.Contains(logs.String(), "encoder failed") {
		t.Errorf("failure not logged: %s", logs.String())
	}
}

func TestTooLargeMessage(t *testing.T) {
	t.Parallel()
	for limit, want := range map[int64]string{
		1 << 20:  "The request is too large (the limit is 1 MB).",
		10 << 20: "The request is too large (the limit is 10 MB).",
		512:      "The request is too large (the limit is 512 bytes).",
		1536:     "The request is too large (the limit is 1536 bytes).",
		64 << 10: "The request is too large (the limit is 64 KB).",
	} {
		if got := httperr.TooLargeMessage(limit); got != want {
			t.Errorf("TooLargeMessage(%d) = %q, want %q", limit, got, want)
		}
	}
}

// newDevice is a new_device refusal with the pending sign-in it opened.
type newDevice struct{ token string }

func (e newDevice) Error() string        { return "New browser or device detected." }
func (e newDevice) Kind() domainerr.Kind { return domainerr.Unauthenticated }
func (e newDevice) ErrorCode() string    { return "new_device" }
func (e newDevice) PendingLogin() string { return e.token }

func TestWritePendingLogin(t *testing.T) {
	t.Parallel()
	res := write(t, context.Background(), func(w http.ResponseWriter, r *http.Request) {
		httperr.Write(w, r, fmt.Errorf("login: %w", newDevice{token: "tok-123"}))
	})
	var b struct {
		Code         string `json:"code"`
		PendingLogin string `json:"pendingLogin"`
	}
	if err := json.Unmarshal([]byte(res.raw), &b); err != nil {
		t.Fatal(err)
	}
	if res.status != http.StatusUnauthorized || b.Code != "new_device" || b.PendingLogin != "tok-123" {
		t.Errorf("got %d %s", res.status, res.raw)
	}
	other := write(t, context.Background(), func(w http.ResponseWriter, r *http.Request) {
		httperr.Write(w, r, domainerr.E(domainerr.Unauthenticated, "Invalid email or password"))
	})
	if strings.Contains(other.raw, "pendingLogin") {
		t.Errorf("an ordinary refusal carries pendingLogin: %s", other.raw)
	}
}

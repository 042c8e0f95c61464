package mail

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/clock"
	"clearvest/platform/correlation"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

func newOutboxDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, Migrations); err != nil {
		t.Fatal(err)
	}
	return pool
}

func enqueue(t *testing.T, pool *pgxpool.Pool, key string, msg Message, scrub bool) {
	t.Helper()
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return Enqueue(context.Background(), tx, key, msg, scrub)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func outboxMessage(n int) Message {
	return Message{
		To:      fmt.Sprintf("user%d@example.com", n),
		Subject: fmt.Sprintf("Message %d", n),
		Text:    fmt.Sprintf("Your link: https://clearvest.example.com/verify/secret-%d", n),
		HTML:    fmt.Sprintf(`<p><a href="https://clearvest.example.com/verify/secret-%d">Verify</a></p>`, n),
	}
}

// recorder is a transport that keeps what it is given, or fails while told to.
type recorder struct {
	mu        sync.Mutex
	sent      []Message
	fail      error
	delivered chan Message // optional; receives every successful send
}

func (r *recorder) Send(_ context.Context, m Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.sent = append(r.sent, m)
	if r.delivered != nil {
		r.delivered <- m
	}
	return nil
}

func (r *recorder) setFail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = err
}

func (r *recorder) messages() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.sent...)
}

type row struct {
	status, lastError, text, html string
	attempts                      int
	nextAttempt                   time.Time
	sentAt                        *time.Time
	claimed                       bool
}

func readRow(t *testing.T, pool *pgxpool.Pool, key string) row {
	t.Helper()
	var r row
	var lastErr *string
	err := pool.QueryRow(context.Background(), `SELECT status, coalesce(last_error, ''), text_body, html_body, attempts,
		next_attempt_at, sent_at, claim IS NOT NULL FROM mail_outbox WHERE dedupe_key = $1`, key).
		Scan(&r.status, &lastErr, &r.text, &r.html, &r.attempts, &r.nextAttempt, &r.sentAt, &r.claimed)
	if err != nil {
		t.Fatalf("outbox row %s: %v", key, err)
	}
	r.lastError = *lastErr
	return r
}

func countRows(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM mail_outbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestEnqueueRolledBackLeavesNothing(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := Enqueue(ctx, tx, "evt-1/verification", outboxMessage(1), true); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, pool); n != 0 {
		t.Fatalf("%d rows after rollback, want 0", n)
	}
	rec := &recorder{}
	if n, err := NewSender(pool, rec, WithLogger(quietLogger())).SendDue(ctx); err != nil || n != 0 || len(rec.messages()) != 0 {
		t.Fatalf("SendDue after rollback = %d, %v; delivered %d", n, err, len(rec.messages()))
	}
}

func TestEnqueueDuplicateKeyIsNoop(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	first := outboxMessage(1)
	enqueue(t, pool, "evt-1/verification", first, false)
	second := outboxMessage(2)
	enqueue(t, pool, "evt-1/verification", second, false) // a replayed command
	// Twice in one transaction, too; the transaction stays usable.
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		if err := Enqueue(context.Background(), tx, "evt-1/verification", second, false); err != nil {
			return err
		}
		return Enqueue(context.Background(), tx, "evt-2/verification", second, false)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, pool); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
	if r := readRow(t, pool, "evt-1/verification"); r.text != first.Text || r.status != StatusPending || r.attempts != 0 {
		t.Errorf("the first enqueue must win: %+v", r)
	}
}

func TestEnqueueRefusesBadInput(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	injected := outboxMessage(1)
	injected.Headers = map[string]string{"X-Note": "a\r\nBcc: victim@example.com"}
	noRecipient := outboxMessage(1)
	noRecipient.To = ""
	for name, tc := range map[string]struct {
		key string
		msg Message
	}{
		"empty key":        {"", outboxMessage(1)},
		"no recipient":     {"k1", noRecipient},
		"header injection": {"k2", injected},
	} {
		err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
			return Enqueue(context.Background(), tx, tc.key, tc.msg, false)
		})
		if err == nil {
			t.Errorf("%s: enqueued", name)
		}
	}
	if n := countRows(t, pool); n != 0 {
		t.Fatalf("%d rows, want 0", n)
	}
}

// TestSenderRetriesThenSendsOnce is the outbox's main promise: a failing transport loses nothing,
// the retry waits its backoff, and a working transport then sends the message exactly once.
func TestSenderRetriesThenSendsOnce(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	ctx := context.Background()
	msg := outboxMessage(1)
	enqueue(t, pool, "evt-1/password_reset", msg, false)

	clk := clock.NewManual(time.Now())
	rec := &recorder{fail: errors.New("dial tcp: connection refused")}
	s := NewSender(pool, rec, WithClock(clk), WithLogger(quietLogger()))

	if n, err := s.SendDue(ctx); err != nil || n != 0 {
		t.Fatalf("SendDue with a failing transport = %d, %v; want 0, nil", n, err)
	}
	r := readRow(t, pool, "evt-1/password_reset")
	if r.status != StatusPending || r.attempts != 1 || r.claimed || r.sentAt != nil {
		t.Fatalf("after a failure: %+v; want pending, attempts 1, unclaimed", r)
	}
	if r.lastError != "dial tcp: connection refused" {
		t.Errorf("last_error = %q", r.lastError)
	}
	if r.text != msg.Text || r.html != msg.HTML {
		t.Error("a failed send changed the bodies")
	}
	if d := r.nextAttempt.Sub(clk.Now()); d < time.Second-time.Millisecond || d > 2*time.Second+time.Millisecond {
		t.Errorf("first retry in %v, want between 1s and 2s", d)
	}

	rec.setFail(nil)
	if n, err := s.SendDue(ctx); err != nil || n != 0 {
		t.Fatalf("SendDue before the retry is due = %d, %v; want 0", n, err)
	}
	clk.Advance(2 * time.Second)
	if n, err := s.SendDue(ctx); err != nil || n != 1 {
		t.Fatalf("SendDue once due = %d, %v; want 1", n, err)
	}
	if n, err := s.SendDue(ctx); err != nil || n != 0 {
		t.Fatalf("SendDue after sending = %d, %v; want 0", n, err)
	}
	got := rec.messages()
	if len(got) != 1 {
		t.Fatalf("delivered %d times, want once", len(got))
	}
	if got[0].To != msg.To || got[0].Subject != msg.Subject || got[0].Text != msg.Text || got[0].HTML != msg.HTML {
		t.Errorf("delivered %+v, want %+v", got[0], msg)
	}
	if got[0].Headers["Message-ID"] == "" {
		t.Error("no Message-ID: a duplicate delivery could not be recognised")
	}
	r = readRow(t, pool, "evt-1/password_reset")
	if r.status != StatusSent || r.attempts != 2 || r.sentAt == nil || r.claimed {
		t.Errorf("after sending: %+v; want sent after 2 attempts", r)
	}
	if !r.sentAt.Equal(clk.Now().Truncate(time.Microsecond)) {
		t.Errorf("sent_at %v, want the sender's clock %v", r.sentAt, clk.Now())
	}
}

func TestSenderGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	ctx := context.Background()
	enqueue(t, pool, "evt-1/login_code", outboxMessage(1), true)
	clk := clock.NewManual(time.Now())
	s := NewSender(pool, &recorder{fail: errors.New("421 try later")}, WithClock(clk), WithMaxAttempts(3), WithLogger(quietLogger()))
	for i := 1; i <= 4; i++ {
		if _, err := s.SendDue(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Advance(maxRetryDelay)
	}
	r := readRow(t, pool, "evt-1/login_code")
	if r.status != StatusFailed || r.attempts != 3 || r.lastError != "421 try later" || r.claimed {
		t.Fatalf("%+v; want failed after 3 attempts", r)
	}
	if r.text != "" || r.html != "" {
		t.Error("a given-up message with a one-time code kept its bodies")
	}
}

func TestSenderPermanentFailureIsNotRetried(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	enqueue(t, pool, "evt-1/verification", outboxMessage(1), false)
	s := NewSender(pool, &recorder{fail: fmt.Errorf("%w: 550 no such user", ErrPermanent)}, WithLogger(quietLogger()))
	if _, err := s.SendDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := readRow(t, pool, "evt-1/verification"); r.status != StatusFailed || r.attempts != 1 {
		t.Fatalf("%+v; want failed after one attempt", r)
	}
}

func TestSenderScrubsOneTimeLinksOnceSent(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	secret, plain := outboxMessage(1), outboxMessage(2)
	enqueue(t, pool, "evt-1/password_reset", secret, true)
	enqueue(t, pool, "evt-2/password_changed", plain, false)
	rec := &recorder{}
	if n, err := NewSender(pool, rec, WithLogger(quietLogger())).SendDue(context.Background()); err != nil || n != 2 {
		t.Fatalf("SendDue = %d, %v", n, err)
	}
	for _, m := range rec.messages() {
		if m.Text == "" || m.HTML == "" {
			t.Errorf("message to %s was scrubbed before it was sent", m.To)
		}
	}
	if r := readRow(t, pool, "evt-1/password_reset"); r.status != StatusSent || r.text != "" || r.html != "" {
		t.Errorf("scrubbed row: %+v; want sent with empty bodies", r)
	}
	if r := readRow(t, pool, "evt-2/password_changed"); r.status != StatusSent || r.text != plain.Text || r.html != plain.HTML {
		t.Errorf("unscrubbed row: %+v; want its bodies kept", r)
	}
}

// TestConcurrentSendersNeverSendTwice runs several senders, each with its own pool as separate
// processes would have, over the same rows: every message is delivered exactly once.
func TestConcurrentSendersNeverSendTwice(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	const messages, senders = 120, 4
	for i := range messages {
		enqueue(t, pool, fmt.Sprintf("evt-%d/verification", i), outboxMessage(i), false)
	}
	rec := &recorder{}
	var wg sync.WaitGroup
	counts := make([]int, senders)
	errs := make([]error, senders)
	for i := range senders {
		p, err := pgxpool.New(context.Background(), pool.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		s := NewSender(p, rec, WithBatchSize(3), WithLogger(quietLogger()))
		wg.Go(func() { counts[i], errs[i] = s.SendDue(context.Background()) })
	}
	wg.Wait()
	total := 0
	for i := range senders {
		if errs[i] != nil {
			t.Fatalf("sender %d: %v", i, errs[i])
		}
		total += counts[i]
	}
	delivered := map[string]int{}
	for _, m := range rec.messages() {
		delivered[m.Headers["Message-ID"]]++
	}
	if total != messages || len(rec.messages()) != messages || len(delivered) != messages {
		t.Fatalf("senders reported %d, transport saw %d deliveries of %d distinct messages; want %d of each",
			total, len(rec.messages()), len(delivered), messages)
	}
	var unsent int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM mail_outbox WHERE status <> 'sent' OR attempts <> 1`).Scan(&unsent); err != nil || unsent != 0 {
		t.Fatalf("%d rows not sent exactly once (%v)", unsent, err)
	}
}

// TestExpiredClaimIsTakenOver covers a sender that dies after claiming: its rows wait out the
// lease and are then sent by another, and the dead sender's late report cannot overwrite that.
func TestExpiredClaimIsTakenOver(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	ctx := context.Background()
	enqueue(t, pool, "evt-1/verification", outboxMessage(1), false)
	clk := clock.NewManual(time.Now())
	rec := &recorder{}
	crashed := NewSender(pool, rec, WithClock(clk), WithLogger(quietLogger()))
	batch, err := crashed.claim(ctx, clk.Now())
	if err != nil || len(batch) != 1 {
		t.Fatalf("claim = %v, %v", batch, err)
	}

	other := NewSender(pool, rec, WithClock(clk), WithLogger(quietLogger()))
	if n, err := other.SendDue(ctx); err != nil || n != 0 {
		t.Fatalf("SendDue during the lease = %d, %v; want 0", n, err)
	}
	clk.Advance(claimLease + time.Second)
	if n, err := other.SendDue(ctx); err != nil || n != 1 {
		t.Fatalf("SendDue after the lease = %d, %v; want 1", n, err)
	}
	// The first sender wakes up and reports a failure with its stale claim.
	if ok, err := crashed.record(ctx, ctx, batch[0], errors.New("late")); err != nil || ok {
		t.Fatalf("stale record = %v, %v", ok, err)
	}
	if r := readRow(t, pool, "evt-1/verification"); r.status != StatusSent || r.attempts != 2 || r.lastError != "" {
		t.Errorf("%+v; want the takeover's outcome to stand", r)
	}
}

// blockingTransport holds every send until its context ends, like a relay that hangs.
type blockingTransport struct{ started chan struct{} }

func (b blockingTransport) Send(ctx context.Context, _ Message) error {
	b.started <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

func TestShutdownHandsClaimsBack(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	enqueue(t, pool, "evt-1/verification", outboxMessage(1), false)
	clk := clock.NewManual(time.Now())
	tr := blockingTransport{started: make(chan struct{}, 1)}
	s := NewSender(pool, tr, WithClock(clk), WithLogger(quietLogger()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.SendDue(ctx)
		done <- err
	}()
	<-tr.started
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("SendDue on shutdown: %v", err)
	}
	r := readRow(t, pool, "evt-1/verification")
	if r.status != StatusPending || r.attempts != 0 || r.claimed || r.nextAttempt.After(clk.Now()) {
		t.Fatalf("%+v; want the row handed back untouched and due at once", r)
	}
}

func TestRunSendsOnKick(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	rec := &recorder{delivered: make(chan Message, 10)}
	// A poll interval no test outlives: only Kick can explain a prompt delivery.
	s := NewSender(pool, rec, WithPollInterval(time.Hour), WithLogger(quietLogger()))
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- s.Run(ctx) }()

	waitFor := func(subject string) {
		t.Helper()
		select {
		case m := <-rec.delivered:
			if m.Subject != subject {
				t.Fatalf("delivered %q, want %q", m.Subject, subject)
			}
		case <-time.After(15 * time.Second): // a failure bound, not a synchronisation
			t.Fatalf("%q not delivered", subject)
		}
	}
	enqueue(t, pool, "evt-1/verification", outboxMessage(1), false)
	s.Kick()
	waitFor("Message 1")
	// Run's start-up pass is certainly over now, so this one needs the kick.
	enqueue(t, pool, "evt-2/verification", outboxMessage(2), false)
	s.Kick()
	waitFor("Message 2")

	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	var nilSender *Sender
	nilSender.Kick() // must not panic
}

// TestOutboxToFileMailbox is the development setup end to end: template, outbox, sender, file
// transport, mailbox.
func TestOutboxToFileMailbox(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	tp := newTestTemplates(t)
	subject, text, html, err := tp.Render(TemplateLoginCode, LoginCodeData{Name: "Ada", Code: "314159", ValidFor: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, pool, "evt-9/login_code", Message{To: "ada@example.com", Subject: subject, Text: text, HTML: html}, true)
	dir := t.TempDir()
	tr, err := Open("file://"+filepath.ToSlash(dir), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := NewSender(pool, tr, WithLogger(quietLogger())).SendDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("SendDue = %d, %v", n, err)
	}
	box, err := ListFileMailbox(dir, 10)
	if err != nil || len(box) != 1 {
		t.Fatalf("mailbox = %v, %v", box, err)
	}
	if box[0].To != "ada@example.com" && box[0].To != "<ada@example.com>" {
		t.Errorf("To = %q", box[0].To)
	}
	if box[0].Subject != subject || box[0].Text != text || box[0].HTML != html {
		t.Error("the mailbox does not show the message as rendered")
	}
	if r := readRow(t, pool, "evt-9/login_code"); r.text != "" || r.html != "" {
		t.Error("the login code stayed in the database after sending")
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	for attempts := 1; attempts <= 25; attempts++ {
		want := min(time.Second<<attempts, time.Hour)
		for range 50 {
			d := retryDelay(attempts)
			if d < want/2 || d > want || d < minRetryDelay || d > maxRetryDelay {
				t.Fatalf("retryDelay(%d) = %v, want within [%v, %v]", attempts, d, want/2, want)
			}
		}
	}
}

func TestTruncateStorableErrors(t *testing.T) {
	t.Parallel()
	got := truncate("\x00bad \xff " + strings.Repeat("x", 3000))
	if len(got) > maxErrorLength+len("…") || strings.ContainsRune(got, 0) || !utf8.ValidString(got) {
		t.Errorf("truncate kept something PostgreSQL refuses: len %d, %q…", len(got), got[:12])
	}
	got = truncate(strings.Repeat("x", maxErrorLength-1) + "éé")
	if !utf8.ValidString(got) {
		t.Errorf("cut inside a rune: %q", got[len(got)-8:])
	}
}

// A message keeps the correlation id of what queued it, and the sender's log lines name it: a
// request can be followed to its e-mail, through a failed attempt and the send.
func TestTheSendersLinesNameTheCorrelationIDOfWhatQueuedTheMessage(t *testing.T) {
	t.Parallel()
	pool := newOutboxDB(t)
	ctx := correlation.With(context.Background(), "req-7QK2")
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := Enqueue(ctx, tx, "evt-1/deposit_confirmed", outboxMessage(1), false); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	enqueue(t, pool, "evt-2/welcome", outboxMessage(2), false) // queued by nothing that has an id

	var logs bytes.Buffer
	clk := clock.NewManual(time.Now())
	rec := &recorder{fail: errors.New("421 try later")}
	s := NewSender(pool, rec, WithClock(clk), WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	if _, err := s.SendDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec.setFail(nil)
	clk.Advance(time.Hour)
	if n, err := s.SendDue(context.Background()); err != nil || n != 2 {
		t.Fatalf("SendDue = %d, %v; want 2 sent", n, err)
	}
	lines := map[string][]string{} // message → correlation ids, in order
	for line := range strings.Lines(logs.String()) {
		var rec struct {
			Msg         string `json:"msg"`
			Correlation string `json:"correlation_id"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		lines[rec.Msg] = append(lines[rec.Msg], rec.Correlation)
	}
	for _, msg := range []string{"mail: send failed; will retry", "mail: sent"} {
		got := lines[msg]
		slices.Sort(got)
		if !slices.Equal(got, []string{"", "req-7QK2"}) {
			t.Errorf("%q lines name %q, want the deposit's id and none", msg, got)
		}
	}
}

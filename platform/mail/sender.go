package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/domain/clock"
)

const (
	defaultBatchSize    = 8
	defaultPollInterval = 2 * time.Second
	defaultMaxAttempts  = 20
	// defaultSendTimeout bounds one message's hand-over, so a hung relay cannot hold a claim.
	defaultSendTimeout = 2 * time.Minute
	// claimLease is how long a claimed row stays invisible to other senders. It must outlast the
	// send timeout (the batch is sent in parallel, so one timeout covers it); if it runs out, the
	// row is sent again by someone else, which is a duplicate, never a loss.
	claimLease = 10 * time.Minute
	// retries start around a second and double up to an hour: about 9 hours in all with the
	// default 20 attempts, long enough to ride out a relay outage, short enough that a login
	// code nobody can use any more is not still being retried tomorrow.
	minRetryDelay = time.Second
	maxRetryDelay = time.Hour
	// maxErrorLength keeps a chatty server's answer from bloating the row.
	maxErrorLength = 2000
)

// Sender delivers the outbox. Any number of processes may run one on the same database: rows
// are claimed with FOR UPDATE SKIP LOCKED and leased, so each is handed to the transport by one
// sender at a time.
type Sender struct {
	pool        *pgxpool.Pool
	transport   Transport
	clock       clock.Clock
	logger      *slog.Logger
	batchSize   int
	poll        time.Duration
	maxAttempts int
	sendTimeout time.Duration
	kick        chan struct{}
	metrics     *senderMetrics
	reg         prometheus.Registerer
}

// SenderOption configures a Sender.
type SenderOption func(*Sender)

// WithClock sets the clock that decides which rows are due and when retries happen (default:
// the system clock). Tests use a manual clock to make a retry due without waiting.
func WithClock(c clock.Clock) SenderOption { return func(s *Sender) { s.clock = c } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) SenderOption { return func(s *Sender) { s.logger = l } }

// WithPollInterval sets how often an idle sender looks for due rows when not kicked (default
// 2s). It is what delivers rows enqueued by other processes and retries that fall due.
func WithPollInterval(d time.Duration) SenderOption { return func(s *Sender) { s.poll = d } }

// WithBatchSize sets how many rows one claim takes and sends in parallel (default 8).
func WithBatchSize(n int) SenderOption { return func(s *Sender) { s.batchSize = n } }

// WithMaxAttempts sets after how many failed attempts a message is given up (default 20).
func WithMaxAttempts(n int) SenderOption { return func(s *Sender) { s.maxAttempts = n } }

// WithSendTimeout bounds one message's hand-over to the transport (default 2 minutes, at most
// the claim lease of 10 minutes).
func WithSendTimeout(d time.Duration) SenderOption { return func(s *Sender) { s.sendTimeout = d } }

// WithMetrics registers the sender's Prometheus collectors and the outbox's backlog
// (OutboxCollector).
func WithMetrics(reg prometheus.Registerer) SenderOption {
	return func(s *Sender) { s.metrics = newSenderMetrics(reg); s.reg = reg }
}

// NewSender returns a sender of the outbox in pool's database through t.
func NewSender(pool *pgxpool.Pool, t Transport, opts ...SenderOption) *Sender {
	s := &Sender{
		pool: pool, transport: t, clock: clock.System(), logger: slog.Default(),
		batchSize: defaultBatchSize, poll: defaultPollInterval, maxAttempts: defaultMaxAttempts,
		sendTimeout: defaultSendTimeout, kick: make(chan struct{}, 1),
	}
	for _, o := range opts {
		o(s)
	}
	s.batchSize = max(s.batchSize, 1)
	s.maxAttempts = max(s.maxAttempts, 1)
	if s.poll <= 0 {
		s.poll = defaultPollInterval
	}
	if s.sendTimeout <= 0 || s.sendTimeout > claimLease/2 {
		s.sendTimeout = min(defaultSendTimeout, claimLease/2)
	}
	if s.metrics == nil {
		s.metrics = newSenderMetrics(nil)
	}
	if s.reg != nil {
		s.reg.MustRegister(OutboxCollector{Pool: pool})
	}
	return s
}

// Kick wakes Run to send at once; call it after the transaction that enqueued a message has
// committed. It never blocks, and a nil Sender ignores it, so code paths without a sender (the
// CLI) need no special case.
func (s *Sender) Kick() {
	if s == nil {
		return
	}
	select {
	case s.kick <- struct{}{}:
	default: // a wake-up is already pending and covers this one
	}
}

// Run sends due messages until ctx is done, waking on Kick and every poll interval. Transport
// and database failures are logged and retried; it returns only ctx's error.
func (s *Sender) Run(ctx context.Context) error {
	ticker := time.NewTicker(s.poll)
	defer ticker.Stop()
	for {
		if _, err := s.SendDue(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn("mail: outbox pass failed; trying again at the next poll", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.kick:
		case <-ticker.C:
		}
	}
}

// SendDue sends every message due now, batch by batch, and returns how many were sent. A message
// that fails is rescheduled (or given up) and does not count; the error is only for failures to
// reach the database. Tests and the CLI use it; serve uses Run.
func (s *Sender) SendDue(ctx context.Context) (sent int, err error) {
	// Rows rescheduled during this call are due after this instant, so the loop ends even when
	// every send fails.
	cutoff := s.clock.Now()
	for {
		batch, err := s.claim(ctx, cutoff)
		if err != nil {
			return sent, err
		}
		n, err := s.deliver(ctx, batch)
		sent += n
		if err != nil || len(batch) < s.batchSize {
			return sent, err
		}
	}
}

type claimed struct {
	id       uuid.UUID
	claim    uuid.UUID
	msg      Message
	attempts int
	// correlationID is what queued the message (EnqueueStatement), for the log lines.
	correlationID string
}

// claim leases up to a batch of due rows in one short statement. The row locks last only for
// that statement: holding a transaction open across network sends would pin the xmin horizon and
// hold back every reader of the event log.
func (s *Sender) claim(ctx context.Context, cutoff time.Time) ([]claimed, error) {
	token, err := uuid.NewRandom()
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `
		WITH due AS (
			SELECT id FROM mail_outbox
			WHERE status = 'pending' AND next_attempt_at <= $1
			ORDER BY next_attempt_at, id
			LIMIT $2
			FOR UPDATE SKIP LOCKED)
		UPDATE mail_outbox o
		SET attempts = o.attempts + 1, next_attempt_at = $3, claim = $4
		FROM due WHERE o.id = due.id
		RETURNING o.id, o.to_address, o.subject, o.text_body, o.html_body, o.headers, o.attempts, coalesce(o.correlation_id, '')`,
		cutoff, s.batchSize, s.clock.Now().Add(claimLease), token)
	if err != nil {
		return nil, fmt.Errorf("mail: claim outbox rows: %w", err)
	}
	defer rows.Close()
	var out []claimed
	for rows.Next() {
		c := claimed{claim: token}
		var headers []byte
		if err := rows.Scan(&c.id, &c.msg.To, &c.msg.Subject, &c.msg.Text, &c.msg.HTML, &headers, &c.attempts, &c.correlationID); err != nil {
			return nil, fmt.Errorf("mail: claim outbox rows: %w", err)
		}
		if err := json.Unmarshal(headers, &c.msg.Headers); err != nil {
			return nil, fmt.Errorf("mail: outbox row %s: headers: %w", c.id, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mail: claim outbox rows: %w", err)
	}
	return out, nil
}

// deliver sends a claimed batch in parallel and records each outcome.
func (s *Sender) deliver(ctx context.Context, batch []claimed) (int, error) {
	errs := make([]error, len(batch))
	var wg sync.WaitGroup
	for i, c := range batch {
		wg.Go(func() {
			sendCtx, cancel := context.WithTimeout(ctx, s.sendTimeout)
			defer cancel()
			errs[i] = s.transport.Send(sendCtx, c.msg)
		})
	}
	wg.Wait()

	// Outcomes are recorded even when ctx was cancelled mid-send: a message handed over must be
	// marked sent, or it goes out again after the lease.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	sent := 0
	var dbErr error
	for i, c := range batch {
		ok, err := s.record(recordCtx, ctx, c, errs[i])
		if ok {
			sent++
		}
		dbErr = errors.Join(dbErr, err)
	}
	return sent, dbErr
}

// record stores the outcome of one send. It reports whether the message counts as sent.
func (s *Sender) record(ctx, runCtx context.Context, c claimed, sendErr error) (bool, error) {
	now := s.clock.Now()
	var (
		sql    string
		args   []any
		status string
	)
	switch {
	case sendErr == nil:
		status = StatusSent
		sql = `UPDATE mail_outbox SET status = 'sent', sent_at = $3, claim = NULL,
			text_body = CASE WHEN scrub_after_send THEN '' ELSE text_body END,
			html_body = CASE WHEN scrub_after_send THEN '' ELSE html_body END
			WHERE id = $1 AND claim = $2`
		args = []any{c.id, c.claim, now}
	case runCtx.Err() != nil:
		// Shutting down: the attempt says nothing about the message, so it is handed back as it
		// was for the next process to send at once.
		sql = `UPDATE mail_outbox SET attempts = attempts - 1, next_attempt_at = $3, claim = NULL
			WHERE id = $1 AND claim = $2`
		args = []any{c.id, c.claim, now}
	case errors.Is(sendErr, ErrPermanent) || c.attempts >= s.maxAttempts:
		status = StatusFailed
		sql = `UPDATE mail_outbox SET status = 'failed', claim = NULL, last_error = $3,
			text_body = CASE WHEN scrub_after_send THEN '' ELSE text_body END,
			html_body = CASE WHEN scrub_after_send THEN '' ELSE html_body END
			WHERE id = $1 AND claim = $2`
		args = []any{c.id, c.claim, truncate(sendErr.Error())}
	default:
		status = StatusPending
		sql = `UPDATE mail_outbox SET next_attempt_at = $3, claim = NULL, last_error = $4
			WHERE id = $1 AND claim = $2`
		args = []any{c.id, c.claim, now.Add(retryDelay(c.attempts)), truncate(sendErr.Error())}
	}
	tag, err := s.pool.Exec(ctx, sql, args...)
	if err != nil {
		// The claim stays; the row is retried when the lease ends.
		return false, fmt.Errorf("mail: record outcome of %s: %w", c.id, err)
	}
	if tag.RowsAffected() == 0 {
		s.logger.Warn("mail: lost the claim on an outbox row before recording its outcome; it may be sent twice",
			"id", c.id, "correlation_id", c.correlationID, "attempts", c.attempts)
		return false, nil
	}

	switch status {
	case StatusSent:
		s.metrics.sent.Inc()
		s.logger.Info("mail: sent", "id", c.id, "correlation_id", c.correlationID, "attempts", c.attempts)
		return true, nil
	case StatusFailed:
		s.metrics.failed.Inc()
		if errors.Is(sendErr, ErrPermanent) {
			// Usually a mistyped address; nothing an operator can fix.
			s.logger.Warn("mail: message refused permanently; giving up", "id", c.id, "correlation_id", c.correlationID, "attempts", c.attempts, "err", sendErr)
		} else {
			s.logger.Error("mail: giving up on a message after repeated failures", "id", c.id, "correlation_id", c.correlationID, "attempts", c.attempts, "err", sendErr)
		}
	case StatusPending:
		s.metrics.retried.Inc()
		s.logger.Info("mail: send failed; will retry", "id", c.id, "correlation_id", c.correlationID, "attempts", c.attempts, "err", sendErr)
	}
	return false, nil
}

// retryDelay is exponential backoff with jitter after the given number of failed attempts: a
// random point in [d/2, d] for d = 2^attempts seconds capped at an hour, so the first retry comes
// after 1–2 s and senders that failed together do not retry in lockstep.
func retryDelay(attempts int) time.Duration {
	d := maxRetryDelay
	if attempts < 12 { // 2^12 s is past the cap
		d = min(minRetryDelay<<max(attempts, 1), maxRetryDelay)
	}
	return d/2 + rand.N(d/2+1)
}

// truncate makes a server's answer storable: PostgreSQL text takes neither NUL bytes nor
// invalid UTF-8, and a remote server may send both.
func truncate(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
	if len(s) <= maxErrorLength {
		return s
	}
	cut := maxErrorLength
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

type senderMetrics struct {
	sent, retried, failed prometheus.Counter
}

func newSenderMetrics(reg prometheus.Registerer) *senderMetrics {
	m := &senderMetrics{
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clearvest_mail_sent_total", Help: "Outbox messages handed to the mail transport by this process.",
		}),
		retried: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clearvest_mail_retries_total", Help: "Failed sends rescheduled for another attempt.",
		}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clearvest_mail_failed_total", Help: "Outbox messages given up (refused permanently or out of attempts).",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.sent, m.retried, m.failed)
	}
	return m
}

// Package queuefeed tells staff when their queues change: a request arrives, or another staff
// member decides one, so that an open queue drops the decided item and the counts move without a
// reload. It reads the event log, not the read models, and says which queues changed and the
// position of the newest change; a client that asks again with that position is answered once
// the read models have it (read-your-writes), so it never refetches an old page.
package queuefeed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/proposal"
	"clearvest/domain/support"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
)

// The queues, named as the queue counts name them (GET /api/staff/queue-counts).
const (
	Deposits       = "deposits"
	Withdrawals    = "withdrawals"
	Investments    = "investments"
	IdentityChecks = "identityChecks"
	Approvals      = "approvals"
	SupportTickets = "supportTickets"
	Testimonials   = "testimonials"
)

// queuesOf are the queues an event type changes: it adds an item, or decides one.
var queuesOf = map[string][]string{
	account.TypeDepositRequested: {Deposits}, account.TypeDepositConfirmed: {Deposits}, account.TypeDepositRejected: {Deposits},
	account.TypeWithdrawalRequested: {Withdrawals}, account.TypeWithdrawalApproved: {Withdrawals}, account.TypeWithdrawalRejected: {Withdrawals},
	account.TypeInvestmentRequested: {Investments}, account.TypeInvestmentActivated: {Investments}, account.TypeInvestmentRejected: {Investments},
	kyc.TypeSubmitted: {IdentityChecks}, kyc.TypeApproved: {IdentityChecks}, kyc.TypeRejected: {IdentityChecks},
	proposal.TypeOpened: {Approvals}, proposal.TypeApproved: {Approvals}, proposal.TypeRejected: {Approvals},
	support.TypeOpened: {SupportTickets}, support.TypeReplied: {SupportTickets}, support.TypeClosed: {SupportTickets},
	testimonial.TypeSubmitted: {Testimonials}, testimonial.TypeApproved: {Testimonials}, testimonial.TypeRejected: {Testimonials},
	// A closed account's requests leave the queues.
	identity.TypeClosed: {Deposits, Withdrawals, Investments, IdentityChecks},
}

// Change is what a listener hears: the queues that changed, and the position of the newest
// change.
type Change struct {
	Position int64
	Queues   []string
}

// merge adds o to c: the later position and every queue of both.
func (c Change) merge(o Change) Change {
	out := Change{Position: max(c.Position, o.Position), Queues: slices.Clone(c.Queues)}
	for _, q := range o.Queues {
		if !slices.Contains(out.Queues, q) {
			out.Queues = append(out.Queues, q)
		}
	}
	slices.Sort(out.Queues)
	return out
}

// Log is the part of the event store the feed reads.
type Log interface {
	ReadAll(ctx context.Context, after int64, limit int) ([]eventstore.Envelope, error)
	Head(ctx context.Context) (int64, error)
}

// DefaultInterval is how often the feed reads the log while anyone listens.
const DefaultInterval = 500 * time.Millisecond

// readLimit is how many events one read takes; a round reads until it has them all.
const readLimit = 1000

// ErrClosed is returned by Subscribe once the feed is closed (the server is stopping).
var ErrClosed = errors.New("queue feed: closed")

// Feed announces queue changes to every listener of the process. One read of the log per
// interval serves them all, and nothing runs while nobody listens.
type Feed struct {
	log      Log
	interval time.Duration
	logger   *slog.Logger

	mu      sync.Mutex
	subs    map[chan Change]struct{}
	running bool
	closed  bool
}

// New returns a feed over the log; interval 0 means DefaultInterval.
func New(log Log, interval time.Duration, logger *slog.Logger) *Feed {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Feed{log: log, interval: interval, logger: logger, subs: map[chan Change]struct{}{}}
}

// Subscribe returns a channel that receives the queues changed by every event after Subscribe
// returns (several changes may come as one value), and a function to stop listening.
func (f *Feed) Subscribe(ctx context.Context) (<-chan Change, func(), error) {
	ch := make(chan Change, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, ErrClosed
	}
	if !f.running {
		// The head is read before Subscribe returns: an event appended while the poller starts
		// must not be taken for an old one.
		head, err := f.log.Head(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("queue feed: %w", err)
		}
		f.running = true
		go f.poll(head)
	}
	f.subs[ch] = struct{}{}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.mu.Lock()
			if _, ok := f.subs[ch]; ok {
				close(ch)
				delete(f.subs, ch)
			}
			f.mu.Unlock()
		})
	}, nil
}

// Close ends every subscription (their channels close) and refuses new ones.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for ch := range f.subs {
		close(ch)
		delete(f.subs, ch)
	}
}

func (f *Feed) poll(last int64) {
	tick := time.NewTicker(f.interval)
	defer tick.Stop()
	for {
		<-tick.C
		f.mu.Lock()
		if len(f.subs) == 0 {
			f.running = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		if err := f.round(context.Background(), &last); err != nil {
			f.logger.Warn("queue feed: reading the log failed; retrying", "err", err)
		}
	}
}

func (f *Feed) round(ctx context.Context, last *int64) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var news Change
	for {
		events, err := f.log.ReadAll(ctx, *last, readLimit)
		if err != nil {
			return fmt.Errorf("queue feed: %w", err)
		}
		for _, e := range events {
			*last = e.Position
			if qs, ok := queuesOf[e.Type]; ok {
				news = news.merge(Change{Position: e.Position, Queues: qs})
			}
		}
		if len(events) < readLimit {
			break
		}
	}
	if len(news.Queues) == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		// Only this goroutine sends, under f.mu: after taking an unread value out, the send
		// cannot block.
		select {
		case ch <- news:
		default:
			c := news
			select {
			case old := <-ch:
				c = old.merge(news)
			default:
			}
			ch <- c
		}
	}
	return nil
}

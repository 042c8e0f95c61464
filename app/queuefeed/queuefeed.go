// Package queuefeed tells staff when their queues change: a request arrives, or another staff
// member decides one, so that an open queue drops the decided item and the counts move without a
// reload. It reads the event log, not the read models, and says which queues changed and the
// position of the newest change; a client that asks again with that position is answered once
// the read models have it (read-your-writes), so it never refetches an old page.
package queuefeed

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/proposal"
	"clearvest/domain/support"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
	"clearvest/platform/livefeed"
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
	// A declared deposit linked to its transfer is now the network's to decide: its row changes.
	account.TypeDepositLinkedToChain: {Deposits},
	account.TypeWithdrawalRequested:  {Withdrawals}, account.TypeWithdrawalApproved: {Withdrawals}, account.TypeWithdrawalRejected: {Withdrawals},
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
var ErrClosed = livefeed.ErrClosed

// everyone is the one listener key: every staff member hears every queue change.
type everyone struct{}

// Feed announces queue changes to every listener of the process. One read of the log per
// interval serves them all, and nothing runs while nobody listens.
type Feed struct {
	hub *livefeed.Hub[everyone, Change]
}

// New returns a feed over the log; interval 0 means DefaultInterval.
func New(log Log, interval time.Duration, logger *slog.Logger) *Feed {
	if interval <= 0 {
		interval = DefaultInterval
	}
	src := livefeed.Source[everyone, Change]{
		Name: "queue feed",
		Head: log.Head,
		Poll: func(ctx context.Context, last int64) (map[everyone]Change, int64, error) {
			news, last, err := changesAfter(ctx, log, last)
			if err != nil || len(news.Queues) == 0 {
				return nil, last, err
			}
			return map[everyone]Change{{}: news}, last, nil
		},
		Merge: Change.merge,
	}
	return &Feed{hub: livefeed.New(src, interval, logger)}
}

// Subscribe returns a channel that receives the queues changed by every event after Subscribe
// returns (several changes may come as one value), and a function to stop listening.
func (f *Feed) Subscribe(ctx context.Context) (<-chan Change, func(), error) {
	return f.hub.Subscribe(ctx, everyone{})
}

// Close ends every subscription (their channels close) and refuses new ones.
func (f *Feed) Close() { f.hub.Close() }

// changesAfter reads the log after last to its end and says which queues its events changed.
func changesAfter(ctx context.Context, log Log, last int64) (Change, int64, error) {
	var news Change
	for {
		events, err := log.ReadAll(ctx, last, readLimit)
		if err != nil {
			return news, last, err
		}
		for _, e := range events {
			last = e.Position
			if qs, ok := queuesOf[e.Type]; ok {
				news = news.merge(Change{Position: e.Position, Queues: qs})
			}
		}
		if len(events) < readLimit {
			return news, last, nil
		}
	}
}

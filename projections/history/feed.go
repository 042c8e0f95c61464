package history

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultFeedInterval is how often a Feed looks for new items while anyone listens. It bounds
// how late a notification is after the read model has the item (docs/history.md measures it).
const DefaultFeedInterval = 500 * time.Millisecond

// Feed tells signed-in users when new items land in their history. It polls the read model, not
// the event log, so a notified client that refetches finds the item already there; it works the
// same whichever process applied the event. One query per interval serves every listener of
// the process, and nothing runs while nobody listens.
type Feed struct {
	pool     *pgxpool.Pool
	interval time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	subs    map[string]map[chan int64]struct{}
	running bool
	closed  bool
}

// ErrFeedClosed is returned by Subscribe once the feed is closed (the server is stopping).
var ErrFeedClosed = errors.New("history feed: closed")

// NewFeed returns a feed over the read model in pool; interval 0 means DefaultFeedInterval.
func NewFeed(pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) *Feed {
	if interval <= 0 {
		interval = DefaultFeedInterval
	}
	if log == nil {
		log = slog.Default()
	}
	return &Feed{pool: pool, interval: interval, log: log, subs: map[string]map[chan int64]struct{}{}}
}

// Subscribe returns a channel that receives the position of the newest item whenever new
// items land in userID's history (several new items may come as one value), and a function to
// stop listening. Every item that lands after Subscribe returns is announced.
func (f *Feed) Subscribe(ctx context.Context, userID string) (<-chan int64, func(), error) {
	ch := make(chan int64, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, ErrFeedClosed
	}
	if !f.running {
		// The head is read before Subscribe returns: an item that lands while the poller
		// starts must not be taken for an old one.
		var head int64
		if err := f.pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM rm_history.items`).Scan(&head); err != nil {
			return nil, nil, fmt.Errorf("history feed: %w", err)
		}
		f.running = true
		go f.poll(head)
	}
	if f.subs[userID] == nil {
		f.subs[userID] = map[chan int64]struct{}{}
	}
	f.subs[userID][ch] = struct{}{}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.mu.Lock()
			if _, ok := f.subs[userID][ch]; ok {
				close(ch)
			}
			delete(f.subs[userID], ch)
			if len(f.subs[userID]) == 0 {
				delete(f.subs, userID)
			}
			f.mu.Unlock()
		})
	}, nil
}

// Close ends every subscription (their channels close) and refuses new ones, so that open
// streams end when the server shuts down instead of holding it up.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for u, chans := range f.subs {
		for ch := range chans {
			close(ch)
		}
		delete(f.subs, u)
	}
}

// poll runs while anyone listens, announcing the items after last.
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
			f.log.Warn("history feed: polling failed; retrying", "err", err)
		}
	}
}

func (f *Feed) round(ctx context.Context, last *int64) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := f.pool.Query(ctx, `SELECT user_id, max(position) FROM rm_history.items WHERE position > $1 GROUP BY user_id`, *last)
	if err != nil {
		return fmt.Errorf("history feed: %w", err)
	}
	defer rows.Close()
	news := map[string]int64{}
	for rows.Next() {
		var u string
		var p int64
		if err := rows.Scan(&u, &p); err != nil {
			return err
		}
		news[u] = p
		*last = max(*last, p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for u, p := range news {
		for ch := range f.subs[u] {
			// Only this goroutine sends, under f.mu: after taking an unread value out, the send
			// cannot block.
			select {
			case ch <- p:
			default:
				select {
				case old := <-ch:
					p = max(p, old)
				default:
				}
				ch <- p
			}
		}
	}
	return nil
}

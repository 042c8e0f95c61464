package history

import (
	"context"
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
	subs    map[string]map[chan struct{}]struct{}
	running bool
}

// NewFeed returns a feed over the read model in pool; interval 0 means DefaultFeedInterval.
func NewFeed(pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) *Feed {
	if interval <= 0 {
		interval = DefaultFeedInterval
	}
	if log == nil {
		log = slog.Default()
	}
	return &Feed{pool: pool, interval: interval, log: log, subs: map[string]map[chan struct{}]struct{}{}}
}

// Subscribe returns a channel that receives a value when new items land in userID's history
// (several new items may come as one value), and a function to stop listening.
func (f *Feed) Subscribe(userID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	if f.subs[userID] == nil {
		f.subs[userID] = map[chan struct{}]struct{}{}
	}
	f.subs[userID][ch] = struct{}{}
	if !f.running {
		f.running = true
		go f.poll()
	}
	f.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.subs[userID], ch)
			if len(f.subs[userID]) == 0 {
				delete(f.subs, userID)
			}
			f.mu.Unlock()
		})
	}
}

// poll runs while anyone listens. It starts from the newest item, so only items that land
// after it started are announced.
func (f *Feed) poll() {
	ctx := context.Background()
	var last int64
	started := false
	tick := time.NewTicker(f.interval)
	defer tick.Stop()
	for {
		if !started {
			if err := f.pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM rm_history.items`).Scan(&last); err != nil {
				f.log.Warn("history feed: reading the head failed; retrying", "err", err)
			} else {
				started = true
			}
		} else if err := f.round(ctx, &last); err != nil {
			f.log.Warn("history feed: polling failed; retrying", "err", err)
		}
		<-tick.C
		f.mu.Lock()
		if len(f.subs) == 0 {
			f.running = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
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
	var users []string
	for rows.Next() {
		var u string
		var p int64
		if err := rows.Scan(&u, &p); err != nil {
			return err
		}
		users = append(users, u)
		*last = max(*last, p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, u := range users {
		for ch := range f.subs[u] {
			select {
			case ch <- struct{}{}:
			default: // one unread notification already covers this one
			}
		}
	}
	return nil
}

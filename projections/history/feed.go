package history

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/platform/livefeed"
)

// DefaultFeedInterval is how often a Feed looks for new items while anyone listens. It bounds
// how late a notification is after the read model has the item (docs/history.md measures it).
const DefaultFeedInterval = 500 * time.Millisecond

// Feed tells signed-in users when new items land in their history. It polls the read model, not
// the event log, so a notified client that refetches finds the item already there; it works the
// same whichever process applied the event. One query per interval serves every listener of
// the process, and nothing runs while nobody listens.
type Feed struct {
	hub *livefeed.Hub[string, int64]
}

// ErrFeedClosed is returned by Subscribe once the feed is closed (the server is stopping).
var ErrFeedClosed = livefeed.ErrClosed

// NewFeed returns a feed over the read model in pool; interval 0 means DefaultFeedInterval.
func NewFeed(pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) *Feed {
	if interval <= 0 {
		interval = DefaultFeedInterval
	}
	src := livefeed.Source[string, int64]{
		Name: "history feed",
		Head: func(ctx context.Context) (int64, error) {
			var head int64
			err := pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM rm_history.items`).Scan(&head)
			return head, err
		},
		Poll: func(ctx context.Context, last int64) (map[string]int64, int64, error) {
			return newItems(ctx, pool, last)
		},
		Merge: func(older, newer int64) int64 { return max(older, newer) },
	}
	return &Feed{hub: livefeed.New(src, interval, log)}
}

// Subscribe returns a channel that receives the position of the newest item whenever new
// items land in userID's history (several new items may come as one value), and a function to
// stop listening. Every item that lands after Subscribe returns is announced.
func (f *Feed) Subscribe(ctx context.Context, userID string) (<-chan int64, func(), error) {
	return f.hub.Subscribe(ctx, userID)
}

// Close ends every subscription (their channels close) and refuses new ones, so that open
// streams end when the server shuts down instead of holding it up.
func (f *Feed) Close() { f.hub.Close() }

// newItems returns, per user, the position of their newest item after last, and the newest
// position of all.
func newItems(ctx context.Context, pool *pgxpool.Pool, last int64) (map[string]int64, int64, error) {
	rows, err := pool.Query(ctx, `SELECT user_id, max(position) FROM rm_history.items WHERE position > $1 GROUP BY user_id`, last)
	if err != nil {
		return nil, last, err
	}
	defer rows.Close()
	news := map[string]int64{}
	for rows.Next() {
		var u string
		var p int64
		if err := rows.Scan(&u, &p); err != nil {
			return nil, last, err
		}
		news[u] = p
		last = max(last, p)
	}
	return news, last, rows.Err()
}

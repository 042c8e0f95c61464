// Package livefeed tells listeners in one process when something they watch has changed, by
// polling a source while anyone listens. One poll per interval serves every listener, nothing
// runs while nobody listens, and a listener that is slow to read gets the changes it missed
// merged into one value rather than blocking the others.
//
// The signed-in history feed and the staff queue feed are both this shape; only the source and
// what a change says differ.
package livefeed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// ErrClosed is returned by Subscribe once the hub is closed (the server is stopping).
var ErrClosed = errors.New("live feed: closed")

// Source is what a hub polls.
type Source[K comparable, V any] struct {
	// Name names the feed in errors and logs.
	Name string
	// Head is the mark of the newest change now. It is read before the first Subscribe
	// returns, so a change made while the poller starts is not taken for an old one.
	Head func(ctx context.Context) (int64, error)
	// Poll returns the changes after mark, by listener key, and the new mark.
	Poll func(ctx context.Context, mark int64) (map[K]V, int64, error)
	// Merge folds a newer change into one a listener has not read yet.
	Merge func(older, newer V) V
}

// pollTimeout bounds one poll, so a stuck query delays the next round instead of stopping it.
const pollTimeout = 5 * time.Second

// Hub fans the source's changes out to listeners keyed by K.
type Hub[K comparable, V any] struct {
	src      Source[K, V]
	interval time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	subs    map[K]map[chan V]struct{}
	running bool
	closed  bool
}

// New returns a hub polling src every interval while anyone listens.
func New[K comparable, V any](src Source[K, V], interval time.Duration, log *slog.Logger) *Hub[K, V] {
	if log == nil {
		log = slog.Default()
	}
	return &Hub[K, V]{src: src, interval: interval, log: log, subs: map[K]map[chan V]struct{}{}}
}

// Subscribe returns a channel that receives every change for key made after Subscribe returns
// (several changes may come as one merged value), and a function to stop listening.
func (h *Hub[K, V]) Subscribe(ctx context.Context, key K) (<-chan V, func(), error) {
	ch := make(chan V, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, ErrClosed
	}
	if !h.running {
		mark, err := h.src.Head(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", h.src.Name, err)
		}
		h.running = true
		go h.poll(mark)
	}
	if h.subs[key] == nil {
		h.subs[key] = map[chan V]struct{}{}
	}
	h.subs[key][ch] = struct{}{}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if _, ok := h.subs[key][ch]; ok {
				close(ch)
				delete(h.subs[key], ch)
			}
			if len(h.subs[key]) == 0 {
				delete(h.subs, key)
			}
		})
	}, nil
}

// Close ends every subscription (their channels close) and refuses new ones, so open streams
// end when the server shuts down instead of holding it up.
func (h *Hub[K, V]) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for key, chans := range h.subs {
		for ch := range chans {
			close(ch)
		}
		delete(h.subs, key)
	}
}

// poll runs while anyone listens, announcing the changes after mark.
func (h *Hub[K, V]) poll(mark int64) {
	tick := time.NewTicker(h.interval)
	defer tick.Stop()
	for {
		<-tick.C
		h.mu.Lock()
		if len(h.subs) == 0 {
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		if err := h.round(&mark); err != nil {
			h.log.Warn(h.src.Name+": polling failed; retrying", "err", err)
		}
	}
}

func (h *Hub[K, V]) round(mark *int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
	defer cancel()
	news, next, err := h.src.Poll(ctx, *mark)
	if err != nil {
		return fmt.Errorf("%s: %w", h.src.Name, err)
	}
	*mark = next
	h.mu.Lock()
	defer h.mu.Unlock()
	for key, v := range news {
		for ch := range h.subs[key] {
			// Only this goroutine sends, under h.mu: after taking an unread value out, the send
			// cannot block.
			select {
			case ch <- v:
			default:
				merged := v
				select {
				case older := <-ch:
					merged = h.src.Merge(older, v)
				default:
				}
				ch <- merged
			}
		}
	}
	return nil
}

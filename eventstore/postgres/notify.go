package postgres

import (
	"context"
	"sync"
	"time"
)

// Signal is a broadcast: Wait returns a channel that closes at the next Notify.
type Signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// NewSignal returns a ready Signal.
func NewSignal() *Signal { return &Signal{ch: make(chan struct{})} }

// Wait returns a channel closed by the next Notify. Take it before checking for work, so a
// notification between the check and the wait is not lost.
func (s *Signal) Wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// Notify wakes every current waiter.
func (s *Signal) Notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.ch)
	s.ch = make(chan struct{})
}

// announce wakes local subscribers at once and asks the notifier to tell other processes.
func (s *Store) announce() {
	s.start()
	s.signal.Notify()
	select {
	case s.notifyQ <- struct{}{}:
	default: // a NOTIFY is already pending; it covers this append too
	}
}

// notifier sends NOTIFY outside the append transactions, coalescing bursts into one message:
// NOTIFY inside a transaction takes a cluster-wide lock until commit and would serialise writers.
func (s *Store) notifier(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.notifyQ:
		}
		if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, '')`, Channel); err != nil && ctx.Err() == nil {
			s.logger.Warn("eventstore: notify failed; other processes fall back to polling", "err", err)
		}
		// Each NOTIFY is a transaction of its own on the server. Under load, one every few
		// milliseconds wakes other processes just as well as one per append, at a fraction of
		// the cost; appends in between are covered by the next one.
		select {
		case <-ctx.Done():
			return
		case <-time.After(notifyMinInterval):
		}
	}
}

// notifyMinInterval spaces NOTIFYs out; it bounds how late another process hears of an append.
const notifyMinInterval = 5 * time.Millisecond

// listen wakes local subscribers on NOTIFY from any process, and on a poll tick as the fallback
// for events whose visibility was held back by an append that was still running.
func (s *Store) listen(ctx context.Context) {
	ticker := time.NewTicker(s.pollInterval)
	defer ticker.Stop()
	notified := make(chan struct{}, 1)
	go func() {
		backoff := 100 * time.Millisecond
		for ctx.Err() == nil {
			conn, err := s.pool.Acquire(ctx)
			if err == nil {
				_, err = conn.Exec(ctx, "LISTEN "+Channel)
				for err == nil {
					backoff = 100 * time.Millisecond
					if _, err = conn.Conn().WaitForNotification(ctx); err == nil {
						select {
						case notified <- struct{}{}:
						default:
						}
					}
				}
				// The connection may hold a LISTEN; never return it to the pool.
				conn.Hijack().Close(context.Background()) //nolint:errcheck
			}
			if ctx.Err() != nil {
				return
			}
			s.logger.Warn("eventstore: listener lost; retrying", "err", err, "backoff", backoff)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 5*time.Second)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-notified:
		}
		s.signal.Notify()
	}
}

package command

import (
	"context"
	"sync"

	"clearvest/eventstore"
)

// streamLocks lets one command at a time decide on a stream in this process. Without it,
// commands on a busy stream all decide on the same version and all but one append in vain, try
// again and again and may give up; with it they take turns, each deciding on what the one before
// stored (from the cache, without a read). Commands in other processes can still get in between;
// the append's expected version catches those as before.
type streamLocks struct {
	mu    sync.Mutex
	locks map[eventstore.StreamID]*streamLock
}

type streamLock struct {
	ch   chan struct{} // holds a value while the stream is locked
	refs int           // holders and waiters; the lock is dropped from the map at zero
}

// lock waits for the stream's turn, or for ctx to end; the returned function ends the turn.
func (l *streamLocks) lock(ctx context.Context, stream eventstore.StreamID) (func(), error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[eventstore.StreamID]*streamLock{}
	}
	sl, ok := l.locks[stream]
	if !ok {
		sl = &streamLock{ch: make(chan struct{}, 1)}
		l.locks[stream] = sl
	}
	sl.refs++
	l.mu.Unlock()

	select {
	case sl.ch <- struct{}{}:
		return func() { <-sl.ch; l.done(stream, sl) }, nil
	case <-ctx.Done():
		l.done(stream, sl)
		return nil, ctx.Err()
	}
}

func (l *streamLocks) done(stream eventstore.StreamID, sl *streamLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sl.refs--; sl.refs == 0 {
		delete(l.locks, stream)
	}
}

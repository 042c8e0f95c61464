package command

import (
	"cmp"
	"container/list"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
)

// history is what the runner knows of a stream up to a version: its decoded events, when its
// first event was recorded, and which events carry an idempotency key. A history never changes
// once made (a longer one is a new value), so commands may replay it concurrently; and making
// the longer one costs what it adds, however long the stream, because histories of a stream
// share the arrays behind them (eventLog) and an index of its keys (keyIndex).
type history struct {
	version int64
	// position is the global position of the stream's event at version (0 for none): what a
	// query waits for to see the stream as this history does.
	position int64
	// base is the version of the snapshot the history starts from (0: the stream's start), and
	// snap what it has of the events up to it; events then hold the versions after base.
	base    int64
	snap    *snapshotBase
	events  []aggregate.Event // this history's view of log.all
	log     *eventLog
	started time.Time

	// keys indexes the keyed events of the histories put in the cache (published); pending are
	// this history's keyed events not yet there, found by a scan.
	keys      *keyIndex
	pending   []keyRef
	published atomic.Bool
}

// keyRef is an event appended by a request with an idempotency key.
type keyRef struct {
	key, hash string
	version   int64
}

// eventLog is the array a stream's histories view a prefix of. Only the history whose view is
// all of it (the tip) appends in place; the others copy first. Nothing below a view's length is
// ever written again, so a view never changes.
type eventLog struct {
	mu  sync.Mutex
	all []aggregate.Event
}

// keyIndex holds the keyed events of a stream's published histories, each a fact of the stream
// (a version holds one event), so a history sees the entries up to its version.
type keyIndex struct {
	mu   sync.RWMutex
	refs map[string][]keyRef
}

// extended returns h followed by stored envelopes and the events they hold.
func (h *history) extended(stored []eventstore.Envelope, events []aggregate.Event) *history {
	next := &history{version: h.version, position: h.position, started: h.started, base: h.base, snap: h.snap, keys: h.keys, log: h.log}
	if next.log == nil {
		next.log = &eventLog{}
	}
	if next.keys == nil {
		next.keys = &keyIndex{refs: map[string][]keyRef{}}
	}
	next.log.mu.Lock()
	if len(next.log.all) != len(h.events) {
		// Another history appended beyond h (or h copied from elsewhere): start a log of its own.
		next.log.mu.Unlock()
		next.log = &eventLog{all: append(make([]aggregate.Event, 0, 2*len(h.events)+len(events)), h.events...)}
		next.log.mu.Lock()
	}
	next.log.all = append(next.log.all, events...)
	next.events = next.log.all
	next.log.mu.Unlock()

	if !h.published.Load() {
		next.pending = h.pending[:len(h.pending):len(h.pending)]
	}
	for _, env := range stored {
		next.version, next.position = env.Version, env.Position
		if env.Version == 1 {
			next.started = env.RecordedAt
		}
		if env.Metadata.IdempotencyKey != "" {
			next.pending = append(next.pending, keyRef{key: env.Metadata.IdempotencyKey, hash: env.Metadata.RequestHash, version: env.Version})
		}
	}
	return next
}

// publish moves h's pending keys into the stream's index; the cache does it for what it keeps,
// which is only ever what was committed.
func (h *history) publish() {
	if h.published.Load() {
		return
	}
	if h.keys != nil && len(h.pending) > 0 {
		h.keys.mu.Lock()
		for _, k := range h.pending {
			if !slices.ContainsFunc(h.keys.refs[k.key], func(o keyRef) bool { return o.version == k.version }) {
				h.keys.refs[k.key] = append(h.keys.refs[k.key], k)
			}
		}
		h.keys.mu.Unlock()
	}
	h.published.Store(true)
}

// keyed returns the events of an earlier request with the idempotency key, in version order.
func (h *history) keyed(key string) []keyRef {
	if key == "" {
		return nil
	}
	var out []keyRef
	if h.keys != nil {
		h.keys.mu.RLock()
		for _, k := range h.keys.refs[key] {
			if k.version <= h.version {
				out = append(out, k)
			}
		}
		h.keys.mu.RUnlock()
	}
	for _, k := range h.pending {
		if k.key == key && !slices.ContainsFunc(out, func(o keyRef) bool { return o.version == k.version }) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b keyRef) int { return cmp.Compare(a.version, b.version) })
	return out
}

// cache keeps the histories of recently used streams, so that the common command (one writer
// per stream at a time) neither reads nor decodes its stream. It may be behind the store
// (another process appended): a command that appends finds out from the append's expected
// version, and one that decides to append nothing checks the stream's tail first (Execute), so
// an answer is never based on an old state. Least recently used streams go first once there are
// more than size, and a stream unused for longer than idle is dropped at the next put, since
// histories hold decoded, and so decrypted, personal data.
type cache struct {
	size int
	idle time.Duration
	now  func() time.Time

	mu      sync.Mutex
	entries map[eventstore.StreamID]*list.Element
	lru     list.List // front: most recently used; values are *cached
}

type cached struct {
	stream eventstore.StreamID
	h      *history
	used   time.Time
	// built is an aggregate built from h (events and version), ready for the stream's next
	// command: it is lent to one command at a time (nil while lent), and only handed back when
	// its state is h's again, so a command costs no replay however long the stream.
	built Aggregate
	// snapshot is the version of the latest snapshot of the stream this process saved (one it
	// loaded from is the history's base).
	snapshot int64
}

func newCache(size int, idle time.Duration) *cache {
	if size <= 0 {
		return nil
	}
	return &cache{size: size, idle: idle, now: time.Now, entries: map[eventstore.StreamID]*list.Element{}}
}

func (c *cache) get(stream eventstore.StreamID) *history {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[stream]
	if !ok {
		return nil
	}
	e := el.Value.(*cached)
	now := c.now()
	if c.idle > 0 && now.Sub(e.used) > c.idle {
		c.remove(el)
		return nil
	}
	e.used = now
	c.lru.MoveToFront(el)
	return e.h
}

// put records h unless the cache already holds a later version of the stream (a concurrent
// command that finished first).
func (c *cache) put(stream eventstore.StreamID, h *history) {
	if c == nil || h == nil {
		return
	}
	h.publish()
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if el, ok := c.entries[stream]; ok {
		e := el.Value.(*cached)
		if e.h.version < h.version {
			e.built = nil
		}
		if e.h.version <= h.version {
			e.h = h
		}
		e.used = now
		c.lru.MoveToFront(el)
	} else {
		c.entries[stream] = c.lru.PushFront(&cached{stream: stream, h: h, used: now})
	}
	for c.lru.Len() > c.size {
		c.remove(c.lru.Back())
	}
	for c.idle > 0 && c.lru.Len() > 0 && now.Sub(c.lru.Back().Value.(*cached).used) > c.idle {
		c.remove(c.lru.Back())
	}
}

// borrow takes the stream's built aggregate when it was built from h's version, leaving none in
// its place until it is handed back.
func (c *cache) borrow(stream eventstore.StreamID, h *history) Aggregate {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[stream]
	if !ok {
		return nil
	}
	e := el.Value.(*cached)
	if e.built == nil || e.h.version != h.version || e.built.LoadedVersion() != h.version {
		return nil
	}
	agg := e.built
	e.built = nil
	return agg
}

// giveBack keeps agg as the stream's built aggregate if its state is the cached history's: it
// raised nothing since it was lent, or what it raised is now in the history.
func (c *cache) giveBack(stream eventstore.StreamID, agg Aggregate) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[stream]
	if !ok {
		return
	}
	if e := el.Value.(*cached); e.h.version == agg.LoadedVersion() {
		e.built = agg
	}
}

// lastSnapshot returns the version of the latest snapshot of the stream this process saved.
func (c *cache) lastSnapshot(stream eventstore.StreamID) int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[stream]; ok {
		return el.Value.(*cached).snapshot
	}
	return 0
}

// snapshotSeen records that the stream has a snapshot at version.
func (c *cache) snapshotSeen(stream eventstore.StreamID, version int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[stream]; ok {
		e := el.Value.(*cached)
		e.snapshot = max(e.snapshot, version)
	}
}

func (c *cache) forget(stream eventstore.StreamID) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[stream]; ok {
		c.remove(el)
	}
}

func (c *cache) remove(el *list.Element) {
	delete(c.entries, el.Value.(*cached).stream)
	c.lru.Remove(el)
}

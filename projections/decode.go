package projections

import (
	"context"
	"sync"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
)

// decodeCache holds the events of one batch decoded so far, so that an event several read
// models read (a confirmed deposit: ledger, wallets, history, activity, ...) is decoded, and its
// personal fields opened, once per batch rather than once per projection. It lives only as long
// as the batch's transaction: nothing opened outlives the batch, so erasing a person's key
// (crypto-shredding) takes effect at the next batch as it did without it.
//
// The decoded events are shared between projections and must not be changed by them; events are
// struct values, so only slices and maps inside them could be, and no projection writes to those.
type decodeCache struct {
	mu     sync.Mutex
	events map[decodeKey]aggregate.Event
}

// decodeKey names a decoded event: a position is one event of the log, and the codec is part of
// the key because projections built with different codecs (tests) may decode it differently.
type decodeKey struct {
	codec    *eventstore.Registry
	position int64
}

type decodeCacheKey struct{}

// withDecodeCache returns ctx carrying a new, empty cache for one batch.
func withDecodeCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, decodeCacheKey{}, &decodeCache{events: map[decodeKey]aggregate.Event{}})
}

// Decode is codec.Decode(env) for a projection's Apply: within a batch the runner applies, each
// event is decoded once for every projection that reads it. Outside a batch (ctx without one) it
// decodes every time. Errors are not kept: a failure that can pass (a key store that did not
// answer) is tried again by the next projection.
func Decode(ctx context.Context, codec *eventstore.Registry, env eventstore.Envelope) (aggregate.Event, error) {
	c, _ := ctx.Value(decodeCacheKey{}).(*decodeCache)
	if c == nil {
		return codec.Decode(env)
	}
	k := decodeKey{codec: codec, position: env.Position}
	c.mu.Lock()
	e, ok := c.events[k]
	c.mu.Unlock()
	if ok {
		return e, nil
	}
	e, err := codec.Decode(env)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.events[k] = e
	c.mu.Unlock()
	return e, nil
}

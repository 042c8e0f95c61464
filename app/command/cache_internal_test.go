package command

import (
	"testing"
	"time"

	"clearvest/eventstore"
)

func TestCacheKeepsTheMostRecentlyUsedStreams(t *testing.T) {
	t.Parallel()
	c := newCache(2, 0)
	c.put("s-a", &history{version: 1})
	c.put("s-b", &history{version: 1})
	c.get("s-a")
	c.put("s-c", &history{version: 1})
	if c.get("s-b") != nil {
		t.Error("the least recently used stream was kept beyond the size")
	}
	if c.get("s-a") == nil || c.get("s-c") == nil {
		t.Error("a recently used stream was dropped")
	}
}

func TestCacheNeverGoesBackAVersion(t *testing.T) {
	t.Parallel()
	c := newCache(10, 0)
	c.put("s-a", &history{version: 5})
	c.put("s-a", &history{version: 4})
	if h := c.get("s-a"); h == nil || h.version != 5 {
		t.Fatalf("cached %+v, want version 5", h)
	}
	c.forget("s-a")
	if c.get("s-a") != nil {
		t.Error("a forgotten stream is still cached")
	}
}

func TestCacheDropsIdleStreams(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	c := newCache(10, time.Minute)
	c.now = func() time.Time { return now }
	c.put("s-old", &history{version: 1})
	now = now.Add(2 * time.Minute)
	c.put("s-new", &history{version: 1})
	c.mu.Lock()
	_, kept := c.entries[eventstore.StreamID("s-old")]
	c.mu.Unlock()
	if kept {
		t.Error("a stream idle for longer than the limit is still held after a put")
	}
	now = now.Add(2 * time.Minute)
	if c.get("s-new") != nil {
		t.Error("get returned a stream idle for longer than the limit")
	}
}

func TestNoCacheIsANoOp(t *testing.T) {
	t.Parallel()
	var c *cache = newCache(0, 0)
	c.put("s-a", &history{version: 1})
	if c.get("s-a") != nil {
		t.Error("a disabled cache returned a history")
	}
	c.forget("s-a")
}

package password

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

var cheap = Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestWaitingForASlotRespectsTheContext(t *testing.T) {
	t.Parallel()
	h := NewHasher(cheap, 1)
	h.slots <- struct{}{} // another request holds the only slot
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Hash(ctx, "some password"); !errors.Is(err, context.Canceled) {
		t.Errorf("Hash with every slot taken and a cancelled context = %v", err)
	}
	encoded := encode(cheap, make([]byte, 16), make([]byte, 32))
	if _, err := h.Verify(ctx, "some password", encoded); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify with every slot taken and a cancelled context = %v", err)
	}
	if err := h.DummyVerify(ctx, "some password"); !errors.Is(err, context.Canceled) {
		t.Errorf("DummyVerify with every slot taken and a cancelled context = %v", err)
	}
	<-h.slots
	if _, err := h.Hash(context.Background(), "some password"); err != nil {
		t.Errorf("Hash after the slot is free: %v", err)
	}
}

func TestConcurrencyIsCapped(t *testing.T) {
	t.Parallel()
	h := NewHasher(cheap, 2)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if err := h.acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			running.Add(-1)
			h.release()
		})
	}
	wg.Wait()
	if peak.Load() > 2 {
		t.Errorf("%d hashes ran at once, cap is 2", peak.Load())
	}
	if NewHasher(cheap, 0) == nil || cap(NewHasher(cheap, 0).slots) < 2 {
		t.Error("the default concurrency is below 2")
	}
}

func TestCommonListShape(t *testing.T) {
	t.Parallel()
	set := common()
	if len(set) < 1000 || len(set) > 10000 {
		t.Errorf("common list has %d entries, want 1,000–10,000", len(set))
	}
	for p := range set {
		if n := utf8.RuneCountInString(p); n < MinLength || n > MaxLength || p != strings.ToLower(p) {
			t.Errorf("entry %q is outside the length rule or not lower-case: it can never match", p)
		}
	}
}

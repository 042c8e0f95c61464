package clock_test

import (
	"sync"
	"testing"
	"time"

	"clearvest/domain/clock"
)

var _ clock.Clock = (*clock.Manual)(nil)

func TestSystemIsUTCAndCurrent(t *testing.T) {
	t.Parallel()
	before := time.Now()
	got := clock.System().Now()
	after := time.Now()
	if got.Location() != time.UTC {
		t.Errorf("System().Now() location = %v, want UTC", got.Location())
	}
	if got.Before(before.Add(-time.Second)) || got.After(after.Add(time.Second)) {
		t.Errorf("System().Now() = %v, not between %v and %v", got, before, after)
	}
}

func TestFixedNeverMoves(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	c := clock.Fixed(at)
	first := c.Now()
	if !first.Equal(at) || first.Location() != time.UTC {
		t.Fatalf("Fixed(%v).Now() = %v", at, first)
	}
	if second := c.Now(); !second.Equal(first) {
		t.Errorf("Fixed clock moved from %v to %v", first, second)
	}
}

func TestManualAdvanceAndSet(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := clock.NewManual(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Now() = %v, want %v", c.Now(), start)
	}
	if got := c.Advance(72 * time.Hour); !got.Equal(start.Add(72*time.Hour)) || !c.Now().Equal(got) {
		t.Errorf("Advance(72h) = %v, Now() = %v", got, c.Now())
	}
	c.Advance(-time.Hour)
	if want := start.Add(71 * time.Hour); !c.Now().Equal(want) {
		t.Errorf("after Advance(-1h) Now() = %v, want %v", c.Now(), want)
	}
	local := time.Date(2030, 6, 1, 9, 0, 0, 0, time.FixedZone("X", -5*3600))
	c.Set(local)
	if !c.Now().Equal(local) || c.Now().Location() != time.UTC {
		t.Errorf("after Set(%v) Now() = %v", local, c.Now())
	}
}

func TestManualIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := clock.NewManual(start)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			c.Advance(time.Second)
			_ = c.Now()
		})
	}
	wg.Wait()
	if want := start.Add(50 * time.Second); !c.Now().Equal(want) {
		t.Errorf("Now() = %v, want %v", c.Now(), want)
	}
}

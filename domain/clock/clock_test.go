package clock_test

import (
	"errors"
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

func TestOffsetClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	base := clock.NewManual(start)
	o := clock.NewOffset(base)
	if got := o.Now(); !got.Equal(start) || o.Offset() != 0 {
		t.Fatalf("a new offset clock reads %s (offset %s), want %s", got, o.Offset(), start)
	}
	if off, err := o.Advance(72 * time.Hour); err != nil || off != 72*time.Hour {
		t.Fatalf("Advance(72h) = %s, %v", off, err)
	}
	base.Advance(time.Minute)
	if want := start.Add(72*time.Hour + time.Minute); !o.Now().Equal(want) {
		t.Errorf("Now() = %s, want %s: the offset clock must keep running with its base", o.Now(), want)
	}
	for _, d := range []time.Duration{0, -time.Second, clock.MaxAdvance + time.Nanosecond} {
		if off, err := o.Advance(d); !errors.Is(err, clock.ErrBadAdvance) || off != 72*time.Hour {
			t.Errorf("Advance(%s) = %s, %v; want ErrBadAdvance and the offset unchanged", d, off, err)
		}
	}
	if _, err := o.Advance(clock.MaxAdvance); err != nil {
		t.Errorf("Advance(MaxAdvance): %v", err)
	}
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		_, err = o.Advance(clock.MaxAdvance)
	}
	if err == nil || o.Offset() > 100*365*24*time.Hour {
		t.Errorf("the offset grew to %s without refusal", o.Offset())
	}
}

func TestOffsetClockConcurrentAdvances(t *testing.T) {
	t.Parallel()
	o := clock.NewOffset(clock.System())
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := o.Advance(time.Hour); err != nil {
				t.Error(err)
			}
			_ = o.Now()
		}()
	}
	wg.Wait()
	if o.Offset() != 50*time.Hour {
		t.Errorf("offset %s after 50 advances of 1h", o.Offset())
	}
}

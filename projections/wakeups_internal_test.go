package projections

import (
	"testing"
	"time"
)

// TestWakeupsWaitForAWindowBoundaryUnderLoad checks when a runner's next batch starts: at once
// after a quiet spell, otherwise at the end of a window of the shared clock, also after a batch
// that took longer than a window, so that every runner steps on the same boundaries and shares
// one read of the log.
func TestWakeupsWaitForAWindowBoundaryUnderLoad(t *testing.T) {
	const window = 20 * time.Millisecond
	w := wakeups{window: window}
	slot := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC) // a window boundary
	ms := func(n int) time.Time { return slot.Add(time.Duration(n) * time.Millisecond) }
	for _, c := range []struct {
		name              string
		now, began, ended time.Time
		passed            int
		want              time.Duration
	}{
		{"the last batch was empty", ms(5), ms(1), ms(3), 0, 0},
		{"quiet for a window since the last batch", ms(64), ms(1), ms(44), 7, 0},
		{"woken within the batch's window", ms(6), ms(1), ms(4), 7, 14 * time.Millisecond},
		{"the batch took longer than its window", ms(33), ms(1), ms(32), 7, 7 * time.Millisecond},
		{"the batch took several windows", ms(75), ms(1), ms(75), 7, 5 * time.Millisecond},
		{"woken exactly on a boundary after a long batch", ms(40), ms(1), ms(39), 7, window},
	} {
		if got := w.wait(c.now, c.began, c.ended, c.passed); got != c.want {
			t.Errorf("%s: wait %v, want %v", c.name, got, c.want)
		}
	}
}

package main

import (
	"context"
	"testing"
	"time"

	"clearvest/platform/pgtest"
)

// An open loop keeps sending on schedule while the system is stuck, and counts each command's
// wait from its scheduled time: here the first command holds the only writer for 60 ms, during
// which the other 49 commands fall due, so each of them waits at least 11 ms (due by 49 ms,
// started after 60 ms) however fast the machine is. A closed loop would report them as instant.
func TestOpenLoopCountsTimeFromTheSchedule(t *testing.T) {
	pool := pgtest.NewPool(t)
	var first time.Time
	im := &impl{name: "stuck", pool: pool, run: func(_ context.Context, _, n int) error {
		if n == 0 {
			first = time.Now()
			for time.Since(first) < 60*time.Millisecond {
				time.Sleep(time.Millisecond)
			}
		}
		return nil
	}}
	r := openLoop(context.Background(), im, newWriters(1, []int64{0}), 1000, 50*time.Millisecond)
	if r.done != 50 || r.failed != 0 {
		t.Fatalf("%d commands done, %d failed; want 50 and 0", r.done, r.failed)
	}
	if r.p50 < 11*time.Millisecond {
		t.Errorf("p50 = %v: commands that waited for the stuck writer were timed from when they started, not from when they were due", r.p50)
	}
	closed := closedLoop(context.Background(), &impl{name: "instant", pool: pool, run: func(context.Context, int, int) error { return nil }},
		newWriters(1, []int64{0}), 10*time.Millisecond)
	if closed.done == 0 || closed.failed != 0 {
		t.Errorf("closed loop: %+v", closed)
	}
}

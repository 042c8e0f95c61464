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

// Projection lag counts from a command's answer until the slowest projection's checkpoint has
// passed its position, and a position no checkpoint reaches is reported as not applied.
func TestLagMeterWaitsForTheSlowestProjection(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE projection_checkpoints (name text PRIMARY KEY, position bigint NOT NULL);
		INSERT INTO projection_checkpoints VALUES ('fast', 0), ('slow', 0)`); err != nil {
		t.Fatal(err)
	}
	m := newLagMeter(pool)
	defer m.stop()
	m.patience = 200 * time.Millisecond
	m.committed(5)
	m.committed(9)
	if _, err := pool.Exec(ctx, `UPDATE projection_checkpoints SET position = 9 WHERE name = 'fast'`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond) // the time the slow projection takes, which the meter must count
	if _, err := pool.Exec(ctx, `UPDATE projection_checkpoints SET position = 6 WHERE name = 'slow'`); err != nil {
		t.Fatal(err)
	}
	lags, unapplied := m.take()
	if len(lags) != 1 || unapplied != 1 {
		t.Fatalf("lags %v, %d not applied; want one lag and position 9 not applied", lags, unapplied)
	}
	if lags[0] < 30*time.Millisecond {
		t.Errorf("lag %v, want at least the 30 ms the slow projection took", lags[0])
	}
}

package main

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"clearvest/platform/pgtest"
)

// result is one run of one impl.
type result struct {
	impl             string
	offered          float64 // commands per second asked for; 0 for a closed loop
	done, failed     int
	dropped          int     // not sent: already maxLag late when a writer got to them
	achieved         float64 // commands per second completed
	p50, p99, p999   time.Duration
	goCPU, pgCPU     time.Duration // per command
	goCPUok, pgCPUok bool
	firstErr         error
	lag              *lagSummary // projection lag, for impls that measure it
}

// writers hands out each writer's commands in order, so that a writer's streams grow one
// version at a time whichever goroutine runs them.
type writers struct {
	next []atomic.Int64
}

func newWriters(n int, start []int64) *writers {
	w := &writers{next: make([]atomic.Int64, n)}
	for i := range w.next {
		w.next[i].Store(start[i])
	}
	return w
}

// maxLag is how late a command may start before the open loop gives it up: a system that
// cannot keep up would otherwise take minutes to work off the backlog of a 10-second run.
const maxLag = 5 * time.Second

// openLoop offers rate commands per second for d, spread over the writers' goroutines, and
// measures each command's latency from the moment it was scheduled to be sent: a command that
// waits because every writer is busy counts its wait, as a client's request would (no
// coordinated omission). The schedule never slows down for the system under test; commands
// more than maxLag late are dropped and counted, so an overloaded run still ends.
func openLoop(ctx context.Context, im *impl, ws *writers, rate float64, d time.Duration) result {
	total := int(rate * d.Seconds())
	interval := time.Duration(float64(time.Second) / rate)
	due := make(chan time.Time, total)
	latencies := make([][]time.Duration, len(ws.next))
	var failed, dropped atomic.Int64
	var firstErr atomic.Pointer[error]
	cpu := pgtest.NewCPUMeter(im.pool).Including(im.serverPID)
	if im.lag != nil {
		im.lag.take() // what the runs before left
	}
	var wg sync.WaitGroup
	for w := range ws.next {
		wg.Go(func() {
			for at := range due {
				if time.Since(at) > maxLag {
					dropped.Add(1)
					continue
				}
				n := int(ws.next[w].Add(1) - 1)
				if err := im.run(ctx, w, n); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, &err)
				}
				latencies[w] = append(latencies[w], time.Since(at))
			}
		})
	}
	cpu.Start()
	start := time.Now()
	for sent := 0; sent < total; {
		for now := time.Now(); sent < total && start.Add(time.Duration(sent)*interval).Compare(now) <= 0; sent++ {
			due <- start.Add(time.Duration(sent) * interval)
		}
		time.Sleep(min(interval, time.Millisecond))
	}
	close(due)
	wg.Wait()
	elapsed := time.Since(start)
	cpu.Stop()
	r := summarise(im.name, slices.Concat(latencies...), elapsed, cpu)
	r.lag = summariseLag(im.lag)
	r.offered = rate
	r.failed = int(failed.Load())
	r.dropped = int(dropped.Load())
	if e := firstErr.Load(); e != nil {
		r.firstErr = *e
	}
	return r
}

// closedLoop runs the writers as fast as they go for d, each starting its next command when the
// last returned: the most the system completes at this concurrency, and the latency it costs.
func closedLoop(ctx context.Context, im *impl, ws *writers, d time.Duration) result {
	latencies := make([][]time.Duration, len(ws.next))
	var failed atomic.Int64
	var firstErr atomic.Pointer[error]
	cpu := pgtest.NewCPUMeter(im.pool).Including(im.serverPID)
	if im.lag != nil {
		im.lag.take() // what the runs before left
	}
	deadline := time.Now().Add(d)
	cpu.Start()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range ws.next {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				n := int(ws.next[w].Add(1) - 1)
				t := time.Now()
				if err := im.run(ctx, w, n); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, &err)
				}
				latencies[w] = append(latencies[w], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu.Stop()
	r := summarise(im.name, slices.Concat(latencies...), elapsed, cpu)
	r.lag = summariseLag(im.lag)
	r.failed = int(failed.Load())
	if e := firstErr.Load(); e != nil {
		r.firstErr = *e
	}
	return r
}

func summarise(name string, all []time.Duration, elapsed time.Duration, cpu *pgtest.CPUMeter) result {
	slices.Sort(all)
	r := result{impl: name, done: len(all), p50: pgtest.Percentile(all, 0.50), p99: pgtest.Percentile(all, 0.99),
		p999: pgtest.Percentile(all, 0.999)}
	if elapsed > 0 {
		r.achieved = float64(len(all)) / elapsed.Seconds()
	}
	self, server, selfOK, serverOK := cpu.Used()
	if n := len(all); n > 0 {
		r.goCPU, r.pgCPU = self/time.Duration(n), server/time.Duration(n)
		r.goCPUok, r.pgCPUok = selfOK, serverOK
	}
	return r
}

package pgtest

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// RunWriters runs op on writers goroutines, each taking the next operation as soon as it
// finished the last (a closed loop, like clients waiting for their answers), and reports wall
// time per operation (ns/op), throughput in unit, latency percentiles and CPU per operation of
// this process and of the database. It returns how many operations ran.
func RunWriters(b *testing.B, pool *pgxpool.Pool, writers int, unit string, op func(ctx context.Context, writer, op int) error) int {
	ctx := context.Background()
	// Connect every writer first (and one more for the CPU meter), so no connection's start-up
	// is timed or counted as CPU.
	conns := make([]*pgxpool.Conn, 0, writers+1)
	for range writers + 1 {
		c, err := pool.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
	cpu := NewCPUMeter(pool)
	work := make(chan struct{})
	latencies := make([][]time.Duration, writers)
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				if _, ok := <-work; !ok {
					return
				}
				start := time.Now()
				if err := op(ctx, w, i); err != nil {
					failed.CompareAndSwap(nil, &err)
				}
				latencies[w] = append(latencies[w], time.Since(start))
			}
		})
	}
	cpu.Start()
	start := time.Now()
	for b.Loop() {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	cpu.Stop()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	all := slices.Concat(latencies...)
	ops := float64(len(all))
	b.ReportMetric(float64(elapsed.Nanoseconds())/ops, "ns/op")
	b.ReportMetric(ops/elapsed.Seconds(), unit)
	ReportLatencies(b, all)
	cpu.Report(b, ops, "us/op")
	return len(all)
}

// ReportLatencies reports the median and 99th percentile of d in milliseconds (p50-ms, p99-ms).
// It sorts d.
func ReportLatencies(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(Percentile(d, 0.50).Seconds()*1000, "p50-ms")
	b.ReportMetric(Percentile(d, 0.99).Seconds()*1000, "p99-ms")
}

// Percentile is the nearest-rank percentile of sorted durations.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

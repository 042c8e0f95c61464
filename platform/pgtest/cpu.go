package pgtest

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CPUMeter adds up the CPU time this process and the database's backends spend while it runs.
// It depends much less than wall time on what else the machine is doing, which makes results
// from a shared host comparable. Backends are read from /proc, so their share is reported only
// when the server runs on this host and its processes are readable.
type CPUMeter struct {
	pool                 *pgxpool.Pool
	self, server         time.Duration
	selfOK, serverOK     bool
	running              bool
	startSelf, startServ time.Duration
	// also are more processes counted with this one (a server under test on this host).
	also []string
}

// Including counts the CPU time of these processes (by pid) as this process's: a load
// generator measuring a server it runs beside. It returns m.
func (m *CPUMeter) Including(pids ...int) *CPUMeter {
	for _, p := range pids {
		if p > 0 {
			m.also = append(m.also, strconv.Itoa(p))
		}
	}
	return m
}

// selfCPU is this process's CPU time and that of the processes it includes.
func (m *CPUMeter) selfCPU() (time.Duration, bool) {
	total, ok := procCPU("self")
	for _, p := range m.also {
		d, found := procCPU(p)
		total, ok = total+d, ok && found
	}
	return total, ok
}

// NewCPUMeter returns a stopped meter for the pool's database.
func NewCPUMeter(pool *pgxpool.Pool) *CPUMeter {
	_, selfOK := procCPU("self")
	_, serverOK := serverCPU(pool)
	return &CPUMeter{pool: pool, selfOK: selfOK, serverOK: serverOK}
}

// Start begins a measured interval.
func (m *CPUMeter) Start() {
	m.startSelf, m.selfOK = m.selfCPU()
	m.startServ, _ = serverCPU(m.pool)
	m.running = true
}

// Stop ends the interval; CPU time outside intervals is not counted.
func (m *CPUMeter) Stop() {
	if !m.running {
		return
	}
	self, selfOK := m.selfCPU()
	server, _ := serverCPU(m.pool)
	m.selfOK = m.selfOK && selfOK
	m.self += self - m.startSelf
	m.server += server - m.startServ
	m.running = false
}

// Used returns the CPU time counted so far, of this process and of the database's backends;
// ok is false for a part that could not be read.
func (m *CPUMeter) Used() (self, server time.Duration, selfOK, serverOK bool) {
	m.Stop()
	return m.self, m.server, m.selfOK, m.serverOK
}

// Report divides the CPU time by n and reports it in unit (e.g. "us/op" or "ns/event").
func (m *CPUMeter) Report(b *testing.B, n float64, unit string) {
	m.Stop()
	scale := map[string]float64{"us": 1e3, "ns": 1}[strings.SplitN(unit, "/", 2)[0]]
	if m.selfOK && n > 0 {
		b.ReportMetric(float64(m.self.Nanoseconds())/scale/n, "go-cpu-"+unit)
	}
	if m.serverOK && n > 0 {
		b.ReportMetric(float64(m.server.Nanoseconds())/scale/n, "pg-cpu-"+unit)
	}
}

// serverCPU is the CPU time of the backends connected to the pool's database.
func serverCPU(pool *pgxpool.Pool) (time.Duration, bool) {
	rows, err := pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		return 0, false
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return 0, false
	}
	var total time.Duration
	ok := false
	for _, pid := range pids {
		if d, found := procCPU(strconv.Itoa(int(pid))); found {
			total, ok = total+d, true
		}
	}
	return total, ok
}

// procCPU is a process's user and system time from /proc/<pid>/stat (Linux), in the kernel's
// USER_HZ ticks of 10 ms.
func procCPU(pid string) (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the parenthesised command name start with the state (field 3);
	// utime and stime are fields 14 and 15.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

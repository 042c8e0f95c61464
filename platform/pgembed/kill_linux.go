package pgembed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Kill crashes the server the way a power cut or the kernel's out-of-memory killer would: the
// postmaster and every process it started get SIGKILL at once, nothing is flushed, and the next
// Start replays the write-ahead log. It exists so that tests can prove the application survives
// a database crash; it waits until every process is gone (or ctx ends), so a Start right after
// it finds the port and the shared memory free.
func (c *Cluster) Kill(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.owned {
		return errors.New("pgembed: only the process that started the server may kill it")
	}
	// The children first get listed, then the postmaster dies (so it forks no more), then they do.
	children := childrenOf(c.pid)
	if err := syscall.Kill(c.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing the postmaster (pid %d): %w", c.pid, err)
	}
	for _, pid := range append(children, childrenOf(c.pid)...) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, pid := range append(children, c.pid) {
		for alive(pid) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for PostgreSQL process %d to end: %w", pid, ctx.Err())
			case <-time.After(5 * time.Millisecond): // the kernel reaps killed processes promptly
			}
		}
	}
	c.owned = false
	c.log.Warn("embedded PostgreSQL killed", "data_dir", c.paths.cluster, "pid", c.pid, "children", len(children))
	return nil
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses, so read after the last ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) >= 2 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// alive reports whether a process exists and is not a zombie waiting for its parent.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	fields := strings.Fields(rest)
	return len(fields) > 0 && fields[0] != "Z"
}

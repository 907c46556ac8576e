// Package proccpu measures processor time for the benchmarks: a local PostgreSQL server's (the
// postmaster and its backends, living and exited) and this process's own.
package proccpu

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPU accounting: how much processor time PostgreSQL (the postmaster and its backends, living
// and exited) and the client (this process, or pgbench) spend per transfer. On a machine where
// both share two cores, this, not the WAL flush, is what bounds throughput.

// clockTick is Linux's USER_HZ, the unit of /proc/<pid>/stat's times.
const clockTick = 10 * time.Millisecond

// Server is the processor time PostgreSQL has used so far: the postmaster's own and reaped
// children's, plus every live child's. Zero when the cluster is not local.
func Server(dataDir string) time.Duration {
	if dataDir == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	pm, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		return 0
	}
	entries, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, own, children, ok := procTimes(pid)
		switch {
		case !ok:
		case pid == pm:
			ticks += own + children
		case ppid == pm:
			ticks += own
		}
	}
	return time.Duration(ticks) * clockTick
}

// procTimes reads the parent, utime+stime and cutime+cstime of a process.
func procTimes(pid int) (ppid int, own, children int64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 15 {
		return 0, 0, 0, false
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return v }
	return int(n(4)), n(14) + n(15), n(16) + n(17), true
}

// Self is this process's processor time so far.
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

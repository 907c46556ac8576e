package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// resetPeakRSS resets the kernel's peak-RSS mark (VmHWM) of pid to its current RSS (Linux:
// "5" written to /proc/<pid>/clear_refs), so the VmHWM read after a scenario is that
// scenario's peak. It reports whether the reset worked; without it, the figure is the peak
// since the process started.
func resetPeakRSS(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

// peakRSSMiB is VmHWM of pid in MiB (0 when unreadable, e.g. off Linux).
func peakRSSMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest) // "123456 kB"
			if len(f) > 0 {
				kb, err := strconv.ParseFloat(f[0], 64)
				if err == nil {
					return round(kb/1024, 1)
				}
			}
		}
	}
	return 0
}

// loadAverage is the machine's one-minute load average (0 when unreadable).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// profiler fetches the started service's profiles (DEBUG_ADDR) for one scenario: a CPU
// profile and the block, mutex and allocation profiles' deltas over the attack, into dir (the
// allocations' delta is where a request's heap allocations come from: go tool pprof
// -sample_index=alloc_objects).
type profiler struct {
	base string // http://127.0.0.1:<port>
	dir  string
}

// during starts the four fetches for a scenario lasting d and returns a function that waits
// for them and reports what was written.
func (p *profiler) during(ctx context.Context, name string, d time.Duration) func() []string {
	secs := int((d - time.Second) / time.Second) // stop before the attack ends
	if secs < 1 {
		secs = 1
	}
	kinds := []struct{ file, path string }{
		{name + ".cpu.pprof", fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs)},
		{name + ".block.pprof", fmt.Sprintf("/debug/pprof/block?seconds=%d", secs)},
		{name + ".mutex.pprof", fmt.Sprintf("/debug/pprof/mutex?seconds=%d", secs)},
		{name + ".allocs.pprof", fmt.Sprintf("/debug/pprof/allocs?seconds=%d", secs)},
	}
	done := make(chan string, len(kinds))
	for _, k := range kinds {
		go func() {
			path := filepath.Join(p.dir, k.file)
			if err := fetchTo(ctx, p.base+k.path, path, d+30*time.Second); err != nil {
				done <- fmt.Sprintf("%s: %v", k.file, err)
				return
			}
			done <- path
		}()
	}
	return func() []string {
		out := make([]string, 0, len(kinds))
		for range kinds {
			out = append(out, <-done)
		}
		return out
	}
}

func fetchTo(ctx context.Context, url, path string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d", url, resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// durabilitySettings reads fsync, synchronous_commit and full_page_writes from the started
// cluster's configuration files under pgData (postgresql.conf, then corridor.conf, which it
// includes last, then postgresql.auto.conf: the last assignment wins, as in PostgreSQL); a
// setting assigned nowhere is PostgreSQL's default, on. It describes the files, so a server
// started with -c overrides would not show here.
func durabilitySettings(pgData string) string {
	vals := map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
	found := false
	for _, f := range []string{"postgresql.conf", "corridor.conf", "postgresql.auto.conf"} {
		b, err := os.ReadFile(filepath.Join(pgData, f))
		if err != nil {
			continue
		}
		found = true
		for _, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "#")
			name, value, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			name = strings.TrimSpace(name)
			if _, known := vals[name]; known {
				vals[name] = strings.Trim(strings.TrimSpace(value), "'")
			}
		}
	}
	if !found {
		return "unknown (cluster configuration not readable)"
	}
	return fmt.Sprintf("fsync=%s, synchronous_commit=%s, full_page_writes=%s", vals["fsync"], vals["synchronous_commit"], vals["full_page_writes"])
}

// cpuSeconds is the user+system CPU time pid has used (Linux /proc/<pid>/stat, in clock
// ticks of 1/100 s); ok is false when unreadable.
func cpuSeconds(pid int) (float64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces; the fields after its closing parenthesis
	// start at field 3, so utime and stime (fields 14 and 15) are at 11 and 12 there.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return (utime + stime) / 100, true
}

// postgresCPUSeconds is the CPU time of the started cluster: its postmaster (the first line of
// postmaster.pid under pgData) and every process whose parent it is (the backends serving
// the pool, the WAL writer, the checkpointer …). Backends that exited are not counted; the
// pool keeps its connections, so during a scenario that misses little.
func postgresCPUSeconds(pgData string) (float64, bool) {
	b, err := os.ReadFile(filepath.Join(pgData, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, false
	}
	total, ok := cpuSeconds(pm)
	if !ok {
		return 0, false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || parentOf(pid) != pm {
			continue
		}
		if s, ok := cpuSeconds(pid); ok {
			total += s
		}
	}
	return total, true
}

// parentOf is pid's parent process id (0 when unreadable).
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

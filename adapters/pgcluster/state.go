package pgcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runningPort returns the port of the postmaster that owns dataDir, or 0
// when none does. A postmaster.pid left by a crash, or naming a PID that has
// since been reused by another program, is removed: PostgreSQL itself refuses
// to start while the PID in it is alive, whatever that process is.
func runningPort(dataDir string, logf func(string, ...any)) (int, error) {
	pidFile := filepath.Join(dataDir, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	lines := strings.Split(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(lines[0]))
	port := 0
	if len(lines) > 3 {
		port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	if pid > 0 && port > 0 && isOurPostmaster(pid, dataDir) {
		return port, nil
	}
	logf("pgcluster: removing stale %s (pid %d is not its server)", pidFile, pid)
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("pgcluster: remove stale pid file: %w", err)
	}
	removeStaleSocketLocks(dataDir)
	return 0, nil
}

// isOurPostmaster checks that pid is alive and, where /proc can tell, is a
// postgres process working in dataDir (the postmaster chdirs there).
func isOurPostmaster(pid int, dataDir string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	proc := fmt.Sprintf("/proc/%d", pid)
	if _, err := os.Stat(proc); err != nil {
		return true // no procfs (macOS): trust the liveness check
	}
	if comm, err := os.ReadFile(proc + "/comm"); err == nil && !strings.HasPrefix(string(comm), "postgres") {
		return false
	}
	if stat, err := os.ReadFile(proc + "/stat"); err == nil && isZombie(stat) {
		return false // killed, not yet reaped by its new parent
	}
	if cwd, err := os.Readlink(proc + "/cwd"); err == nil {
		want, _ := filepath.EvalSymlinks(dataDir)
		return cwd == dataDir || cwd == want
	}
	return true
}

// removeStaleSocketLocks deletes .s.PGSQL.*.lock files a crashed server left
// in the socket directory (the data directory).
func removeStaleSocketLocks(dataDir string) {
	locks, _ := filepath.Glob(filepath.Join(dataDir, ".s.PGSQL.*.lock"))
	for _, l := range locks {
		os.Remove(l)
	}
}

// dirLock is an advisory lock that serialises Ensure across processes (two
// `make run` at once, parallel test binaries) and marks a throwaway cluster
// as owned while its process lives: the kernel drops it when the process
// dies, however it dies.
type dirLock struct{ f *os.File }

func lockFile(path string, wait bool) (*dirLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) unlock() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) // closing the file releases it anyway
		l.f.Close()
		l.f = nil
	}
}

// isZombie reads the state field of /proc/<pid>/stat, which follows the
// parenthesised command name.
func isZombie(stat []byte) bool {
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	return stat[i+2] == 'Z' || stat[i+2] == 'X'
}

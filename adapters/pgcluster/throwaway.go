package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	throwawayPrefix = "corridor-pg-"
	ownerLockName   = "owner.lock"
	// sweepMinAge keeps the sweeper away from a directory whose creator has
	// not locked it yet.
	sweepMinAge = time.Minute
)

// NewThrowaway starts a cluster tuned for tests in a new temporary directory
// and returns it; Remove stops it and deletes the directory. The directory
// stays locked while this process lives, and directories left by processes
// that died without Remove (a panicking or killed `go test`) are swept,
// their servers stopped, on the next call.
func NewThrowaway(ctx context.Context, logf func(string, ...any)) (*Cluster, error) {
	return newThrowaway(ctx, Options{}, logf)
}

// NewReplicatedThrowaway is NewThrowaway whose WAL a standby can stream (StartStandby).
func NewReplicatedThrowaway(ctx context.Context, logf func(string, ...any)) (*Cluster, error) {
	return newThrowaway(ctx, Options{Replicated: true}, logf)
}

// newThrowaway makes a throwaway cluster with o's Replicated and Settings (the rest is set here).
func newThrowaway(ctx context.Context, o Options, logf func(string, ...any)) (*Cluster, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	u, err := chooseUser("", logf)
	if err != nil {
		return nil, err
	}
	base, err := throwawayBase(u)
	if err != nil {
		return nil, err
	}
	sweepStale(base, logf)
	root, owner, err := makeOwnedTemp(base)
	if err != nil {
		return nil, err
	}
	o.DataDir, o.Throwaway, o.Logf = filepath.Join(root, "data"), true, logf
	c, err := Ensure(ctx, o)
	if err != nil {
		owner.unlock()
		os.RemoveAll(root)
		return nil, err
	}
	c.root, c.owner = root, owner
	return c, nil
}

// throwawayBase picks the first temporary directory the server's account
// can reach: TMPDIR may be private to the user (macOS, or a 0700 TMPDIR as
// root).
func throwawayBase(u osUser) (string, error) {
	var errs []error
	for _, base := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		err := u.checkTraversable(filepath.Join(base, "x"))
		if err == nil {
			return base, nil
		}
		errs = append(errs, err)
	}
	return "", errors.Join(errs...)
}

// makeOwnedTemp creates base/corridor-pg-*, world-traversable so the
// server's account reaches the data directory inside, and locks it.
func makeOwnedTemp(base string) (string, *dirLock, error) {
	root, err := os.MkdirTemp(base, throwawayPrefix)
	if err != nil {
		return "", nil, fmt.Errorf("pgcluster: %w", err)
	}
	owner, err := lockFile(filepath.Join(root, ownerLockName), false)
	if err == nil {
		err = os.Chmod(root, 0o755)
	}
	if err != nil {
		os.RemoveAll(root)
		return "", nil, fmt.Errorf("pgcluster: %w", err)
	}
	// owner.pid only helps a person find the owning process; the lock is what counts.
	_ = os.WriteFile(filepath.Join(root, "owner.pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	return root, owner, nil
}

// sweepStale removes throwaway directories whose owner lock is free, i.e.
// whose process is gone, stopping a server still running there.
func sweepStale(base string, logf func(string, ...any)) {
	dirs, _ := filepath.Glob(filepath.Join(base, throwawayPrefix+"*"))
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() || time.Since(fi.ModTime()) < sweepMinAge {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, ownerLockName), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			f.Close()
			continue // its owner is alive
		}
		logf("pgcluster: removing abandoned test cluster %s", dir)
		killServer(filepath.Join(dir, "data"))
		os.RemoveAll(dir)
		f.Close()
	}
}

// killServer asks a leftover postmaster for an immediate shutdown (SIGQUIT)
// and waits briefly for it to go, so its files can be deleted.
func killServer(dataDir string) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if pid <= 0 || !isOurPostmaster(pid, dataDir) {
		return
	}
	if syscall.Kill(pid, syscall.SIGQUIT) != nil {
		return // already gone
	}
	for i := 0; i < 50 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
}

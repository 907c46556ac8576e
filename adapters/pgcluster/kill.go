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

// Kill ends the server the way a machine dying ends it: SIGKILL to the postmaster and to
// every process it started, no shutdown checkpoint, its pid file left behind. It is for the
// chaos tests (a Citus worker or coordinator killed under load); Revive starts it again,
// through crash recovery. The backends are killed too, not left to notice their parent's
// death, so the node is gone at once and its shared memory is free for Revive.
func (c *Cluster) Kill() error {
	if c.compose != nil {
		return errors.New("pgcluster: Kill does not apply to a compose cluster")
	}
	b, err := os.ReadFile(filepath.Join(c.dataDir, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("pgcluster: kill: %w", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if pid <= 0 || !isOurPostmaster(pid, c.dataDir) {
		return fmt.Errorf("pgcluster: kill: no running server in %s", c.dataDir)
	}
	victims := append([]int{pid}, childrenOf(pid)...)
	for _, p := range victims {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	// Wait until every process is gone (or a zombie for its parent to reap): a bound for a
	// hang, SIGKILL itself is not refused.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !anyAlive(victims) {
			return nil
		}
	}
	return fmt.Errorf("pgcluster: kill: processes of %s still alive after SIGKILL", c.dataDir)
}

// Revive starts a killed server again on its port and waits until it answers: PostgreSQL runs
// crash recovery from its WAL first, so what committed before the kill is there.
func (c *Cluster) Revive(ctx context.Context) error {
	if c.compose != nil {
		return errors.New("pgcluster: Revive does not apply to a compose cluster")
	}
	return c.bringUp(ctx, c.port)
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command (which may hold spaces) start after the last ')':
		// state, then the parent's pid.
		rest := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(rest) > 1 && rest[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// anyAlive reports whether any of pids still runs (a zombie does not).
func anyAlive(pids []int) bool {
	for _, p := range pids {
		if syscall.Kill(p, 0) != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err == nil && isZombie(stat) {
			continue
		}
		return true
	}
	return false
}

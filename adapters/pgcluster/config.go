package pgcluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	// Superuser is the database superuser of clusters made here; local
	// connections are trusted, so it has no password.
	Superuser = "corridor"
	// confFile holds every setting this package manages, included from
	// postgresql.conf, so the port chosen on the first run is reused later.
	confFile = "corridor.conf"
	// LogFile is the server log, inside the data directory.
	LogFile = "server.log"
	// maxSocketPath is below the 107-byte sun_path limit with some margin.
	maxSocketPath = 100
)

// hbaConf trusts the local socket and IPv4 loopback only; the server listens
// nowhere else.
const hbaConf = `# Written by corridor/adapters/pgcluster: a development/test cluster.
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 trust
host    all       all   127.0.0.1/32  trust
local   replication all               trust
host    replication all 127.0.0.1/32  trust
`

// initCluster runs initdb into a sibling temporary directory and renames it
// into place, so a crash mid-initdb never leaves a half-made data directory
// that later runs would refuse.
func (c *Cluster) initCluster(ctx context.Context, port int) error {
	tmp := c.dataDir + ".initdb"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	if err := c.osUser.chown(tmp); err != nil {
		return err
	}
	c.logf("pgcluster: initialising PostgreSQL %d cluster in %s", c.bins.major, c.dataDir)
	args := []string{"-D", tmp, "-U", Superuser, "-E", "UTF8", "--locale=C", "-A", "trust"}
	if c.throwaway {
		args = append(args, "--no-sync")
	}
	if _, err := c.osUser.run(ctx, c.bins.initdb, args...); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := c.writeFiles(tmp, port); err != nil {
		return err
	}
	if err := os.Remove(c.dataDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("pgcluster: replace empty %s: %w", c.dataDir, err)
	}
	return os.Rename(tmp, c.dataDir)
}

// writeFiles writes pg_hba.conf, corridor.conf and the include line into a
// fresh data directory dir that will be renamed to c.dataDir.
func (c *Cluster) writeFiles(dir string, port int) error {
	if err := c.writeOwned(filepath.Join(dir, "pg_hba.conf"), hbaConf); err != nil {
		return err
	}
	if err := ensureInclude(dir); err != nil {
		return err
	}
	return c.writeConf(dir, port)
}

// includeLine makes postgresql.conf read corridor.conf; it comes last, so
// our settings win over initdb's.
const includeLine = "include_if_exists = '" + confFile + "'"

// ensureInclude appends includeLine to dir/postgresql.conf unless present
// (a data directory made by hand lacks it).
func ensureInclude(dir string) error {
	path := filepath.Join(dir, "postgresql.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if strings.Contains(string(b), includeLine) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n# Settings managed by corridor/adapters/pgcluster:\n%s\n", includeLine)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeConf (re)writes corridor.conf for the cluster living at c.dataDir
// (the files may sit in dir while initdb's output is not yet renamed).
func (c *Cluster) writeConf(dir string, port int) error {
	lines := []string{
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", port),
		fmt.Sprintf("unix_socket_directories = '%s'", c.socketDir(port)),
		"timezone = 'UTC'",
	}
	switch {
	case c.throwaway && c.replicated:
		// Throwaway test data with a standby: durability off, WAL for streaming kept.
		lines = append(lines, "max_connections = 200", "fsync = off", "synchronous_commit = off",
			"full_page_writes = off", "wal_level = replica", "max_wal_senders = 5", "checkpoint_timeout = '1h'")
	case c.throwaway:
		// Throwaway test data: trade durability for speed.
		lines = append(lines, "max_connections = 200", "fsync = off", "synchronous_commit = off",
			"full_page_writes = off", "wal_level = minimal", "max_wal_senders = 0", "checkpoint_timeout = '1h'")
	default:
		lines = append(lines, "max_connections = 150")
		lines = append(lines, durableWALSettings...)
	}
	lines = append(lines, c.settings...)
	body := "# Written by corridor/adapters/pgcluster; rewritten when the port changes.\n" + strings.Join(lines, "\n") + "\n"
	return c.writeOwned(filepath.Join(dir, confFile), body)
}

// durableWALSettings are the WAL, checkpoint and diagnostic settings of a
// regular (durable) cluster, chosen for a stable commit latency (issue #34,
// docs/performance.md "A stable write tail"): a committing request waits for
// its WAL flush, so anything that makes one flush slower or bigger reaches the
// write path's tail.
//   - wal_compression: the full-page images written after each checkpoint
//     (full_page_writes stays on) are compressed, so the flushes right after a
//     checkpoint carry about half the bytes;
//   - checkpoint_timeout / max_wal_size: a checkpoint (its data-file writes and
//     the full-page-image burst after it) every 15 minutes, not every 5, and
//     never forced early by WAL volume on a busy development machine;
//   - min_wal_size: a checkpoint keeps this much WAL as recycled segments, so a
//     segment switch renames an old file instead of zero-filling and fsyncing
//     16 MB while every committer waits on the WAL write lock (WALInitWrite);
//   - log_checkpoints, log_lock_waits, log_autovacuum_min_duration and
//     track_wal_io_timing: what the server log and pg_stat_wal need to tell a
//     slow flush from a checkpoint, a lock wait or a vacuum.
var durableWALSettings = []string{
	"wal_compression = on",
	"checkpoint_timeout = '15min'",
	"checkpoint_completion_target = 0.9",
	"max_wal_size = '2GB'",
	"min_wal_size = '512MB'",
	"log_checkpoints = on",
	"log_lock_waits = on",
	"log_autovacuum_min_duration = '250ms'",
	"track_wal_io_timing = on",
}

// socketDir is the data directory, or "" (no Unix socket, TCP only) when the
// socket path would exceed the kernel's limit, as it can for deep project
// paths.
func (c *Cluster) socketDir(port int) string {
	if len(c.dataDir)+len("/.s.PGSQL.")+len(strconv.Itoa(port)) > maxSocketPath {
		return ""
	}
	return strings.ReplaceAll(c.dataDir, "'", "''")
}

func (c *Cluster) writeOwned(path, body string) error {
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		return err
	}
	if c.osUser.switched() {
		return os.Chown(path, c.osUser.uid, c.osUser.gid)
	}
	return nil
}

// persistedPort reads the port from corridor.conf; 0 when absent.
func persistedPort(dataDir string) int {
	f, err := os.Open(filepath.Join(dataDir, confFile))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "port" {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// dataMajor reads PG_VERSION; 0 when the directory is not a data directory.
func dataMajor(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.SplitN(strings.TrimSpace(string(b)), ".", 2)[0])
	return n
}

// portFree reports whether nothing listens on 127.0.0.1:port.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

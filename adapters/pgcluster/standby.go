package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
)

// replicationHBA lets a standby on the loopback stream from the cluster.
const replicationHBA = "host    replication all 127.0.0.1/32  trust"

// StartStandby returns a hot standby of c streaming from it, in dataDir: made with
// pg_basebackup (-R writes standby.signal and the primary's conninfo) when dataDir holds no
// cluster yet, then started on a free port of its own. A standby left in dataDir by an earlier
// run is started as it is and catches up from the primary.
func (c *Cluster) StartStandby(ctx context.Context, dataDir string) (*Cluster, error) {
	if c.compose != nil || c.bins == nil {
		return nil, errors.New("pgcluster: a standby follows a local cluster only")
	}
	if c.throwaway && !c.replicated {
		return nil, errors.New("pgcluster: this throwaway cluster keeps no WAL for a standby (NewReplicatedThrowaway)")
	}
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	if err := mkdirParents(dataDir); err != nil {
		return nil, err
	}
	// As root, the standby's directory is put where the server's account can reach it, as the
	// primary's is: pg_basebackup runs as that account.
	asked := dataDir
	if dataDir, err = resolveDataDir(asked); err != nil {
		return nil, err
	}
	if dataDir, err = reachableDataDir(asked, dataDir, c.osUser, Options{RelocateBase: c.relocateBase, Logf: c.logf}); err != nil {
		return nil, err
	}
	if err := c.allowReplication(ctx); err != nil {
		return nil, err
	}
	s := &Cluster{dataDir: dataDir, host: c.host, user: c.user, throwaway: c.throwaway, replicated: c.replicated,
		bins: c.bins, osUser: c.osUser, logf: c.logf, relocateBase: c.relocateBase}
	if dataMajor(dataDir) == 0 {
		if err := s.baseBackup(ctx, c); err != nil {
			return nil, err
		}
	}
	ready, err := s.awaitRunning(ctx)
	if err != nil {
		return nil, err
	}
	if !ready {
		if err := s.start(ctx, 0); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// baseBackup copies primary into s.dataDir through a sibling temporary directory, so a failed
// copy never leaves a half-made standby.
func (s *Cluster) baseBackup(ctx context.Context, primary *Cluster) error {
	tmp := s.dataDir + ".basebackup"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	if err := s.osUser.chown(tmp); err != nil {
		return err
	}
	s.logf("pgcluster: copying the primary on 127.0.0.1:%d into a standby in %s", primary.port, s.dataDir)
	args := []string{"-D", tmp, "-h", primary.host, "-p", fmt.Sprint(primary.port), "-U", primary.user,
		"-R", "-X", "stream", "-c", "fast"}
	if s.throwaway {
		args = append(args, "--no-sync")
	}
	if _, err := s.osUser.run(ctx, s.bins.sibling("pg_basebackup"), args...); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	// The primary's log, start options and managed settings (its port) came along; the
	// standby writes its own on start, on a free port of its own.
	for _, f := range []string{LogFile, "postmaster.opts", confFile} {
		_ = os.Remove(filepath.Join(tmp, f))
	}
	if err := os.Remove(s.dataDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("pgcluster: replace empty %s: %w", s.dataDir, err)
	}
	return os.Rename(tmp, s.dataDir)
}

// allowReplication adds the loopback replication line to the primary's pg_hba.conf when a
// cluster made before it lacks it, and reloads the configuration.
func (c *Cluster) allowReplication(ctx context.Context) error {
	path := filepath.Join(c.dataDir, "pg_hba.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if strings.Contains(string(b), replicationHBA) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s\n", replicationHBA)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return withConn(ctx, c.URL("postgres"), func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "select pg_reload_conf()")
		return err
	})
}

// sibling is the program name of the same installation as pg_ctl (following a symbolic link
// on PATH to the versioned directory), else name as PATH finds it.
func (b *binaries) sibling(name string) string {
	dirs := []string{filepath.Dir(b.pgctl)}
	if real, err := filepath.EvalSymlinks(b.pgctl); err == nil {
		dirs = append([]string{filepath.Dir(real)}, dirs...)
	}
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() {
			return filepath.Join(d, name)
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// Package pgcluster runs a project-local PostgreSQL cluster from the
// installed server binaries, so `corridor run` and the tests get a real
// PostgreSQL without Docker or a shared server: a kept development cluster
// under .data/postgres, or a throwaway one in a temporary directory.
//
// Clusters listen on 127.0.0.1 only and trust local connections for the
// superuser "corridor"; they are for development and tests, never for
// production. As root, the server runs as an unprivileged account (postgres,
// else a created "corridor" system user), because PostgreSQL refuses root.
package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/corridorhq/corridor/adapters/localproc"
)

// Options configure Ensure.
type Options struct {
	// DataDir is the cluster's data directory; initialised when missing or
	// empty. Relative paths are taken from the working directory.
	DataDir string
	// Port is the loopback port; 0 picks a free one on the first run and
	// reuses it (it is stored in the data directory) on later runs.
	Port int
	// Database is created when missing; "" creates none.
	Database string
	// Throwaway tunes the cluster for disposable test data: fsync,
	// synchronous_commit and full_page_writes off, 200 connections.
	Throwaway bool
	// Replicated keeps a throwaway cluster's WAL fit for streaming replication, so
	// StartStandby can follow it (kept clusters always are).
	Replicated bool
	// Settings are extra postgresql.conf lines written after the managed ones (so they win):
	// how a Citus node preloads the extension.
	Settings []string
	// ComposeFile, when set, lets Ensure fall back to `docker compose` (see
	// EnsureCompose) where binaries are missing and a Docker engine runs.
	ComposeFile string
	// NoInstall stops Ensure from installing PostgreSQL with apt-get when
	// the binaries are missing.
	NoInstall bool
	// RelocateBase is where, as root, a new cluster goes when the server's
	// account cannot reach DataDir (DefaultRelocateBase when empty); DataDir
	// then becomes a symbolic link to it.
	RelocateBase string
	// Logf receives progress lines (initdb, start, install); nil is silent.
	Logf func(format string, args ...any)
}

// Cluster is a running PostgreSQL server: a local cluster made by Ensure or
// NewThrowaway, or the compose service of EnsureCompose.
type Cluster struct {
	dataDir        string
	host           string
	port           int
	user, password string
	throwaway      bool
	replicated     bool
	settings       []string
	started        bool
	bins           *binaries
	osUser         osUser
	compose        *ComposeOptions
	owner          *dirLock // throwaway clusters: held while this process lives
	root           string   // throwaway clusters: the temporary directory to delete
	logf           func(string, ...any)
	relocateBase   string // where a standby goes when the server's account cannot reach its directory
}

// Ensure returns a running cluster in o.DataDir: it installs PostgreSQL if
// needed, initialises the directory if empty, starts the server unless one
// already runs there (another `corridor run`, or a leftover), waits until it
// accepts queries and creates o.Database.
func Ensure(ctx context.Context, o Options) (*Cluster, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil || o.DataDir == "" {
		return nil, fmt.Errorf("pgcluster: bad data directory %q", o.DataDir)
	}
	if err := mkdirParents(dataDir); err != nil {
		return nil, err
	}
	lock, err := lockFile(dataDir+".lock", true)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: lock %s: %w", dataDir, err)
	}
	defer lock.unlock()
	asked := dataDir
	if dataDir, err = resolveDataDir(asked); err != nil {
		return nil, err
	}

	bins, err := locateBinaries(ctx, dataDir, o)
	if err != nil {
		var compose *ComposeRequiredError
		if errors.As(err, &compose) && o.ComposeFile != "" {
			return EnsureCompose(ctx, ComposeOptions{File: o.ComposeFile, Database: o.Database, Logf: o.Logf})
		}
		return nil, err
	}
	u, err := chooseUser(dataDir, o.Logf)
	if err != nil {
		return nil, err
	}
	if dataDir, err = reachableDataDir(asked, dataDir, u, o); err != nil {
		return nil, err
	}
	c := &Cluster{
		dataDir: dataDir, host: "127.0.0.1", user: Superuser, throwaway: o.Throwaway, replicated: o.Replicated,
		settings: o.Settings, bins: bins, osUser: u, logf: o.Logf, relocateBase: o.RelocateBase,
	}
	if err := c.bringUp(ctx, o.Port); err != nil {
		return nil, err
	}
	if o.Database != "" {
		if err := c.CreateDatabase(ctx, o.Database); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// reachableDataDir returns the data directory the server's account can reach: dataDir itself,
// or for a new cluster asked for where that account cannot go, a relocated one. A link the
// user made (dataDir differs from asked) is taken as meant and only checked.
func reachableDataDir(asked, dataDir string, u osUser, o Options) (string, error) {
	if asked != dataDir {
		return dataDir, u.checkTraversable(dataDir)
	}
	base := o.RelocateBase
	if base == "" {
		base = DefaultRelocateBase
	}
	return relocateIfUnreachable(dataDir, u, base, o.Logf)
}

// locateBinaries finds the server programs; when there are none it defers to
// Docker where an engine runs, else installs them.
func locateBinaries(ctx context.Context, dataDir string, o Options) (*binaries, error) {
	want := dataMajor(dataDir)
	if want == 0 && !isEmptyDir(dataDir) {
		return nil, fmt.Errorf("pgcluster: %s is neither empty nor a PostgreSQL data directory; move it away", dataDir)
	}
	bins, err := findBinaries(want)
	if errors.Is(err, ErrNoBinaries) {
		if DockerAvailable(ctx) {
			return nil, &ComposeRequiredError{}
		}
		if o.NoInstall {
			return nil, err
		}
		if err := installPostgres(ctx, o.Logf); err != nil {
			return nil, err
		}
		bins, err = findBinaries(want)
	}
	if err != nil {
		return nil, err
	}
	if want > 0 && bins.major != want {
		return nil, fmt.Errorf("pgcluster: %s holds a PostgreSQL %d cluster but only PostgreSQL %d is installed; install %d, or remove the directory to start afresh",
			dataDir, want, bins.major, want)
	}
	return bins, nil
}

// bringUp initialises, reuses or starts the server and waits for it.
func (c *Cluster) bringUp(ctx context.Context, wantPort int) error {
	if dataMajor(c.dataDir) == 0 {
		port, err := pickPort(wantPort, 0)
		if err != nil {
			return err
		}
		if err := c.initCluster(ctx, port); err != nil {
			return err
		}
	}
	ready, err := c.awaitRunning(ctx)
	if err != nil || ready {
		return err
	}
	return c.start(ctx, wantPort)
}

// awaitRunning reports whether a server already runs in the data directory
// and, if so, waits until it answers. It gives up waiting as soon as that
// server goes away (a crash, or a stop by its starter) so the caller starts
// a fresh one.
func (c *Cluster) awaitRunning(ctx context.Context) (bool, error) {
	deadline := time.Now().Add(60 * time.Second)
	for logged := false; ; logged = true {
		port, err := runningPort(c.dataDir, c.logf)
		if err != nil || port == 0 {
			return false, err
		}
		c.port = port
		if !logged {
			c.logf("pgcluster: reusing PostgreSQL already running on 127.0.0.1:%d (%s)", port, c.dataDir)
		}
		err = WaitReady(ctx, c.URL("postgres"), time.Second)
		if err == nil {
			return true, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return false, err
		}
	}
}

// pickPort returns want when set, else the persisted port while it is free,
// else a fresh free port (something else may have taken ours since).
func pickPort(want, persisted int) (int, error) {
	if want != 0 {
		return want, nil
	}
	if persisted != 0 && portFree(persisted) {
		return persisted, nil
	}
	return localproc.FreePort()
}

// start writes the managed settings and runs pg_ctl start, which waits until
// the server accepts connections.
func (c *Cluster) start(ctx context.Context, wantPort int) error {
	persisted := persistedPort(c.dataDir)
	port, err := pickPort(wantPort, persisted)
	if err != nil {
		return err
	}
	if persisted != 0 && port != persisted {
		c.logf("pgcluster: port %d is taken, moving the cluster to %d", persisted, port)
	}
	if err := ensureInclude(c.dataDir); err != nil {
		return err
	}
	if err := c.writeConf(c.dataDir, port); err != nil {
		return err
	}
	c.port = port
	begin := time.Now()
	logPath := filepath.Join(c.dataDir, LogFile)
	if _, err := c.osUser.run(ctx, c.bins.pgctl, "start", "-D", c.dataDir, "-l", logPath, "-w", "-t", "60", "-s"); err != nil {
		return fmt.Errorf("%w\nserver log %s ends:\n%s", err, logPath, localproc.Tail(logPath, 15))
	}
	c.started = true
	c.logf("pgcluster: started PostgreSQL %d on 127.0.0.1:%d in %s (data %s)", c.bins.major, port, time.Since(begin).Round(time.Millisecond), c.dataDir)
	return WaitReady(ctx, c.URL("postgres"), 30*time.Second)
}

// URL is the connection URL of database dbname, e.g.
// postgres://corridor@127.0.0.1:54321/corridor?sslmode=disable.
func (c *Cluster) URL(dbname string) string {
	u := url.URL{
		Scheme:   "postgres",
		Host:     net.JoinHostPort(c.host, strconv.Itoa(c.port)),
		Path:     "/" + dbname,
		RawQuery: "sslmode=disable",
	}
	if c.password != "" {
		u.User = url.UserPassword(c.user, c.password)
	} else {
		u.User = url.User(c.user)
	}
	return u.String()
}

// Port is the TCP port on 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// DataDir is the data directory ("" for a compose cluster).
func (c *Cluster) DataDir() string { return c.dataDir }

// StartedHere reports whether this process started the server, and so
// whether Stop will stop it.
func (c *Cluster) StartedHere() bool { return c.started }

// CreateDatabase creates dbname unless it exists.
func (c *Cluster) CreateDatabase(ctx context.Context, dbname string) error {
	return CreateDatabase(ctx, c.URL("postgres"), dbname)
}

// DropDatabase drops dbname if it exists, disconnecting its sessions.
func (c *Cluster) DropDatabase(ctx context.Context, dbname string) error {
	return DropDatabase(ctx, c.URL("postgres"), dbname)
}

// Stop shuts the server down (fast: sessions are disconnected, data is
// checkpointed) if this process started it, and leaves it running for its
// starter otherwise.
func (c *Cluster) Stop(ctx context.Context) error {
	if !c.started {
		return nil
	}
	if c.compose != nil {
		if out, err := c.composeCmd(ctx, "stop", c.compose.Service).CombinedOutput(); err != nil {
			return fmt.Errorf("pgcluster: docker compose stop: %w\n%s", err, out)
		}
	} else if _, err := c.osUser.run(ctx, c.bins.pgctl, "stop", "-D", c.dataDir, "-m", "fast", "-w", "-t", "60", "-s"); err != nil {
		return err
	}
	c.started = false
	return nil
}

// Restart stops the server fast (every session is disconnected, 57P01) and starts it again on
// the same port and data, waiting until it answers: what an operator's restart does to the
// service's connections, for fault tests. Only a server this process started is restarted.
func (c *Cluster) Restart(ctx context.Context) error {
	switch {
	case c.compose != nil:
		return errors.New("pgcluster: Restart does not apply to a compose cluster")
	case !c.started:
		return errors.New("pgcluster: Restart only restarts a server this process started")
	}
	logPath := filepath.Join(c.dataDir, LogFile)
	if _, err := c.osUser.run(ctx, c.bins.pgctl, "restart", "-D", c.dataDir, "-l", logPath, "-m", "fast", "-w", "-t", "60", "-s"); err != nil {
		return fmt.Errorf("pgcluster: restart: %w\nserver log %s ends:\n%s", err, logPath, localproc.Tail(logPath, 15))
	}
	return WaitReady(ctx, c.URL("postgres"), 30*time.Second)
}

// Remove stops the server, whoever started it, without a checkpoint and
// deletes the data directory: for throwaway clusters only.
func (c *Cluster) Remove() error {
	if c.compose != nil {
		return errors.New("pgcluster: Remove does not apply to a compose cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if port, _ := runningPort(c.dataDir, c.logf); port > 0 {
		if _, err := c.osUser.run(ctx, c.bins.pgctl, "stop", "-D", c.dataDir, "-m", "immediate", "-w", "-t", "60", "-s"); err != nil {
			return err
		}
	}
	c.started = false
	dir := c.dataDir
	if c.root != "" {
		dir = c.root
	}
	err := os.RemoveAll(dir)
	os.Remove(c.dataDir + ".lock")
	c.owner.unlock()
	return err
}

// mkdirParents creates the missing ancestors of dataDir as 0755 whatever the
// umask, so the server's account can traverse the ones we made.
func mkdirParents(dataDir string) error {
	var missing []string
	for d := filepath.Dir(dataDir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("pgcluster: %w", err)
		}
		if err := os.Chmod(missing[i], 0o755); err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
	}
	return nil
}

func isEmptyDir(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err != nil || len(entries) == 0
}

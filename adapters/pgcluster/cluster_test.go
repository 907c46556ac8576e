package pgcluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func query(t *testing.T, url, sql string, dst ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(ctx)
	if len(dst) == 0 {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return
	}
	if err := conn.QueryRow(ctx, sql).Scan(dst...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// skipShort keeps `go test -short` (make test-short) free of real servers.
func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL; skipped with -short")
	}
}

// TestThrowawayLifecycle starts, uses, stops, restarts (data and port kept),
// reuses a running server and removes a throwaway cluster.
func TestThrowawayLifecycle(t *testing.T) {
	skipShort(t)
	ctx := context.Background()
	begin := time.Now()
	c, err := NewThrowaway(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("throwaway cluster ready in %s", time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() { _ = c.Remove() })
	if !c.StartedHere() {
		t.Fatal("new cluster should be StartedHere")
	}
	var one int
	query(t, c.URL("postgres"), "select 1", &one)
	if one != 1 {
		t.Fatalf("select 1 = %d", one)
	}
	if err := c.CreateDatabase(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "app"); err != nil {
		t.Fatalf("second CreateDatabase: %v", err)
	}
	query(t, c.URL("app"), "create table kept (v text); insert into kept values ('survives')")
	port := c.Port()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if c.StartedHere() {
		t.Fatal("StartedHere after Stop")
	}

	begin = time.Now()
	again, err := Ensure(ctx, Options{DataDir: c.DataDir(), Throwaway: true, Database: "app", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restart of existing cluster in %s", time.Since(begin).Round(time.Millisecond))
	if !again.StartedHere() || again.Port() != port {
		t.Fatalf("restart: StartedHere=%v port=%d, want true and %d", again.StartedHere(), again.Port(), port)
	}
	var v string
	query(t, again.URL("app"), "select v from kept", &v)
	if v != "survives" {
		t.Fatalf("kept row = %q", v)
	}

	reused, err := Ensure(ctx, Options{DataDir: c.DataDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if reused.StartedHere() || reused.Port() != port {
		t.Fatalf("reuse: StartedHere=%v port=%d", reused.StartedHere(), reused.Port())
	}
	if err := reused.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	query(t, again.URL("app"), "select v from kept", &v) // Stop of a non-starter is a no-op

	if err := c.DropDatabase(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.DataDir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("data dir still there after Remove: %v", err)
	}
}

// TestStalePidFile simulates a crash whose postmaster.pid names a live
// process that is not PostgreSQL (PID reuse), which PostgreSQL alone would
// refuse to start over.
func TestStalePidFile(t *testing.T) {
	skipShort(t)
	ctx := context.Background()
	c, err := NewThrowaway(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Remove() })
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(c.DataDir(), "postmaster.pid")
	stale := strconv.Itoa(os.Getpid()) + "\n" + c.DataDir() + "\n0\n" + strconv.Itoa(c.Port()) + "\n"
	if err := os.WriteFile(pidFile, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := Ensure(ctx, Options{DataDir: c.DataDir(), Throwaway: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if !again.StartedHere() {
		t.Fatal("should have started over the stale pid file")
	}
	var one int
	query(t, again.URL("postgres"), "select 1", &one)
}

func TestWithDatabase(t *testing.T) {
	got, err := WithDatabase("postgres://u:p@h:5432/old?sslmode=disable", "new_db")
	if err != nil || got != "postgres://u:p@h:5432/new_db?sslmode=disable" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := WithDatabase("mysql://h/db", "x"); err == nil {
		t.Fatal("want error for a non-postgres URL")
	}
}

func TestUntraversableParent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root switches to another account")
	}
	u, err := chooseUser("", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	private, err := os.MkdirTemp("", "pgcluster-private-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(private)
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	err = u.checkTraversable(filepath.Join(private, "data"))
	var ue *UntraversableError
	if !errors.As(err, &ue) || ue.Dir != private {
		t.Fatalf("want UntraversableError for %s, got %v", private, err)
	}
	if err := os.Chmod(private, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := u.checkTraversable(filepath.Join(private, "data")); err != nil {
		t.Fatalf("0711 should be traversable: %v", err)
	}
}

func TestDirMajor(t *testing.T) {
	for dir, want := range map[string]int{"/usr/lib/postgresql/15/bin": 15, "/usr/pgsql-16/bin": 16, "/usr/bin": 0} {
		if got := dirMajor(dir); got != want {
			t.Errorf("dirMajor(%s) = %d, want %d", dir, got, want)
		}
	}
}

// TestSweepAbandoned runs a child process that starts a throwaway cluster
// and exits without Remove, as a killed `go test` would, and checks that the
// next sweep stops its server and deletes its directory.
func TestSweepAbandoned(t *testing.T) {
	skipShort(t)
	if os.Getenv("PGCLUSTER_ABANDON") == "1" {
		c, err := NewThrowaway(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("ROOT=" + c.root + "\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSweepAbandoned$")
	cmd.Env = append(os.Environ(), "PGCLUSTER_ABANDON=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`ROOT=(\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("child printed no root: %s", out)
	}
	root := string(m[1])
	pidBytes, err := os.ReadFile(filepath.Join(root, "data", "postmaster.pid"))
	if err != nil {
		t.Fatalf("abandoned server not running: %v", err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(pidBytes), "\n", 2)[0])
	old := time.Now().Add(-2 * sweepMinAge)
	if err := os.Chtimes(root, old, old); err != nil {
		t.Fatal(err)
	}
	sweepStale(filepath.Dir(root), t.Logf)
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("abandoned %s not swept: %v", root, err)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatalf("abandoned postmaster %d still alive", pid)
	}
}

// TestNoBinaries hides every installation and checks that Ensure, told not
// to install, says so instead of trying something else.
func TestNoBinaries(t *testing.T) {
	if DockerAvailable(context.Background()) {
		t.Skip("with a Docker engine Ensure asks for compose instead")
	}
	saved := versionDirGlobs
	versionDirGlobs = nil
	t.Cleanup(func() { versionDirGlobs = saved })
	t.Setenv("PATH", t.TempDir())
	_, err := Ensure(context.Background(), Options{DataDir: filepath.Join(t.TempDir(), "data"), NoInstall: true})
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("want ErrNoBinaries, got %v", err)
	}
}

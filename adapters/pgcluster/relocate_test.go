package pgcluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// privateTemp makes a temporary directory with the given mode, removed after the test.
func privateTemp(t *testing.T, pattern string, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEnsure_UnderAPrivateHome is `make run` as root in a checkout under /root (0700): the
// server's account cannot reach the data directory, so the cluster lives in a directory it
// can reach, linked from the data directory, and starts; the home directory's mode is untouched
// and later runs find the same cluster through the link.
func TestEnsure_UnderAPrivateHome(t *testing.T) {
	skipShort(t)
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another account")
	}
	ctx := context.Background()
	home := privateTemp(t, "pgcluster-home-", 0o700)
	base := filepath.Join(privateTemp(t, "pgcluster-reachable-", 0o755), "corridor")
	dataDir := filepath.Join(home, "checkout", ".data", "postgres")

	c, err := Ensure(ctx, Options{DataDir: dataDir, Throwaway: true, RelocateBase: base, NoInstall: true, Logf: t.Logf})
	if err != nil {
		t.Fatalf("Ensure under a 0700 home: %v", err)
	}
	t.Cleanup(func() { _ = c.Remove() })
	query(t, c.URL("postgres"), "create table kept (v text); insert into kept values ('survives')")
	if !strings.HasPrefix(c.DataDir(), base+string(filepath.Separator)) {
		t.Fatalf("cluster data in %s, want it under %s", c.DataDir(), base)
	}
	if target, err := os.Readlink(dataDir); err != nil || target != c.DataDir() {
		t.Fatalf("%s links to %q (%v), want %s", dataDir, target, err, c.DataDir())
	}
	origin, err := os.ReadFile(filepath.Join(filepath.Dir(c.DataDir()), originFile))
	if err != nil || strings.TrimSpace(string(origin)) != dataDir {
		t.Fatalf("origin record %q (%v), want %s", origin, err, dataDir)
	}
	if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the home directory's mode changed: %v %v", fi.Mode(), err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	again, err := Ensure(ctx, Options{DataDir: dataDir, Throwaway: true, RelocateBase: base, NoInstall: true, Logf: t.Logf})
	if err != nil {
		t.Fatalf("second Ensure: %v", err)
	}
	if again.DataDir() != c.DataDir() {
		t.Fatalf("second run uses %s, want %s", again.DataDir(), c.DataDir())
	}
	var v string
	query(t, again.URL("postgres"), "select v from kept", &v)
	if v != "survives" {
		t.Fatalf("kept = %q", v)
	}
	if err := again.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	// The checkout's .data deleted by hand: the next run starts an empty cluster and keeps the
	// old data aside rather than serving it to a checkout whose secrets are new.
	if err := os.RemoveAll(filepath.Join(home, "checkout", ".data")); err != nil {
		t.Fatal(err)
	}
	fresh, err := Ensure(ctx, Options{DataDir: dataDir, Throwaway: true, RelocateBase: base, NoInstall: true, Logf: t.Logf})
	if err != nil {
		t.Fatalf("Ensure after .data was deleted: %v", err)
	}
	var tables int
	query(t, fresh.URL("postgres"), "select count(*) from pg_tables where tablename = 'kept'", &tables)
	if fresh.DataDir() != c.DataDir() || tables != 0 {
		t.Fatalf("after .data was deleted: data in %s with %d kept tables, want a fresh cluster in %s", fresh.DataDir(), tables, c.DataDir())
	}
	if aside, _ := filepath.Glob(c.DataDir() + ".orphaned-*"); len(aside) != 1 {
		t.Fatalf("old data set aside as %v, want one directory", aside)
	}
}

// TestEnsure_PrivateHomeWithAClusterInPlace: a cluster already in the unreachable directory (made
// while its parents were open) is not moved behind the owner's back; the error says what to do.
func TestEnsure_PrivateHomeWithAClusterInPlace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another account")
	}
	home := privateTemp(t, "pgcluster-home-", 0o700)
	dataDir := filepath.Join(home, "postgres")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "PG_VERSION"), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := relocateIfUnreachable(dataDir, osUser{name: "nobody", uid: 65534, gid: 65534}, t.TempDir(), t.Logf)
	var ue *UntraversableError
	if !errors.As(err, &ue) || ue.Dir != home {
		t.Fatalf("err = %v, want the UntraversableError naming %s", err, home)
	}
}

// TestStandby_UnderAPrivateHome is `corridor databases` as root in a checkout under /root
// (0700): pg_basebackup runs as the server's account, so the standby's directory is relocated
// like the primary's, linked from where it was asked for, and the standby streams.
func TestStandby_UnderAPrivateHome(t *testing.T) {
	skipShort(t)
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another account")
	}
	ctx := context.Background()
	primary, err := NewReplicatedThrowaway(ctx, t.Logf)
	if err != nil {
		t.Skipf("no local PostgreSQL: %v", err)
	}
	t.Cleanup(func() { _ = primary.Remove() })
	primary.relocateBase = filepath.Join(privateTemp(t, "pgcluster-reachable-", 0o755), "corridor")
	home := privateTemp(t, "pgcluster-home-", 0o700)
	asked := filepath.Join(home, "checkout", ".data", "standby")

	standby, err := primary.StartStandby(ctx, asked)
	if err != nil {
		t.Fatalf("a standby under a 0700 home: %v", err)
	}
	t.Cleanup(func() { _ = standby.Remove() })
	if !strings.HasPrefix(standby.DataDir(), primary.relocateBase+string(filepath.Separator)) {
		t.Fatalf("standby data in %s, want it under %s", standby.DataDir(), primary.relocateBase)
	}
	if target, err := os.Readlink(asked); err != nil || target != standby.DataDir() {
		t.Fatalf("%s links to %q (%v), want %s", asked, target, err, standby.DataDir())
	}
	var recovering bool
	query(t, standby.URL("postgres"), "select pg_is_in_recovery()", &recovering)
	if !recovering {
		t.Fatal("the standby is not in recovery")
	}
}

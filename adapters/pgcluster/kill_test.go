package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestKillAndRevive: Kill leaves no process of the server (postmaster and backends, one of them
// a session held open across the kill) and refuses connections; Revive brings it back on the
// same port through crash recovery, with a committed row still there.
func TestKillAndRevive(t *testing.T) {
	skipShort(t)
	ctx := context.Background()
	c, err := NewThrowaway(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Remove() })
	// A throwaway server acknowledges commits before writing them (synchronous_commit off), and
	// a kill takes such a commit back: this session commits durably, as a Citus node does.
	query(t, c.URL("postgres"), "set synchronous_commit = on; create table kept (v text); insert into kept values ('committed')")
	held, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close(context.Background())
	b, err := os.ReadFile(filepath.Join(c.DataDir(), "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	backends := childrenOf(pid)
	if len(backends) == 0 {
		t.Fatalf("no child process of postmaster %d found", pid)
	}
	port := c.Port()

	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if anyAlive(append([]int{pid}, backends...)) {
		t.Fatalf("a process of the killed server is still running (postmaster %d, children %v)", pid, backends)
	}
	if conn, err := pgx.Connect(ctx, c.URL("postgres")); err == nil {
		conn.Close(ctx)
		t.Fatal("the killed server still accepts connections")
	}
	if err := held.Ping(ctx); err == nil {
		t.Fatal("a session open across the kill still answers")
	}

	if err := c.Revive(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Port() != port {
		t.Fatalf("revived on port %d, want %d", c.Port(), port)
	}
	var v string
	query(t, c.URL("postgres"), "select v from kept", &v)
	if v != "committed" {
		t.Fatalf("after crash recovery kept holds %q", v)
	}
}

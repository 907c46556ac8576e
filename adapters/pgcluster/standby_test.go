package pgcluster

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestStandby_StreamsFromThePrimary: a standby made by pg_basebackup is in recovery, refuses
// writes, sees rows committed on the primary after it started, and stops seeing new ones while
// its replay is paused.
func TestStandby_StreamsFromThePrimary(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()
	primary, err := NewReplicatedThrowaway(ctx, t.Logf)
	if err != nil {
		t.Skipf("no local PostgreSQL: %v", err)
	}
	t.Cleanup(func() { _ = primary.Remove() })
	query(t, primary.URL("postgres"), "create table t (n int)")
	standby, err := primary.StartStandby(ctx, filepath.Join(filepath.Dir(primary.DataDir()), "standby"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Remove() })
	if standby.Port() == primary.Port() {
		t.Fatal("the standby shares the primary's port")
	}
	var recovering bool
	query(t, standby.URL("postgres"), "select pg_is_in_recovery()", &recovering)
	if !recovering {
		t.Fatal("the standby is not in recovery")
	}
	query(t, primary.URL("postgres"), "insert into t values (1)")
	seen := func() int {
		var n int
		query(t, standby.URL("postgres"), "select count(*) from t", &n)
		return n
	}
	for seen() != 1 {
		if ctx.Err() != nil {
			t.Fatal("the standby never saw the primary's row")
		}
		time.Sleep(20 * time.Millisecond)
	}
	query(t, standby.URL("postgres"), "select pg_wal_replay_pause()")
	query(t, primary.URL("postgres"), "insert into t values (2)")
	var lsnAhead bool
	for !lsnAhead {
		query(t, standby.URL("postgres"), "select pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()", &lsnAhead)
		if ctx.Err() != nil {
			t.Fatal("the standby never received the second row")
		}
	}
	if n := seen(); n != 1 {
		t.Fatalf("a paused standby replayed: %d rows", n)
	}
	query(t, standby.URL("postgres"), "select pg_wal_replay_resume()")
	for seen() != 2 {
		if ctx.Err() != nil {
			t.Fatal("the standby never caught up after resuming")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

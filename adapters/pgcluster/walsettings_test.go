package pgcluster

import (
	"context"
	"path/filepath"
	"testing"
)

// TestDurableClusterWALSettings starts a regular (durable) cluster and checks
// that the server runs with the WAL and checkpoint settings of issue #34
// (durableWALSettings), and that a throwaway cluster keeps its own.
func TestDurableClusterWALSettings(t *testing.T) {
	skipShort(t)
	ctx := context.Background()
	c, err := Ensure(ctx, Options{DataDir: filepath.Join(t.TempDir(), "data"), NoInstall: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	want := map[string]string{
		"fsync":                       "on",
		"synchronous_commit":          "on",
		"full_page_writes":            "on",
		"wal_compression":             "pglz",
		"checkpoint_timeout":          "15min",
		"max_wal_size":                "2GB",
		"min_wal_size":                "512MB",
		"log_checkpoints":             "on",
		"log_lock_waits":              "on",
		"log_autovacuum_min_duration": "250ms",
		"track_wal_io_timing":         "on",
	}
	for name, v := range want {
		var got string
		query(t, c.URL("postgres"), "show "+name, &got)
		if got != v {
			t.Errorf("durable cluster: %s = %q, want %q", name, got, v)
		}
	}

	tw, err := NewThrowaway(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Remove() })
	var fsync, minWAL string
	query(t, tw.URL("postgres"), "show fsync", &fsync)
	query(t, tw.URL("postgres"), "show min_wal_size", &minWAL)
	if fsync != "off" || minWAL == "512MB" {
		t.Errorf("throwaway cluster: fsync = %q, min_wal_size = %q; want its own settings", fsync, minWAL)
	}
}

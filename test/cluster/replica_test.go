package cluster

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// replicated is a throwaway primary with a hot standby streaming from it, both migrated.
type replicated struct {
	primaryURL, standbyURL string
	standby                *pgcluster.Cluster
}

func startReplicated(t *testing.T) replicated {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, err := pgcluster.NewReplicatedThrowaway(ctx, t.Logf)
	if err != nil {
		t.Skipf("no local PostgreSQL binaries for a primary and standby: %v", err)
	}
	t.Cleanup(func() { _ = primary.Remove() })
	if err := primary.CreateDatabase(ctx, "corridor"); err != nil {
		t.Fatal(err)
	}
	if _, err := wiring.Migrate(ctx, primary.URL("corridor")); err != nil {
		t.Fatal(err)
	}
	standby, err := primary.StartStandby(ctx, filepath.Join(filepath.Dir(primary.DataDir()), "standby"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Remove() })
	return replicated{primaryURL: primary.URL("corridor"), standbyURL: standby.URL("corridor"), standby: standby}
}

// onStandby runs one statement on the standby (pause or resume its replay).
func (r replicated) onStandby(t *testing.T, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, r.standbyURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func entries(t *testing.T, c *harness.Client) int {
	t.Helper()
	return int(c.Get("/v1/ledger/entries").Expect(t, 200).JSON(t)["total"].(float64))
}

// metric reads one sample of the instance's metrics (-1 when absent).
func metric(t *testing.T, e *harness.Env, pattern string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + pattern + ` (\S+)$`).FindStringSubmatch(e.Metrics(t))
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReadReplica_ServesExportsWithinTheLagBound: two instances on one primary read finance
// exports from its standby, one accepting an hour of lag and one a millisecond. With the
// standby's replay paused behind a new deposit, the tolerant instance answers from the standby
// (the deposit is missing: the read really came from there) while the strict one falls back to
// the primary (the deposit is there) and reports the lag; once replay resumes both agree.
// Writes and reads of one's own writes (the balance) always go to the primary. A stopped
// standby costs the exports nothing but the fallback.
func TestReadReplica_ServesExportsWithinTheLagBound(t *testing.T) {
	r := startReplicated(t)
	reads := func(maxLag time.Duration) func(*wiring.Config) {
		return func(c *wiring.Config) { c.DatabaseReadURL, c.ReadMaxLag = r.standbyURL, maxLag }
	}
	tolerant := harness.NewServerOn(t, r.primaryURL, reads(time.Hour))
	strict := harness.NewServerOn(t, r.primaryURL, reads(time.Millisecond))
	ten := tolerant.NewTenant(t)
	onTolerant := tolerant.Client(t).WithKey(ten.RootKey)
	onStrict := strict.Client(t).WithKey(ten.RootKey)

	onTolerant.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "10"}).Expect(t, 201)
	first := harness.Poll(t, "the standby to replay the first deposit", func() map[string]any {
		return map[string]any{"n": entries(t, onTolerant)}
	}, func(m map[string]any) bool { return m["n"].(int) > 0 })["n"].(int)
	if got := metric(t, tolerant, `corridor_db_reads_total\{target="replica"\}`); got < 1 {
		t.Fatalf("no read served by the replica (corridor_db_reads_total replica = %v)", got)
	}

	r.onStandby(t, "SELECT pg_wal_replay_pause()")
	onTolerant.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "5"}).Expect(t, 201)
	// The write and the balance read their own writes on the primary.
	if bal := onTolerant.Get("/v1/balances").Expect(t, 200).Body; !regexp.MustCompile(`"15(\.0+)?"`).Match(bal) {
		t.Fatalf("balances after two deposits: %s", bal)
	}
	strictSaw := harness.Poll(t, "the strict instance to fall back to the primary", func() map[string]any {
		return map[string]any{"n": entries(t, onStrict)}
	}, func(m map[string]any) bool { return m["n"].(int) > first })["n"].(int)
	if got := entries(t, onTolerant); got != first {
		t.Fatalf("the tolerant instance read %d entries with replay paused at %d: not served by the standby", got, first)
	}
	if lag := metric(t, strict, `corridor_db_read_replica_lag_seconds`); lag <= 0 {
		t.Fatalf("corridor_db_read_replica_lag_seconds = %v with replay paused behind the primary", lag)
	}
	if got := metric(t, strict, `corridor_db_reads_total\{target="primary"\}`); got < 1 {
		t.Fatalf("no fallback counted (corridor_db_reads_total primary = %v)", got)
	}

	r.onStandby(t, "SELECT pg_wal_replay_resume()")
	harness.Poll(t, "the standby to catch up", func() map[string]any {
		return map[string]any{"n": entries(t, onTolerant)}
	}, func(m map[string]any) bool { return m["n"].(int) == strictSaw })

	// The standby goes away: the exports are served by the primary, not refused.
	if err := r.standby.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := entries(t, onTolerant); got != strictSaw {
			t.Fatalf("with the standby stopped the export shows %d entries, want %d", got, strictSaw)
		}
	}
}

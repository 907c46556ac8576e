package citus

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/test/harness"
)

// reviveOnFailure starts node again when the test ends with it still killed, so the package's
// later tests find a whole cluster.
func reviveOnFailure(t *testing.T, node *pgcluster.Cluster, killed *atomic.Bool) {
	t.Cleanup(func() {
		if killed.Load() {
			if err := node.Revive(context.Background()); err != nil {
				t.Errorf("reviving %s: %v", node.DataDir(), err)
			}
		}
	})
}

// TestCitus_WorkerKilledUnderLoad: tenants on both workers send deposits and card
// authorizations; one worker is SIGKILLed (its postmaster and every backend: the machine died).
// While it is down, every request of a tenant whose shard group lives there is refused with a
// 503 SERVICE_UNAVAILABLE envelope, none acknowledged, and tenants on the other worker keep
// being served. Once the worker is started again (crash recovery), every tenant is served
// without an operator. At the end every acknowledged request replays its stored answer without
// applying again, every refused one applies once on retry, the balances are exact, and
// corridor check's checks pass. `make chaos` kills the workers in turn, several times.
func TestCitus_WorkerKilledUnderLoad(t *testing.T) {
	cc := citusCluster(t)
	tenants := placedTenants(t, 2)
	var down atomic.Int32
	stop := chaosLoad(tenants, &down)
	defer stop()
	awaitAcked(t, "the load before the first kill", tenants, rounds())
	for n := int32(1); n <= int32(outages()); n++ {
		killWorker(t, tenants, cc.Workers[int(n-1)%len(cc.Workers)], &down, n)
	}
	stop()
	refused := expectCleanRefusals(t, tenants)
	expectExactlyOnce(t, tenants)
	expectChecks(t)
	t.Logf("%d tenants, %d outages, %d refusals, every request applied once", len(tenants), outages(), refused)
}

// placedTenants creates tenants with cards until each worker holds perWorker of them.
func placedTenants(t *testing.T, perWorker int) []*chaosTenant {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	return chaosTenants(t, conn, perWorker)
}

// killWorker is one outage (numbered n) of victim under the running load: killed, the tenants
// on it refused and the others served, started again, every tenant served again.
func killWorker(t *testing.T, tenants []*chaosTenant, victim *pgcluster.Cluster, down *atomic.Int32, n int32) {
	t.Helper()
	var killed atomic.Bool
	reviveOnFailure(t, victim, &killed)
	onVictim := func(ct *chaosTenant) bool { return ct.port == victim.Port() }
	if err := victim.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.Store(true)
	downAt := time.Now()
	down.Store(n)
	harness.Eventually(t, "tenants on the killed worker refused and the others served", func() bool {
		refused, served := 0, 0
		for _, ct := range tenants {
			if onVictim(ct) {
				refused += ct.count(func(q *chaosReq) bool { return q.downIn == n && !q.acked() })
			} else {
				served += ct.count(func(q *chaosReq) bool { return q.downIn == n && q.acked() })
			}
		}
		return refused >= rounds() && served >= rounds()
	})
	down.Store(0)
	restartAt := time.Now()
	if err := victim.Revive(context.Background()); err != nil {
		t.Fatal(err)
	}
	killed.Store(false)
	revivedAt := time.Now()
	awaitAcked(t, "every tenant served after the revival", tenants, 1)
	recovered := time.Since(revivedAt)
	awaitAcked(t, "the load after the revival", tenants, rounds())
	for _, ct := range tenants {
		if k := ct.count(func(q *chaosReq) bool { return q.downIn == n && q.acked() }); onVictim(ct) && k > 0 {
			t.Errorf("tenant %s on the killed worker had %d requests acknowledged while it was down", ct.ten.ID, k)
		}
	}
	t.Logf("outage %d: worker :%d down %s; its restart (crash recovery) took %s; every tenant served again %s after it answered",
		n, victim.Port(), restartAt.Sub(downAt).Round(time.Millisecond), revivedAt.Sub(restartAt).Round(time.Millisecond), recovered.Round(time.Millisecond))
}

// TestCitus_CoordinatorKilledUnderLoad: the coordinator is SIGKILLed under the same load. The
// service reports not ready (/readyz 503 naming the database) and refuses requests with 503
// SERVICE_UNAVAILABLE; started again, it serves every tenant without an operator. Citus's
// two-phase commit recovery (recover_prepared_transactions, which the maintenance daemon also
// runs every citus.recover_2pc_interval) leaves no prepared transaction on any worker; every
// acknowledged request was applied exactly once and corridor check's checks pass.
func TestCitus_CoordinatorKilledUnderLoad(t *testing.T) {
	cc := citusCluster(t)
	tenants := placedTenants(t, 1)
	var down atomic.Int32
	stop := chaosLoad(tenants, &down)
	defer stop()
	awaitAcked(t, "the load before the first kill", tenants, rounds())
	resolved := 0
	for n := int32(1); n <= int32(outages()); n++ {
		killCoordinator(t, tenants, cc.Coordinator, &down, n)
		resolved += expectNoPreparedTransactions(t, cc)
	}
	stop()
	refused := expectCleanRefusals(t, tenants)
	expectExactlyOnce(t, tenants)
	expectChecks(t)
	t.Logf("%d tenants, %d outages, %d refusals, 2PC recovery resolved %d prepared transactions", len(tenants), outages(), refused, resolved)
}

// killCoordinator is one outage (numbered n) of the coordinator under the running load.
func killCoordinator(t *testing.T, tenants []*chaosTenant, coord *pgcluster.Cluster, down *atomic.Int32, n int32) {
	t.Helper()
	var killed atomic.Bool
	reviveOnFailure(t, coord, &killed)
	// The coordinator dies with requests in flight: a unit that wrote coordinator tables and a
	// worker's shard commits with two-phase commit (docs/reliability.md, "Citus"), so a kill
	// between the worker's prepare and the coordinator's commit loses neither half.
	if err := coord.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.Store(true)
	downAt := time.Now()
	down.Store(n)
	harness.Eventually(t, "/readyz to report the database down", func() bool {
		r, err := env().Client(t).Try(http.MethodGet, "/readyz", nil)
		return err == nil && r.Status == 503 && strings.Contains(string(r.Body), "database")
	})
	harness.Eventually(t, "requests refused while the coordinator is down", func() bool {
		k := 0
		for _, ct := range tenants {
			k += ct.count(func(q *chaosReq) bool { return q.downIn == n && !q.acked() })
		}
		return k >= rounds()
	})
	down.Store(0)
	restartAt := time.Now()
	if err := coord.Revive(context.Background()); err != nil {
		t.Fatal(err)
	}
	killed.Store(false)
	revivedAt := time.Now()
	harness.Eventually(t, "/readyz ready after the restart", func() bool {
		r, err := env().Client(t).Try(http.MethodGet, "/readyz", nil)
		return err == nil && r.Status == 200
	})
	ready := time.Since(revivedAt)
	awaitAcked(t, "every tenant served after the restart", tenants, 1)
	served := time.Since(revivedAt)
	awaitAcked(t, "the load after the restart", tenants, rounds())
	for _, ct := range tenants {
		if k := ct.count(func(q *chaosReq) bool { return q.downIn == n && q.acked() }); k > 0 {
			t.Errorf("tenant %s had %d requests acknowledged while the coordinator was down", ct.ten.ID, k)
		}
	}
	t.Logf("outage %d: coordinator down %s; its restart (crash recovery) took %s; /readyz ready %s and every tenant served %s after it answered",
		n, restartAt.Sub(downAt).Round(time.Millisecond), revivedAt.Sub(restartAt).Round(time.Millisecond), ready.Round(time.Millisecond), served.Round(time.Millisecond))
}

// expectNoPreparedTransactions runs Citus's two-phase commit recovery on the coordinator (what
// its maintenance daemon does every citus.recover_2pc_interval) and then requires that no
// worker holds a prepared transaction of the package's database: each one the coordinator's
// crash left is committed (its commit record survived) or rolled back. It returns how many the
// recovery resolved.
func expectNoPreparedTransactions(t *testing.T, cc *pgcluster.Citus) int {
	t.Helper()
	ctx := context.Background()
	u, err := url.Parse(env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	dbname := strings.TrimPrefix(u.Path, "/")
	total := 0
	harness.Eventually(t, "no prepared transaction left on any worker", func() bool {
		var recovered int
		if err := queryOne(ctx, env().DatabaseURL, `SELECT recover_prepared_transactions()`, &recovered); err != nil {
			return false
		}
		total += recovered
		for _, w := range cc.Workers {
			var dangling int
			err := queryOne(ctx, w.URL("postgres"), `SELECT count(*) FROM pg_prepared_xacts WHERE database = $1`, &dangling, dbname)
			if err != nil || dangling > 0 {
				return false
			}
		}
		return true
	})
	return total
}

// queryOne scans one value from a fresh connection to url.
func queryOne(ctx context.Context, url, sql string, dest any, args ...any) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, sql, args...).Scan(dest)
}

package citus

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/harness/faultproxy"
	"github.com/corridorhq/corridor/wiring"
)

// silentTimeout is the request deadline of the silent-worker test's service.
const silentTimeout = 3 * time.Second

// citusConnectTimeout is Citus's default citus.node_connection_timeout.
const citusConnectTimeout = 30 * time.Second

// TestCitus_WorkerSilent: a worker that stops answering without refusing (a network partition,
// a machine that hangs: connections accepted, nothing answered), which a killed worker on
// loopback never shows. The coordinator reaches the worker through a fault proxy
// (citus_update_node); with the proxy silent, a request of a tenant on that worker answers 503
// SERVICE_UNAVAILABLE by the service's request deadline, not after Citus's own connection
// time-out, and a tenant on the other worker is served meanwhile, while the refused request
// waits and after it (a pipeline batch on Citus holds one tenant's units: docs/reliability.md,
// "Citus"). Once the worker answers again the refused deposit applies once on retry and
// corridor check's checks pass.
func TestCitus_WorkerSilent(t *testing.T) {
	citusCluster(t)
	tenants := placedTenants(t, 1)
	var victim, other *chaosTenant
	for _, ct := range tenants {
		if ct.port == tenants[0].port {
			victim = ct
		} else if other == nil {
			other = ct
		}
	}
	keys := map[*chaosTenant]string{victim: victim.ten.RootKey, other: keyLookedUpOn(t, other, victim.port)}
	proxy, err := faultproxy.Start("127.0.0.1:" + strconv.Itoa(victim.port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	_, portText, _ := net.SplitHostPort(proxy.Addr())
	proxyPort, _ := strconv.Atoi(portText)
	updateNode(t, victim.port, proxyPort)
	t.Cleanup(func() {
		proxy.Blackhole(false)
		updateNode(t, proxyPort, victim.port)
		// The workers hold Citus's metadata: citus_update_node leaves them out of sync until the
		// maintenance daemon catches up, and Citus refuses DDL (a later test's) until then.
		var synced bool
		if err := queryOne(context.Background(), env().DatabaseURL, `SELECT start_metadata_sync_to_all_nodes()`, &synced); err != nil {
			t.Errorf("metadata sync after the silent worker: %v", err)
		}
	})
	// A service started after the update: its sessions on the coordinator open their worker
	// connections through the proxy.
	// Its cached API-key rows expire at once, so every request of the outage reads its key again.
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.HTTPTimeouts.Request = silentTimeout
		c.APIKeyCacheTTL = time.Nanosecond
	})
	as := func(ct *chaosTenant) *harness.Client { return srv.Client(t).WithKey(keys[ct]) }
	deposit := func(ct *chaosTenant, key string) *harness.Response {
		return as(ct).With("Idempotency-Key", key).Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "3"})
	}
	deposit(victim, "silent-before").Expect(t, 201)
	// The other tenant's key is looked up once before the outage, through its lookup row, which
	// lives on the worker about to fall silent; later reads of the key go to the tenant's own
	// worker (docs/reliability.md, "Citus").
	deposit(other, "silent-warm").Expect(t, 201)

	proxy.Blackhole(true)
	begin := time.Now()
	type answer struct {
		r   *harness.Response
		err error
	}
	refused := make(chan answer, 1)
	go func() {
		r, err := as(victim).With("Idempotency-Key", "silent-during").Try("POST", "/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "3"})
		refused <- answer{r, err}
	}()
	// While the silent worker's tenant waits, the other worker's tenants are served: its units
	// never share a batch (one distributed transaction) with the waiting one's.
	for i := range 3 {
		deposit(other, "silent-beside-"+strconv.Itoa(i)).Expect(t, 201)
	}
	a := <-refused
	took := time.Since(begin)
	if a.err != nil {
		t.Fatal(a.err)
	}
	a.r.ExpectError(t, 503, "SERVICE_UNAVAILABLE")
	// Not a timing target: the bound tells the request's deadline (3 s) from Citus's own
	// connection time-out (citus.node_connection_timeout, 30 s), whatever the machine's load.
	if took >= citusConnectTimeout {
		t.Errorf("the refusal took %s: Citus's connection time-out answered, not the request deadline %s", took, silentTimeout)
	}
	deposit(other, "silent-other").Expect(t, 201)

	proxy.Blackhole(false)
	harness.Eventually(t, "the refused deposit applied on retry", func() bool {
		r, err := as(victim).With("Idempotency-Key", "silent-during").Try("POST", "/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "3"})
		return err == nil && r.Status == 201
	})
	harness.ExpectServiceBalance(t, as(victim), 6_000_000, 0)
	harness.ExpectServiceBalance(t, as(other), 15_000_000, 0)
	expectChecks(t)
	t.Logf("a silent worker's tenant refused in %s (request deadline %s)", took.Round(time.Millisecond), silentTimeout)
}

// keyLookedUpOn mints API keys for ct until one's lookup row (tenant_lookups, distributed by
// the public id) lives on the worker on port, and returns it: a key whose first lookup needs
// that worker although its tenant's rows live on the other.
func keyLookedUpOn(t *testing.T, ct *chaosTenant, port int) string {
	t.Helper()
	for i := range 64 {
		key := env().NewKey(t, ct.ten.Session, map[string]any{"name": "silent-" + strconv.Itoa(i), "scopes": []string{"*"}})
		parsed, err := auth.ParseKey(key)
		if err != nil {
			t.Fatal(err)
		}
		var at int
		if err := queryOne(context.Background(), env().DatabaseURL, `SELECT n.nodeport FROM pg_dist_placement pl
			JOIN pg_dist_node n ON n.groupid = pl.groupid
			WHERE pl.shardid = get_shard_id_for_distribution_column('tenant_lookups', $1::text)`, &at, parsed.PubID); err != nil {
			t.Fatal(err)
		}
		if at == port {
			return key
		}
	}
	t.Fatalf("no key of tenant %s has its lookup row on the worker on port %d", ct.ten.ID, port)
	return ""
}

// updateNode points the coordinator's entry for the worker on port from at port to.
func updateNode(t *testing.T, from, to int) {
	t.Helper()
	var ok bool
	err := queryOne(context.Background(), env().DatabaseURL, `SELECT citus_update_node(nodeid, '127.0.0.1', $2) IS NULL
		FROM pg_dist_node WHERE nodeport = $1`, &ok, from, to)
	if err != nil {
		t.Fatalf("citus_update_node :%d -> :%d: %v", from, to, err)
	}
}

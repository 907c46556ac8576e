package citus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
)

// chaosReq is one idempotent money request of the chaos load and what its first try answered.
type chaosReq struct {
	path, key string
	body      map[string]any
	status    int    // 0: no HTTP answer
	code      string // the envelope's code of a refusal, or the transport error
	answer    []byte
	downIn    int32 // the outage (numbered from 1) it started and was answered in; 0: none
}

// acked reports a request the service acknowledged: its effect must be there exactly once.
func (q *chaosReq) acked() bool { return q.status == 201 || q.status == 200 }

// chaosTenant is one tenant of the load: the worker holding its shard group, its card, and
// every request it sent.
type chaosTenant struct {
	ten  *harness.Tenant
	port int
	card string
	mu   sync.Mutex
	reqs []*chaosReq
}

// citusCluster is the package's Citus cluster, whose nodes the chaos tests kill.
func citusCluster(t *testing.T) *pgcluster.Citus {
	t.Helper()
	srv, err := testdb.Shared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if srv.CitusCluster() == nil {
		t.Skip("needs the throwaway Citus cluster (CORRIDOR_TESTDB_SOURCE=citus)")
	}
	return srv.CitusCluster()
}

// chaosTenants creates tenants, each with a card, until each worker holds the shard groups of
// at least perWorker of them (tenants hash to shards, so it takes a few).
func chaosTenants(t *testing.T, conn *pgx.Conn, perWorker int) []*chaosTenant {
	t.Helper()
	var out []*chaosTenant
	per := map[int]int{}
	for len(per) < pgcluster.CitusWorkers || minCount(per) < perWorker {
		if len(out) > 24 {
			t.Fatalf("24 tenants and not %d on each worker: %v", perWorker, per)
		}
		ct := newChaosTenant(t, conn)
		out = append(out, ct)
		per[ct.port]++
	}
	return out
}

// newChaosTenant creates a tenant with a card and finds the worker holding its shard group.
func newChaosTenant(t *testing.T, conn *pgx.Conn) *chaosTenant {
	t.Helper()
	ten := env().NewTenant(t)
	p := tenantPlacement(t, conn, "idempotency_keys", ten.ID)
	holder := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)
	card := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": holder["cardholderId"]}).Expect(t, 201).JSON(t)["cardId"].(string)
	return &chaosTenant{ten: ten, port: p.port, card: card}
}

func minCount(m map[int]int) int {
	least := -1
	for _, n := range m {
		if least < 0 || n < least {
			least = n
		}
	}
	return least
}

// run sends, until stop closes, a deposit and then a card authorization (a payment from the
// balance), each with its own Idempotency-Key and a distinct deposit amount, so a doubled or
// lost one shows in the balance.
func (ct *chaosTenant) run(down *atomic.Int32, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		ct.send(down, &chaosReq{path: "/v1/sandbox/balance-deposits", key: fmt.Sprintf("chaos-dep-%s-%d", ct.ten.ID, i),
			body: map[string]any{"amountUsd": fmt.Sprintf("2.%02d", i%100)}})
		ct.send(down, &chaosReq{path: "/v1/sandbox/cards/" + ct.card + "/authorizations", key: fmt.Sprintf("chaos-auth-%s-%d", ct.ten.ID, i),
			body: map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "Corner Shop"}})
	}
}

// send posts q once and records the answer, and the outage it fell in when it started and
// was answered while down named one; a refusal is followed by a short pause, so a tenant
// whose node is down does not spin.
func (ct *chaosTenant) send(down *atomic.Int32, q *chaosReq) {
	started := down.Load()
	r, err := ct.ten.Root.With("Idempotency-Key", q.key).Try("POST", q.path, q.body)
	if started != 0 && down.Load() == started {
		q.downIn = started
	}
	if err != nil {
		q.code = "transport: " + err.Error()
	} else {
		q.status, q.answer = r.Status, r.Body
		var env struct{ Code string }
		_ = json.Unmarshal(r.Body, &env)
		q.code = env.Code
	}
	ct.mu.Lock()
	ct.reqs = append(ct.reqs, q)
	ct.mu.Unlock()
	if !q.acked() {
		time.Sleep(50 * time.Millisecond)
	}
}

// count is how many of the tenant's requests match.
func (ct *chaosTenant) count(match func(*chaosReq) bool) int {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	n := 0
	for _, q := range ct.reqs {
		if match(q) {
			n++
		}
	}
	return n
}

// chaosLoad runs every tenant's load until the returned stop is called (once or more).
func chaosLoad(tenants []*chaosTenant, down *atomic.Int32) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, ct := range tenants {
		wg.Add(1)
		go func() { defer wg.Done(); ct.run(down, done) }()
	}
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// awaitAcked waits until every tenant has had n more requests acknowledged than it had.
func awaitAcked(t *testing.T, what string, tenants []*chaosTenant, n int) {
	t.Helper()
	base := make([]int, len(tenants))
	for i, ct := range tenants {
		base[i] = ct.count((*chaosReq).acked)
	}
	harness.Eventually(t, what, func() bool {
		for i, ct := range tenants {
			if ct.count((*chaosReq).acked) < base[i]+n {
				return false
			}
		}
		return true
	})
}

// expectCleanRefusals fails on any answer that is neither an acknowledgement nor a retryable
// refusal in the envelope (503 SERVICE_UNAVAILABLE, or 409 while the key's first try is in
// flight): a 500, a hang cut by the client, or a validation error would be a defect.
func expectCleanRefusals(t *testing.T, tenants []*chaosTenant) (refused int) {
	t.Helper()
	for _, ct := range tenants {
		ct.mu.Lock()
		for _, q := range ct.reqs {
			switch {
			case q.acked():
			case q.status == 503 && q.code == "SERVICE_UNAVAILABLE", q.status == 409 && q.code == "IDEMPOTENCY_REQUEST_IN_PROGRESS":
				refused++
			default:
				t.Errorf("tenant %s %s %s: %d %s %s, want an acknowledgement or a 503 SERVICE_UNAVAILABLE", ct.ten.ID, q.path, q.key, q.status, q.code, q.answer)
			}
		}
		ct.mu.Unlock()
	}
	return refused
}

// expectExactlyOnce replays every acknowledged request (the same stored answer, marked as a
// replay, no second effect), retries every refused one with its key until it is acknowledged
// (what a client does), and then checks each tenant's balance: the sum of its deposits less
// its approved authorizations' holds, nothing lost or doubled.
func expectExactlyOnce(t *testing.T, tenants []*chaosTenant) {
	t.Helper()
	for _, ct := range tenants {
		var deposits, holds int64
		for _, q := range ct.reqs {
			if q.acked() {
				r := ct.ten.Root.With("Idempotency-Key", q.key).Post(q.path, q.body)
				if r.Status != q.status || r.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(r.Body, q.answer) {
					t.Fatalf("tenant %s: %s replayed as %d %s (replayed %q), first answer %d %s", ct.ten.ID, q.key, r.Status, r.Body,
						r.Header.Get("Idempotent-Replayed"), q.status, q.answer)
				}
			} else {
				retryUntilAcked(t, ct, q)
			}
			var m map[string]any
			_ = json.Unmarshal(q.answer, &m)
			if strings.Contains(q.path, "balance-deposits") {
				deposits += usd(t, q.body["amountUsd"].(string))
			} else if m["status"] == "APPROVED" {
				holds += usd(t, q.body["amountUsd"].(string))
			}
		}
		a, h := harness.ServiceBalance(t, ct.ten.Root)
		if a+h != deposits || h != holds {
			t.Fatalf("tenant %s: balance available %d held %d, want %d in all of which %d held (%d requests)", ct.ten.ID, a, h, deposits, holds, len(ct.reqs))
		}
	}
}

// retryUntilAcked sends q again with its key until the service acknowledges it.
func retryUntilAcked(t *testing.T, ct *chaosTenant, q *chaosReq) {
	t.Helper()
	harness.Eventually(t, "a retry of "+q.key+" to be acknowledged", func() bool {
		r, err := ct.ten.Root.With("Idempotency-Key", q.key).Try("POST", q.path, q.body)
		if err != nil || (r.Status != 201 && r.Status != 200) {
			return false
		}
		q.status, q.answer = r.Status, r.Body
		return true
	})
}

// usd is a decimal dollar amount in base units (six decimals).
func usd(t *testing.T, s string) int64 {
	t.Helper()
	var d, c int64
	if _, err := fmt.Sscanf(s, "%d.%d", &d, &c); err != nil {
		if _, err := fmt.Sscanf(s, "%d", &d); err != nil {
			t.Fatalf("amount %q: %v", s, err)
		}
	}
	return d*1_000_000 + c*10_000
}

// expectChecks runs corridor check's checks on the package's database.
func expectChecks(t *testing.T) {
	t.Helper()
	rep, err := postgres.CheckInvariants(context.Background(), env().Service.Store.DB(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("corridor check: %+v", rep.Checks)
	}
}

// chaos reports the long variants (CORRIDOR_CHAOS=1, `make chaos`).
func chaos() bool { return os.Getenv("CORRIDOR_CHAOS") == "1" }

// rounds is how many acknowledged requests per tenant each phase of a scenario waits for.
func rounds() int {
	if chaos() {
		return 20
	}
	return 3
}

// outages is how many times a scenario kills and restarts its node.
func outages() int {
	if chaos() {
		return 4
	}
	return 1
}

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/harness/faultproxy"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// retryable are the answers a client retries with the same Idempotency-Key: the service could
// not do it now (503), or the same key's first try is still in flight (409).
var retryable = map[string]bool{"SERVICE_UNAVAILABLE": true, "IDEMPOTENCY_REQUEST_IN_PROGRESS": true}

// refusedSoFar counts the retryable answers every client has seen, for tests that wait until a
// fault has been noticed.
var refusedSoFar atomic.Int64

// maxAttempts bounds a client's retries of one request.
const maxAttempts = 60

// deposit is one idempotent money POST and what the client saw.
type deposit struct {
	key        string
	cents      int64
	id         string
	refusals   []string // every retryable answer before the success
	replayed   bool     // the success was a replay of an earlier try that committed
	unexpected string   // an answer the client may not retry, if any
}

// send posts the deposit until it succeeds, retrying retryable answers with the same key.
func (d *deposit) send(c *harness.Client) {
	body := map[string]any{"amountUsd": fmt.Sprintf("%d.%02d", d.cents/100, d.cents%100)}
	for range maxAttempts {
		r := c.With("Idempotency-Key", d.key).Post("/v1/sandbox/balance-deposits", body)
		if r.Status == 201 {
			var created struct {
				ID string `json:"id"`
			}
			_ = jsonUnmarshal(r.Body, &created)
			d.id = created.ID
			d.replayed = r.Header.Get("Idempotent-Replayed") == "true"
			return
		}
		code := errorCode(r)
		if !retryable[code] {
			d.unexpected = fmt.Sprintf("%d %s: %s", r.Status, code, r.Body)
			return
		}
		d.refusals = append(d.refusals, code)
		refusedSoFar.Add(1)
		time.Sleep(50 * time.Millisecond)
	}
	d.unexpected = "still refused after every attempt"
}

// load sends n deposits from workers goroutines, each deposit a distinct amount so a doubled
// one shows in the balance; it returns them and their total in cents.
func load(c *harness.Client, prefix string, n, workers int) ([]*deposit, int64) {
	deposits := make([]*deposit, n)
	var total int64
	for i := range deposits {
		deposits[i] = &deposit{key: fmt.Sprintf("%s-%d", prefix, i), cents: int64(100 + i)}
		total += deposits[i].cents
	}
	next := make(chan *deposit)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range next {
				d.send(c)
			}
		}()
	}
	for _, d := range deposits {
		next <- d
	}
	close(next)
	wg.Wait()
	return deposits, total
}

// expectExactlyOnce asserts that every deposit succeeded, that a retry of each replays the
// same deposit, and that the balance is the exact sum: nothing lost, nothing doubled.
func expectExactlyOnce(t *testing.T, c *harness.Client, deposits []*deposit, totalCents int64) (refused int) {
	t.Helper()
	for _, d := range deposits {
		if d.unexpected != "" {
			t.Fatalf("deposit %s: %s", d.key, d.unexpected)
		}
		refused += len(d.refusals)
	}
	for _, d := range deposits {
		body := map[string]any{"amountUsd": fmt.Sprintf("%d.%02d", d.cents/100, d.cents%100)}
		r := c.With("Idempotency-Key", d.key).Post("/v1/sandbox/balance-deposits", body).Expect(t, 201)
		if r.Header.Get("Idempotent-Replayed") != "true" || r.JSON(t)["id"] != d.id {
			t.Fatalf("retry of %s after the faults is not a replay of %s: %s", d.key, d.id, r.Body)
		}
	}
	harness.ExpectServiceBalance(t, c, totalCents*10_000, 0)
	return refused
}

// TestDatabaseFaults_Latency (a): every byte to and from PostgreSQL is late; the service is
// slower and exact.
func TestDatabaseFaults_Latency(t *testing.T) {
	eachStoreMode(t, func(t *testing.T, mode func(*wiring.Config)) {
		env, proxy := proxiedServer(t, mode)
		proxy.SetLatency(3 * time.Millisecond)
		ten := env.NewTenant(t)
		c := as(t, env, ten)
		deposits, total := load(c, "latency", scale(24, 5), 6)
		expectExactlyOnce(t, c, deposits, total)
		env.Client(t).Get("/readyz").Expect(t, 200)
		harness.ExpectLedgerBalanced(t, env.DatabaseURL, ten)
		expectInvariants(t)
	})
}

// TestDatabaseFaults_ResetsMidCommit (b): under a load of idempotent deposits, connections are
// reset mid-unit: either a statement the service sends is lost (its transaction cannot
// commit), or PostgreSQL's answer to a COMMIT is lost (it committed; the service cannot tell).
// The service answers 503 and clients retry with their keys: each key's deposit is applied
// exactly once, a retry after a lost COMMIT answer replays it, and every retry after the
// faults replays.
func TestDatabaseFaults_ResetsMidCommit(t *testing.T) {
	eachStoreMode(t, func(t *testing.T, mode func(*wiring.Config)) {
		for _, tc := range []struct {
			name      string
			rule      faultproxy.CutRule
			committed bool // a refused try had committed
		}{
			// The ledger transfer's INSERT, sent by the service when a connection first prepares it
			// (later units on the connection name the prepared statement): the first few are lost.
			{"statement lost", faultproxy.CutRule{Pattern: []byte("INSERT INTO ledger_transfers"), Limit: scale(6, 5)}, false},
			// PostgreSQL's CommandComplete tag of a COMMIT.
			{"commit answer lost", faultproxy.CutRule{Pattern: []byte("COMMIT\x00"), FromServer: true, Every: 3}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				env, proxy := proxiedServer(t, mode)
				ten := env.NewTenant(t)
				c := as(t, env, ten)
				rule := tc.rule
				proxy.Cut(&rule)
				deposits, total := load(c, strings.ReplaceAll(tc.name, " ", "-"), scale(30, 5), 6)
				cuts := proxy.Cuts()
				proxy.Cut(nil)
				if cuts == 0 {
					t.Fatal("nothing was cut: the proxy did not see the pattern")
				}
				refused := expectExactlyOnce(t, c, deposits, total)
				replays := 0
				for _, d := range deposits {
					if d.replayed {
						replays++
					}
					if d.replayed && !tc.committed {
						t.Errorf("deposit %s replayed although its transaction never committed", d.key)
					}
				}
				// A request commits more than its unit (an API key's last use, River's jobs), so a
				// refused deposit may have lost another commit's answer and rightly run again; with a
				// third of all COMMIT answers cut, some are the deposits' own.
				if tc.committed && replays == 0 {
					t.Error("no retry replayed a deposit whose COMMIT answer was lost")
				}
				if refused == 0 {
					t.Fatal("no deposit was refused: the cuts hit only other connections")
				}
				t.Logf("%d cuts, %d answers refused and retried, %d retries replayed", cuts, refused, replays)
				harness.ExpectLedgerBalanced(t, env.DatabaseURL, ten)
				expectInvariants(t)
			})
		}
	})
}

// TestDatabaseFaults_Unreachable (c): PostgreSQL stops answering for a while under load
// (connections accepted, nothing answered, then every connection reset). Requests answer 503
// SERVICE_UNAVAILABLE in the error envelope by their deadline, /readyz names the database, and
// once it answers again the service recovers without an operator: the clients' retries
// complete exactly once. With the commit pipeline, a batch whose callers' deadlines have all
// passed gives up its BEGIN, statement or COMMIT (batchContext in adapters/postgres), so no
// request waits past its deadline for a lane stuck on the silent database.
func TestDatabaseFaults_Unreachable(t *testing.T) {
	eachStoreMode(t, func(t *testing.T, mode func(*wiring.Config)) {
		env, proxy := proxiedServer(t, mode)
		ten := env.NewTenant(t)
		c := as(t, env, ten)
		first, firstTotal := load(c, "before", 5, 1)

		proxy.Blackhole(true)
		got := env.Client(t).Get("/readyz").ExpectError(t, 503, "SERVICE_UNAVAILABLE")
		if checks := got["details"].(map[string]any)["checks"].(map[string]any); checks["database"] != "the database does not answer" ||
			!strings.HasPrefix(got["message"].(string), "not ready: database") {
			t.Fatalf("readyz while the database is unreachable: %v", got)
		}
		c.Get("/v1/balances").ExpectError(t, 503, "SERVICE_UNAVAILABLE")

		outage := make(chan struct{})
		var during []*deposit
		var duringTotal int64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			during, duringTotal = load(c, "during", scale(12, 5), 4)
		}()
		refusedBefore := refusedSoFar.Load()
		go func() {
			// The outage lasts until the load has been refused a few times (more under chaos).
			defer close(outage)
			for range 600 {
				time.Sleep(100 * time.Millisecond)
				if refusedSoFar.Load()-refusedBefore >= int64(scale(4, 5)) {
					return
				}
			}
		}()
		<-outage
		proxy.Blackhole(false)
		wg.Wait()

		env.Client(t).Get("/readyz").Expect(t, 200)
		refused := expectExactlyOnce(t, c, append(first, during...), firstTotal+duringTotal)
		if refused == 0 {
			t.Fatal("no request was refused during the outage")
		}
		harness.ExpectLedgerBalanced(t, env.DatabaseURL, ten)
		expectInvariants(t)
	})
}

// TestDatabaseFaults_PostgreSQLRestart (c, full version, CORRIDOR_CHAOS=1): the package's
// PostgreSQL really restarts (pg_ctl restart -m fast) under a load of idempotent deposits, on
// a second service and on the package's shared one. Sessions are terminated (57P01), new ones
// refused while it starts; requests answer 503 SERVICE_UNAVAILABLE; both services recover
// without an operator and every deposit completes exactly once on retry.
func TestDatabaseFaults_PostgreSQLRestart(t *testing.T) {
	if !chaos() {
		t.Skip("a real restart runs under CORRIDOR_CHAOS=1 (make chaos); TestDatabaseFaults_Unreachable stands in for it")
	}
	ctx := context.Background()
	srv, err := testdb.Shared(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env := harness.NewServer(t, func(c *wiring.Config) { c.HTTPTimeouts.Request = requestTimeout })
	ten, sharedTen := env.NewTenant(t), harness.Shared().NewTenant(t)
	c, sharedC := as(t, env, ten), as(t, harness.Shared(), sharedTen)
	first, firstTotal := load(c, "restart-before", 5, 1)

	var during, sharedDuring []*deposit
	var duringTotal, sharedTotal int64
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); during, duringTotal = load(c, "restart-during", 100, 4) }()
	go func() { defer wg.Done(); sharedDuring, sharedTotal = load(sharedC, "restart-shared", 40, 2) }()
	if err := srv.Restart(ctx); err != nil {
		t.Skipf("this PostgreSQL cannot be restarted here: %v", err)
	}
	wg.Wait()

	harness.Poll(t, "ready after the restart", func() map[string]any {
		return map[string]any{"status": env.Client(t).Get("/readyz").Status}
	}, func(m map[string]any) bool { return m["status"] == 200 })
	refused := expectExactlyOnce(t, c, append(first, during...), firstTotal+duringTotal)
	refused += expectExactlyOnce(t, sharedC, sharedDuring, sharedTotal)
	t.Logf("%d answers refused and retried across the restart", refused)
	harness.ExpectLedgerBalanced(t, env.DatabaseURL, ten, sharedTen)
	expectInvariants(t)
}

package cluster

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// balancer stands for HAProxy in the test: round robin over the replicas it believes up, a
// replica that refuses a connection taken out, and a request that met a stopped replica, a 503
// or an in-progress duplicate sent again, with its Idempotency-Key, to the next one.
type balancer struct {
	mu       sync.Mutex
	replicas []*harness.Env
	down     map[*harness.Env]bool
	next     int
	retried  int
}

func (b *balancer) pick() *harness.Env {
	b.mu.Lock()
	defer b.mu.Unlock()
	for range len(b.replicas) {
		e := b.replicas[b.next%len(b.replicas)]
		b.next++
		if !b.down[e] {
			return e
		}
	}
	panic("balancer: every replica is down")
}

func (b *balancer) markDown(e *harness.Env) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down[e] = true
	b.retried++
}

func (b *balancer) add(e *harness.Env) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.replicas = append(b.replicas, e)
}

// send is one request with retries elsewhere; headers are name, value pairs.
func (b *balancer) send(t *testing.T, key, method, path string, body any, headers ...string) *harness.Response {
	t.Helper()
	for range 20 {
		e := b.pick()
		c := e.Client(t).WithKey(key)
		for i := 0; i+1 < len(headers); i += 2 {
			c = c.With(headers[i], headers[i+1])
		}
		r, err := c.Try(method, path, body)
		if err != nil {
			b.markDown(e)
			continue
		}
		if r.Status == 503 || r.Status == 409 && bytes.Contains(r.Body, []byte("IDEMPOTENCY_REQUEST_IN_PROGRESS")) {
			b.mu.Lock()
			b.retried++
			b.mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		return r
	}
	t.Fatalf("%s %s: no replica answered", method, path)
	return nil
}

// journeySize is the short version in go test, the long one under CORRIDOR_CHAOS=1 (make chaos).
type journeySize struct {
	tenants, deposits, rounds int
}

func sizeOfJourney() journeySize {
	if os.Getenv("CORRIDOR_CHAOS") != "" {
		return journeySize{tenants: 6, deposits: 24, rounds: 3}
	}
	return journeySize{tenants: 3, deposits: 6, rounds: 1}
}

// clusterConfig is each replica's: limits shared in the database, exports on the standby within
// a tight bound, the loopback trusted as the balancer, quick checkout confirmations.
func clusterConfig(standbyURL string) func(*wiring.Config) {
	return func(c *wiring.Config) {
		c.SharedRateLimits = true
		// The limit across replicas is what is checked, not the fallback to a replica's own
		// count when the database answers a decision late (250 ms), which a loaded machine
		// reaches.
		c.SharedRateLimitTimeout = 10 * time.Second
		c.DatabaseReadURL, c.ReadMaxLag = standbyURL, 200*time.Millisecond
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		c.Checkout = checkouts.Config{Confirmations: 1, PollInterval: 200 * time.Millisecond}
		// A killed replica's running jobs are rescued by the others soon after.
		c.JobsRescueStuckAfter = 3 * time.Second
	}
}

// TestCluster_JourneyAcrossReplicas: three replicas on one primary with a lagging standby take
// deposits, off-ramp payments, card authorizations, checkouts and Safe payments, each POST with
// an Idempotency-Key and sent again to another replica, while one replica is killed (cut off
// mid-request and mid-job) and a new one started in its place and the standby's replay is paused. Nothing is lost or doubled: each
// tenant's balance is its deposits to the unit, every payment and authorization exists once, a
// shared limit holds across the replicas, and the invariants of `corridor check` pass.
func TestCluster_JourneyAcrossReplicas(t *testing.T) {
	size := sizeOfJourney()
	r := startReplicated(t)
	cfg := clusterConfig(r.standbyURL)
	lb := &balancer{down: map[*harness.Env]bool{}}
	for range 3 {
		lb.add(harness.NewServerOn(t, r.primaryURL, cfg))
	}
	first := lb.replicas[0]
	recipient := newRecipient(t, lb.replicas[1])
	tenants := make([]*journeyTenant, size.tenants)
	for i := range tenants {
		tenants[i] = newJourneyTenant(t, lb.replicas[i%3], lb)
	}

	for round := range size.rounds {
		var wg sync.WaitGroup
		halfway := make(chan struct{}, len(tenants))
		for _, jt := range tenants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				jt.round(t, lb, recipient, round, size.deposits, halfway)
			}()
		}
		// Mid-load: the standby stops replaying and the first live replica is killed.
		for range tenants {
			<-halfway
		}
		r.onStandby(t, "SELECT pg_wal_replay_pause()")
		victim := first
		if round > 0 {
			victim = lb.pick()
		}
		victim.Kill()
		wg.Wait()
		// A new replica takes the killed one's place (and rescues its jobs); the standby
		// catches up.
		lb.add(harness.NewServerOn(t, r.primaryURL, cfg))
		r.onStandby(t, "SELECT pg_wal_replay_resume()")
	}

	for _, jt := range tenants {
		jt.verify(t, lb, size)
	}
	checkLimitAcrossReplicas(t, lb, tenants[0])
	checkInvariants(t, lb)
	t.Logf("%d requests sent again to another replica", lb.retried)
}

// journeyTenant is one partner's traffic and what it expects to find.
type journeyTenant struct {
	ten      *harness.Tenant
	cardID   string
	walletID string
	owner    harness.Owner
}

func newJourneyTenant(t *testing.T, e *harness.Env, lb *balancer) *journeyTenant {
	t.Helper()
	ten := e.NewTenant(t)
	jt := &journeyTenant{ten: ten, owner: harness.NewOwner(t)}
	holder := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)
	jt.cardID = ten.Root.Post("/v1/cards", map[string]any{"cardholderId": holder["cardholderId"]}).Expect(t, 201).JSON(t)["cardId"].(string)
	w := ten.Root.Post("/v1/wallets", map[string]any{"name": "cluster",
		"owners": []any{map[string]any{"address": jt.owner.Address.Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201).JSON(t)
	jt.walletID = w["id"].(string)
	ten.Root.WaitWalletDeployed(t, jt.walletID)
	ten.Root.Fund(t, jt.walletID, "20")
	return jt
}

// recipient is the tenant whose verified phone the off-ramp payments pay to its service balance.
type recipient struct {
	ten   *harness.Tenant
	phone string
}

func newRecipient(t *testing.T, e *harness.Env) recipient {
	t.Helper()
	rt := e.NewTenant(t)
	phone := fmt.Sprintf("+141523%05d", rand.IntN(100_000)) // exchange 23x: a valid NANP number
	rc := rt.Root
	rc.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	alias := rc.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, rc, "phone_alias_verification", nil))
	rc.Post("/v1/phone-aliases/"+alias["id"].(string)+"/verify", map[string]any{"code": code}).Expect(t, 200)
	rc.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201)
	return recipient{ten: rt, phone: phone}
}

// twice sends a POST with its Idempotency-Key, then sends it again (a client retry after a
// lost answer, likely landing on another replica): the second answer must be the first's
// replay.
func twice(t *testing.T, lb *balancer, key, path, idem string, body any) map[string]any {
	t.Helper()
	a := lb.send(t, key, "POST", path, body, "Idempotency-Key", idem)
	if a.Status != 201 && a.Status != 200 {
		t.Fatalf("POST %s: %d %s", path, a.Status, a.Body)
	}
	b := lb.send(t, key, "POST", path, body, "Idempotency-Key", idem)
	if b.Status != a.Status || string(b.Body) != string(a.Body) {
		t.Fatalf("POST %s replayed as %d %s, first %d %s", path, b.Status, b.Body, a.Status, a.Body)
	}
	return a.JSON(t)
}

// round is one tenant's load: deposits (signalling halfway), checked to the unit, then one of
// each payment kind, each awaited to its end so the next round's deposits count alone.
func (jt *journeyTenant) round(t *testing.T, lb *balancer, rc recipient, round, deposits int, halfway chan<- struct{}) {
	key := jt.ten.RootKey
	// A round that fails before its halfway mark still signals it, so the test ends with the
	// failure rather than waiting for the mark.
	signalled := false
	defer func() {
		if !signalled {
			halfway <- struct{}{}
		}
	}()
	before := serviceTotal(t, lb, key)
	for k := range deposits {
		twice(t, lb, key, "/v1/sandbox/balance-deposits", fmt.Sprintf("dep-%s-%d-%d", jt.ten.ID, round, k), map[string]any{"amountUsd": "10"})
		if k == deposits/2 {
			halfway <- struct{}{}
			signalled = true
		}
	}
	if got, want := serviceTotal(t, lb, key)-before, int64(deposits)*10_000_000; got != want {
		t.Errorf("tenant %s round %d: deposits added %d base units, want %d (lost or doubled)", jt.ten.ID, round, got, want)
	}
	// The finance export reads the standby, paused by now in most rounds: within the lag bound
	// or from the primary past it, it shows every deposit (at least one entry each) soon.
	harness.Poll(t, "the journal export to show the deposits", func() map[string]any {
		return lb.send(t, key, "GET", "/v1/ledger/entries", nil).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { total, _ := m["total"].(float64); return int(total) >= deposits*(round+1) })
	auth := twice(t, lb, key, "/v1/sandbox/cards/"+jt.cardID+"/authorizations", fmt.Sprintf("auth-%s-%d", jt.ten.ID, round),
		map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "Corner Shop"})
	if auth["status"] != "APPROVED" {
		t.Errorf("authorization %v", auth)
	}
	pay := twice(t, lb, key, "/v1/offramp/payments", fmt.Sprintf("ofp-%s-%d", jt.ten.ID, round), map[string]any{"phone": rc.phone, "amountUsd": "2"})
	id := pay["paymentId"].(string)
	rkey := rc.ten.RootKey
	routes := lb.send(t, rkey, "GET", "/v1/offramp/payments/"+id+"/routes", nil).Expect(t, 200).JSON(t)["routes"].([]any)
	twice(t, lb, rkey, "/v1/offramp/payments/"+id+"/select-route", "sel-"+id, map[string]any{"routeQuoteId": routes[0].(map[string]any)["routeId"]})
	twice(t, lb, rkey, "/v1/offramp/payments/"+id+"/confirm", "conf-"+id, nil)
	chk := twice(t, lb, key, "/v1/payments", fmt.Sprintf("chk-%s-%d", jt.ten.ID, round), map[string]any{"amount": 3, "currency": "USD", "cryptocurrency": "USDC",
		"description": "cluster order", "customer": map[string]any{"email": "payer@example.com", "name": "Pat Payer"}})
	mint(t, chk["deposit_address"].(string), 3_000_000)
	safePay := twice(t, lb, key, "/v1/payments", fmt.Sprintf("sp-%s-%d", jt.ten.ID, round), map[string]any{
		"sourceWalletId": jt.walletID,
		"destination":    map[string]any{"type": "address", "address": randomAddress().Hex(), "chainId": 84532},
		"amount":         map[string]any{"value": "1", "asset": "usdc"}})
	spID := safePay["id"].(string)
	twice(t, lb, key, "/v1/payments/"+spID+"/sign", "sig-"+spID, map[string]any{"signature": signature(t, safePay["safeTxHash"].(string), jt.owner)})

	await(t, lb, rkey, "/v1/offramp/payments/"+id, "status", "DELIVERED")
	await(t, lb, key, "/v1/payments/"+chk["id"].(string), "status", "completed")
	await(t, lb, key, "/v1/payments/"+spID, "status", "COMPLETED")
}

// verify counts each kind once per round: nothing the retries sent twice exists twice, and
// nothing is missing.
func (jt *journeyTenant) verify(t *testing.T, lb *balancer, size journeySize) {
	t.Helper()
	key := jt.ten.RootKey
	for _, list := range []struct{ path, field string }{
		{"/v1/cards/" + jt.cardID + "/authorizations", "total"},
		{"/v1/offramp/payments", "total"},
		{"/v1/checkouts", "total"},
		{"/v1/payments", "total"},
	} {
		// Some lists read the standby, which may still be replaying what the last round wrote:
		// wait for it to show every round, and fail on more (a doubled object) or on fewer after
		// the wait (a lost one).
		m := harness.Poll(t, list.path, func() map[string]any { return lb.send(t, key, "GET", list.path, nil).Expect(t, 200).JSON(t) },
			func(m map[string]any) bool { got, _ := m[list.field].(float64); return int(got) >= size.rounds })
		if got, ok := m[list.field].(float64); !ok || int(got) != size.rounds {
			t.Errorf("tenant %s: %s lists %v, want %d", jt.ten.ID, list.path, m[list.field], size.rounds)
		}
	}
}

// serviceTotal is the tenant's service balance, available plus held, in base units.
func serviceTotal(t *testing.T, lb *balancer, key string) int64 {
	t.Helper()
	var b struct {
		Balances []struct {
			AvailableBaseUnits string `json:"availableBaseUnits"`
			HeldBaseUnits      string `json:"heldBaseUnits"`
		} `json:"balances"`
	}
	lb.send(t, key, "GET", "/v1/balances", nil).Expect(t, 200).Decode(t, &b)
	if len(b.Balances) == 0 {
		return 0
	}
	a, _ := strconv.ParseInt(b.Balances[0].AvailableBaseUnits, 10, 64)
	h, _ := strconv.ParseInt(b.Balances[0].HeldBaseUnits, 10, 64)
	return a + h
}

// await polls path through the balancer until field is want, mining a block now and then so
// chain watchers see confirmations.
func await(t *testing.T, lb *balancer, key, path, field, want string) {
	t.Helper()
	harness.Poll(t, path+" "+want, func() map[string]any {
		if _, err := harness.Shared().Chain.MineSimulated(); err != nil {
			t.Fatal(err)
		}
		return lb.send(t, key, "GET", path, nil).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m[field] == want })
}

func mint(t *testing.T, address string, units int64) {
	t.Helper()
	if _, err := harness.Shared().Chain.MintUSDC(context.Background(), common.HexToAddress(address), big.NewInt(units)); err != nil {
		t.Fatal(err)
	}
}

func randomAddress() common.Address {
	key, _ := crypto.GenerateKey()
	return crypto.PubkeyToAddress(key.PublicKey)
}

func signature(t *testing.T, safeTxHash string, o harness.Owner) string {
	t.Helper()
	sig, err := safe.Sign(common.HexToHash(safeTxHash), o.Key)
	if err != nil {
		t.Fatal(err)
	}
	return sig.Hex()
}

// checkLimitAcrossReplicas: one client address (X-Forwarded-For, the balancer trusted) asks for
// ephemeral keys round robin across every replica: five pass in the minute, the rest are 429.
func checkLimitAcrossReplicas(t *testing.T, lb *balancer, jt *journeyTenant) {
	t.Helper()
	client := fmt.Sprintf("10.%d.%d.%d", rand.IntN(256), rand.IntN(256), 1+rand.IntN(254))
	passed, refused := 0, 0
	for range 9 {
		r := lb.send(t, jt.ten.RootKey, "POST", "/v1/cards/"+jt.cardID+"/ephemeral-keys", map[string]any{"platform": "vendor_a"}, "X-Forwarded-For", client)
		switch r.Status {
		case 201:
			passed++
		case 429:
			refused++
		default:
			t.Fatalf("ephemeral key: %d %s", r.Status, r.Body)
		}
	}
	if passed != 5 || refused != 4 {
		t.Fatalf("ephemeral keys across replicas: %d passed, %d refused; want 5 and 4", passed, refused)
	}
}

// checkInvariants runs what `corridor check` runs on the cluster's primary, with the chain.
func checkInvariants(t *testing.T, lb *balancer) {
	t.Helper()
	e := lb.pick()
	rep, err := postgres.CheckInvariants(context.Background(), e.Service.Store.DB(),
		map[core.Environment]ports.Chain{core.EnvTest: harness.Shared().Chain})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if !c.OK() {
			t.Errorf("corridor check: %s: %v", c.Name, c.Problems)
		}
	}
}

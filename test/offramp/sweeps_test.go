package offramp

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestOfframp_QuoteExpiryPass: a quote set whose lifetime passes is expired by the periodic
// pass, without the recipient acting, and the payment gets a fresh set (docs/api.md:
// AWAITING_RECIPIENT_CONFIRMATION, quote expiry → POLICY_CHECK). Reads never list an expired
// quote as ACTIVE.
func TestOfframp_QuoteExpiryPass(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	short := harness.NewServer(t, func(c *wiring.Config) { c.Payouts.QuoteLifetime = time.Second })
	m := short.Client(t).WithKey(p.sender.RootKey).Post("/v1/offramp/payments",
		map[string]any{"phone": p.phone, "amountUsd": "2"}).Expect(t, http.StatusCreated).JSON(t)
	id := m["paymentId"].(string)
	old := m["quotes"].([]any)[0].(map[string]any)["routeId"].(string)
	path := "/v1/offramp/payments/" + id + "/routes"
	deadline := time.Now().Add(15 * time.Second)
	for {
		now := time.Now()
		routes := p.recipient.Root.Get(path).Expect(t, 200).JSON(t)["routes"].([]any)
		fresh := ""
		for _, r := range routes {
			q := r.(map[string]any)
			exp, err := time.Parse(time.RFC3339Nano, q["quoteExpiresAt"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if q["status"] == "ACTIVE" && !now.Before(exp.Add(50*time.Millisecond)) {
				t.Fatalf("an expired quote reads ACTIVE: %v", q)
			}
			if q["routeId"] != old && q["status"] == "ACTIVE" {
				fresh = q["routeId"].(string)
			}
		}
		if fresh != "" {
			break
		}
		if now.After(deadline) {
			t.Fatalf("the expired set was never replaced: %v", routes)
		}
		sleep()
	}
	if g := get(t, p.sender.Root, id); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || g["selectedRouteQuoteId"] != nil {
		t.Fatalf("after the pass: %v", g)
	}
	// The reservation was kept through the requote.
	harness.ExpectServiceBalance(t, p.sender.Root, 18*usd, 2*usd)
}

// togglingPolicyStore fails every policy read while failing is set, as a policy store in an
// outage would, and reads normally once it is cleared.
type togglingPolicyStore struct {
	ports.Store
	failing *atomic.Bool
}

func (s togglingPolicyStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	if !s.failing.Load() {
		return s.Store.InTx(ctx, fn)
	}
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, failingPolicyTx{tx}) })
}

// TestOfframp_HoldRecheckPass: a payment held on POLICY_SUBSYSTEM_ERROR leaves its hold by
// itself once the outage passes (the periodic recheck re-runs the composer), with no recipient
// action, and reaches a fresh quote set.
func TestOfframp_HoldRecheckPass(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	var failing atomic.Bool
	failing.Store(true)
	srv := policyServer(t, policy.ModeEnforce, func(s ports.Store) ports.Store { return togglingPolicyStore{s, &failing} })
	held := srv.Client(t).WithKey(p.sender.RootKey).Post("/v1/offramp/payments",
		map[string]any{"phone": p.phone, "amountUsd": "2"}).Expect(t, http.StatusCreated).JSON(t)
	if held["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(held["holdReasons"]) != "[POLICY_SUBSYSTEM_ERROR]" {
		t.Fatalf("outage: %v", held)
	}
	failing.Store(false) // the outage passes
	id := held["paymentId"].(string)
	g := waitStatus(t, p.sender.Root, id, "AWAITING_RECIPIENT_CONFIRMATION")
	if len(g["holdReasons"].([]any)) != 0 {
		t.Fatalf("after the recheck: %v", g)
	}
	if routes := p.recipient.Root.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any); len(routes) != 1 {
		t.Fatalf("routes %v", routes)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 18*usd, 2*usd)
}

// TestOfframp_HoldRecheckLeavesOtherHolds: a hold whose cause needs someone to act (here no
// destination) is not re-evaluated by the pass and stays as it is.
func TestOfframp_HoldRecheckLeavesOtherHolds(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	m := p.create(t, "1", nil).Expect(t, 201).JSON(t)
	if m["status"] != "PAYOUT_SELECTION_REQUIRED" {
		t.Fatalf("no destination: %v", m)
	}
	time.Sleep(2500 * time.Millisecond) // two passes
	if g := get(t, p.sender.Root, m["paymentId"].(string)); g["status"] != "PAYOUT_SELECTION_REQUIRED" {
		t.Fatalf("after passes: %v", g)
	}
}

// lateClock is the wall clock moved ahead by a fixed offset.
type lateClock struct{ offset time.Duration }

func (c lateClock) Now() time.Time { return time.Now().Add(c.offset).UTC() }

// TestOfframp_RecheckRefusesAnExpiredQuote: the pre-submission re-check tests the confirmed
// quote's expiry. The submission job here runs on a server whose clock is ten minutes ahead, so
// the quote the recipient confirmed in time has expired when the job re-checks it: the funds
// unlock, a new reservation is taken and the payment gets a fresh quote set instead of being
// submitted. Like TestOfframpPolicy_RecheckAfterQuoting it stops the shared job workers so only
// that server works the job, and it does not run in parallel.
func TestOfframp_RecheckRefusesAnExpiredQuote(t *testing.T) {
	if jobServer == nil {
		jobServer = env()
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := jobServer.Service.StopWorkers(stopCtx); err != nil {
		t.Fatalf("stop the shared workers: %v", err)
	}
	defer func() { jobServer = harness.NewServer(untilExit{t}, nil) }()
	harness.NewServer(t, func(c *wiring.Config) { c.Clock = lateClock{10 * time.Minute} })

	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	m := p.create(t, "6", nil).Expect(t, 201).JSON(t)
	id := m["paymentId"].(string)
	old := m["quotes"].([]any)[0].(map[string]any)["routeId"].(string)
	selectAndConfirm(t, p, id)
	g := waitStatus(t, p.sender.Root, id, "AWAITING_RECIPIENT_CONFIRMATION")
	if g["selectedRouteQuoteId"] != nil {
		t.Fatalf("after the re-check: %v", g)
	}
	routes := p.recipient.Root.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	if len(routes) != 1 || routes[0].(map[string]any)["routeId"] == old {
		t.Fatalf("fresh set %v", routes)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 14*usd, 6*usd)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); len(l) != 0 {
		t.Fatalf("lock and unlock should net to nothing: %v", l)
	}
}

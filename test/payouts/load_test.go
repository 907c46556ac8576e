package payouts

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/payout"
	"github.com/corridorhq/corridor/test/harness"
)

// loadRoute is one recipient's destination type and the provider its quote comes from.
type loadRoute struct {
	provider string
	body     func(t *testing.T) map[string]any
	// deliverOf is what reaches the recipient side of an amount in base units.
	deliverOf func(amount int64) int64
}

var loadRoutes = []loadRoute{
	{"internal", func(*testing.T) map[string]any { return map[string]any{"type": "SERVICE_BALANCE"} }, func(a int64) int64 { return a }},
	{"onchain", func(t *testing.T) map[string]any {
		return map[string]any{"type": "ONCHAIN_WALLET", "asset": "USDC", "network": "eip155:84532", "address": randomAddress(t).Hex()}
	}, func(a int64) int64 { return a - 10_000 }},
	{"wallet_a", func(*testing.T) map[string]any {
		return map[string]any{"type": "APP_WALLET_A", "email": "load@example.com"}
	},
		func(a int64) int64 { return (a - a/100) / 10_000 * 10_000 }},
	{"wallet_b", func(*testing.T) map[string]any { return map[string]any{"type": "APP_WALLET_B", "handle": "loadtest"} },
		func(a int64) int64 { return (a - a/200 - 250_000) / 10_000 * 10_000 }},
}

// TestLoadJourney drives 200 phone payments in parallel: known numbers over every destination
// type and, on the mock rails, every scripted outcome (00 delivered, 03 failed and refunded,
// 05 pending for a hundred reports then delivered, 07 delivered then returned, 09 refused for
// a revoked destination and delivered over the recipient's other one), and unknown numbers whose claims the sandbox helper expires
// (funded: refunded). Each payment reaches the terminal state SPEC gives it; afterwards every
// sender's balance is exactly what the outcomes say, the ledger sums to zero and
// reconciliation shows zero drift.
func TestLoadJourney(t *testing.T) {
	const (
		senders        = 10
		knownPerSender = 18
		unknownPerSndr = 2
		fundPerSender  = 500
	)
	fundSettlement(t, 2_000_000_000)
	recipients := make([]pair, len(loadRoutes))
	for i, r := range loadRoutes {
		recipients[i] = newPair(t, "1")
		recipients[i].recipient.Root.Post("/v1/payout-destinations", r.body(t)).Expect(t, 201)
	}
	type payment struct {
		sender *harness.Tenant
		route  int // -1: an unknown number
		amount int64
		want   string
		id     string
	}
	var all []*payment
	sendersT := make([]*harness.Tenant, senders)
	for s := range senders {
		sendersT[s] = env().NewTenant(t)
		sendersT[s].Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": fmt.Sprint(fundPerSender)}).Expect(t, 201)
		for k := range knownPerSender {
			r := (s*knownPerSender + k) % len(loadRoutes)
			digits := []int64{0, 3, 7}[k%3]
			if k < 2 {
				// The slow script: k 0 and 1 land on every destination type across the
				// senders, so each rail sees it, a few times only (a hundred polls each).
				digits = 5
			}
			p := &payment{sender: sendersT[s], route: r, amount: int64(2+k%5)*1_000_000 + digits, want: "DELIVERED"}
			if (loadRoutes[r].provider == "wallet_a" || loadRoutes[r].provider == "wallet_b") && digits == 3 {
				p.want = "REFUNDED"
			}
			all = append(all, p)
		}
		for range unknownPerSndr {
			all = append(all, &payment{sender: sendersT[s], route: -1, amount: 1_000_000, want: "REFUNDED"})
		}
	}
	var wg sync.WaitGroup
	for i, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			usd := new(big.Rat).SetFrac64(p.amount, 1_000_000).FloatString(6)
			if p.route < 0 {
				m := p.sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": fmt.Sprintf("+1646%07d", 2_000_000+i*131), "amountUsd": usd}).Expect(t, 201).JSON(t)
				p.id = m["paymentId"].(string)
				claimID := m["claimId"].(string)
				waitLong(t, "claim "+claimID+" funded", func() bool {
					return p.sender.Root.Get("/v1/offramp/claims/"+claimID).Expect(t, 200).JSON(t)["funded"] == true
				})
				p.sender.Root.Post("/v1/sandbox/offramp/claims/"+claimID+"/expire", nil).Expect(t, 200)
			} else {
				rc := recipients[p.route]
				m := p.sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": rc.phone, "amountUsd": usd}).Expect(t, 201).JSON(t)
				p.id = m["paymentId"].(string)
				selectAndConfirm(t, rc, p.id, loadRoutes[p.route].provider)
				if prov := loadRoutes[p.route].provider; p.amount%100 == 5 && (prov == "wallet_a" || prov == "wallet_b") {
					// The slow script answers after a hundred pending reports: the provider's
					// signed webhooks deliver them (each one is a report), alongside the polls.
					driveByWebhooks(t, p.sender, prov, p.id, "DELIVERED")
				}
			}
			waitLong(t, "payment "+p.id+" "+p.want, func() bool {
				return p.sender.Root.Get("/v1/offramp/payments/"+p.id).Expect(t, 200).JSON(t)["status"] == p.want
			})
		}()
	}
	// The "09" script (the provider refuses the payout: the destination is revoked), once per
	// mock rail, each to its own recipient, whose other destination gets the fresh quote set.
	var revokedPairs []pair
	for _, prov := range []string{"wallet_a", "wallet_b"} {
		rp := newPair(t, "1")
		revokedPairs = append(revokedPairs, rp)
		for _, r := range loadRoutes {
			if r.provider == prov {
				rp.recipient.Root.Post("/v1/payout-destinations", r.body(t)).Expect(t, 201)
			}
		}
		rp.recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201)
		s := sendersT[len(revokedPairs)-1]
		p := &payment{sender: s, route: 0, amount: 3_000_009, want: "DELIVERED"}
		all = append(all, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.id = s.Root.Post("/v1/offramp/payments", map[string]any{"phone": rp.phone, "amountUsd": "3.000009"}).Expect(t, 201).JSON(t)["paymentId"].(string)
			selectAndConfirm(t, rp, p.id, prov)
			waitLong(t, "payment "+p.id+" requoted", func() bool {
				return s.Root.Get("/v1/offramp/payments/"+p.id).Expect(t, 200).JSON(t)["status"] == "AWAITING_RECIPIENT_CONFIRMATION"
			})
			selectAndConfirm(t, rp, p.id, "internal")
			waitLong(t, "payment "+p.id+" DELIVERED", func() bool {
				return s.Root.Get("/v1/offramp/payments/"+p.id).Expect(t, 200).JSON(t)["status"] == "DELIVERED"
			})
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// Each sender's balance is exactly what its payments' outcomes leave: a delivered payment
	// costs its amount, less a return's delivered amount; a refunded one costs nothing.
	spent := map[*harness.Tenant]int64{}
	for _, p := range all {
		l := harness.PaymentLedger(t, env().DatabaseURL, p.id)
		if p.want != "DELIVERED" {
			if l["tenant:"+p.sender.ID+":available"] != 0 {
				t.Fatalf("refunded %s moved money: %v", p.id, l)
			}
			continue
		}
		cost := p.amount
		if p.amount%100 == 7 && (loadRoutes[p.route].provider == "wallet_a" || loadRoutes[p.route].provider == "wallet_b") {
			// 07 on a mock rail: the delivered amount comes back after DELIVERED, once.
			cost -= loadRoutes[p.route].deliverOf(p.amount)
			waitLong(t, "the return of "+p.id, func() bool {
				return harness.PaymentLedger(t, env().DatabaseURL, p.id)["tenant:"+p.sender.ID+":available"] == -cost
			})
		} else if l["tenant:"+p.sender.ID+":available"] != -cost {
			t.Fatalf("delivered %s: %v", p.id, l)
		}
		spent[p.sender] += cost
	}
	for _, s := range sendersT {
		harness.ExpectServiceBalance(t, s.Root, fundPerSender*1_000_000-spent[s], 0)
	}
	tenants := append([]*harness.Tenant{}, sendersT...)
	for _, r := range append(recipients, revokedPairs...) {
		tenants = append(tenants, r.sender, r.recipient)
	}
	ledgerSumZero(t, tenants...)
	for _, s := range sendersT {
		if d := s.Root.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t)["totals"].(map[string]any)["drift"]; d != "0" {
			t.Fatalf("reconciliation drift %v", d)
		}
	}
}

// driveByWebhooks sends the provider's signed webhooks for payment id until it reaches want.
func driveByWebhooks(t *testing.T, sender *harness.Tenant, provider, id, want string) {
	t.Helper()
	ref := providerReference(t, id)
	for i := 0; sender.Root.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)["status"] != want; i++ {
		if i > 3*payout.SlowSteps {
			t.Errorf("never %s after %d webhooks: %s", want, i, id)
			return
		}
		body := []byte(fmt.Sprintf(`{"eventId":"evt_%s_%d","reference":%q}`, id, i, ref))
		env().ProviderWebhook(t, provider, body, harness.WebhookSecret, time.Now()).Expect(t, 200)
	}
}

// providerReference waits for payment id's provider reference (set on submission).
func providerReference(t *testing.T, id string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var ref *string
		if err := conn.QueryRow(ctx, "SELECT provider_reference FROM offramp_payments WHERE id = $1", id).Scan(&ref); err != nil {
			t.Fatal(err)
		}
		if ref != nil {
			return *ref
		}
		if time.Now().After(deadline) {
			t.Fatalf("payment %s was never submitted", id)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitLong polls until ok, with room for a queue of hundreds of payout jobs. It asks every
// 2 s, not every 250 ms: some 200 goroutines poll at once, and at 250 ms their 800 reads a
// second took the CPU and connections the payout jobs needed, so on a loaded machine the
// payments they waited for could not finish within the bound.
func waitLong(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Errorf("never: %s", what)
			return
		}
		time.Sleep(loadPollEvery)
	}
}

// loadPollEvery is how often one of the load test's waits asks again.
const loadPollEvery = 2 * time.Second

package offramp

import (
	"fmt"
	"sync"
	"testing"
)

// TestOfframp_LiquidityTopUpClearsTheHold: wallet_b's route liquidity is capped at 1000 USD
// in tests. A larger payment is held INSUFFICIENT_ROUTE_LIQUIDITY; an operator's top-up (docs/decisions/operations.md)
// raises the cap, once per reference, and the hold recheck pass then quotes the payment with
// nobody acting on it.
func TestOfframp_LiquidityTopUpClearsTheHold(t *testing.T) {
	p := newPair(t, "2000")
	destination(t, p.recipient.Root, map[string]any{"type": "APP_WALLET_B", "handle": "liquid"})
	m := p.create(t, "1500", nil).Expect(t, 201).JSON(t)
	if m["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(m["holdReasons"]) != "[INSUFFICIENT_ROUTE_LIQUIDITY]" {
		t.Fatalf("over the route's liquidity: %v", m)
	}
	path := "/v1/admin/payout-providers/wallet_b/liquidity"
	body := map[string]any{"environment": "TEST", "amountUsd": "600", "reference": "topup-" + p.sender.ID}

	// Bad input changes nothing; tenant credentials and unknown providers are refused.
	operator(t).Post(path, map[string]any{"environment": "TEST", "amountUsd": "-1", "reference": "x"}).ExpectError(t, 400, "VALIDATION_FAILED")
	operator(t).Post(path, map[string]any{"environment": "TEST", "amountUsd": " 1", "reference": "x"}).ExpectError(t, 400, "VALIDATION_FAILED")
	operator(t).Post(path, map[string]any{"environment": "PROD", "amountUsd": "1", "reference": "x"}).ExpectError(t, 400, "VALIDATION_FAILED")
	operator(t).Post("/v1/admin/payout-providers/nope/liquidity", body).ExpectError(t, 404, "PAYOUT_PROVIDER_NOT_FOUND")
	p.sender.Root.Post(path, body).ExpectError(t, 401, "UNAUTHENTICATED")

	// Parallel retries of one top-up add it once.
	var wg sync.WaitGroup
	added := make(chan bool, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			added <- operator(t).Post(path, body).Expect(t, 200).JSON(t)["added"].(bool)
		}()
	}
	wg.Wait()
	close(added)
	n := 0
	for a := range added {
		if a {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d of 4 retries added the top-up", n)
	}
	r := operator(t).Post(path, body).Expect(t, 200).JSON(t)
	if r["added"] != false || r["configuredUsd"] != "1000" || r["toppedUpUsd"] != "600" || r["liquidityUsd"] != "1600" {
		t.Fatalf("top-up %v", r)
	}
	g := waitStatus(t, p.sender.Root, m["paymentId"].(string), "AWAITING_RECIPIENT_CONFIRMATION")
	if len(g["holdReasons"].([]any)) != 0 {
		t.Fatalf("after the top-up: %v", g)
	}
}

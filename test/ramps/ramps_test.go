package ramps

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/wiring"

	"github.com/corridorhq/corridor/test/harness"
)

// TestRamps_OnRampCreditsTheSafeAndTheMirror: an on-ramp completes immediately: the create
// response is already CONFIRMED with the mint's transaction and a simulated fiatRef, the Safe
// holds the credit, and the ledger mirror books it with zero drift.
func TestRamps_OnRampCreditsTheSafeAndTheMirror(t *testing.T) {
	ten := env().NewTenant(t)
	walletID := newWallet(t, ten.Root, harness.NewOwner(t))

	created := ten.Root.Post("/v1/ramps", onRamp(walletID, "25.5")).Expect(t, 201).JSON(t)
	if created["status"] != "CONFIRMED" || created["direction"] != "ON" || created["provider"] != "simulated" ||
		created["amountUsd"] != "25.5" || created["paymentId"] != nil || created["paymentStatus"] != nil ||
		created["txHash"] == nil || created["failureReason"] != nil ||
		!strings.HasPrefix(fmt.Sprint(created["fiatRef"]), "simfiat_on_") || created["simulated"] != true ||
		created["walletId"] != walletID || !strings.HasPrefix(created["rampId"].(string), "rmp_") {
		t.Fatalf("created (an on-ramp completes immediately): %v", created)
	}
	if got := ten.Root.Get("/v1/ramps/"+created["rampId"].(string)).Expect(t, 200).JSON(t); got["status"] != "CONFIRMED" || got["txHash"] != created["txHash"] {
		t.Fatalf("read back: %v", got)
	}
	waitMirror(t, ten.Root, walletID, "25.5")

	// The faucet's lists and quotas leave the ramp's credit out.
	if drips := ten.Root.Get("/v1/faucet/drips").Expect(t, 200).JSON(t); drips["total"] != float64(0) {
		t.Errorf("faucet drips after an on-ramp: %v", drips)
	}
	list := ten.Root.Get("/v1/ramps?walletId="+walletID).Expect(t, 200).JSON(t)
	if list["total"] != float64(1) || list["ramps"].([]any)[0].(map[string]any)["rampId"] != created["rampId"] {
		t.Errorf("list: %v", list)
	}
}

// TestRamps_OffRampConfirmedWhenThePaymentExecutes: an off-ramp answers SUBMITTED with the
// payment owners sign; once signed and executed it is CONFIRMED with a fiatRef, the Safe and
// the mirror lose the amount, and reconciliation stays at zero drift.
func TestRamps_OffRampConfirmedWhenThePaymentExecutes(t *testing.T) {
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	walletID := newWallet(t, ten.Root, o)
	on := ten.Root.Post("/v1/ramps", onRamp(walletID, "60")).Expect(t, 201).JSON(t)
	if got := waitRamp(t, ten.Root, on["rampId"].(string)); got["status"] != "CONFIRMED" {
		t.Fatalf("on-ramp: %v", got)
	}

	off := ten.Root.Post("/v1/ramps", map[string]any{"walletId": walletID, "direction": "off", "amount": "20"}).Expect(t, 201).JSON(t)
	if off["status"] != "SUBMITTED" || off["direction"] != "OFF" || off["paymentId"] == nil ||
		off["paymentStatus"] != "AWAITING_SIGNATURE" || off["fiatRef"] != nil || off["txHash"] != nil {
		t.Fatalf("off-ramp: %v", off)
	}
	paymentID := off["paymentId"].(string)
	pay := ten.Root.Get("/v1/payments/"+paymentID).Expect(t, 200).JSON(t)
	// The payment pays the platform liquidation address (the dev default) from the wallet.
	if !strings.EqualFold(fmt.Sprint(pay["destinationAddress"]), wiring.DefaultLiquidationAddress) ||
		pay["destinationType"] != "address" || pay["status"] != "AWAITING_SIGNATURE" {
		t.Fatalf("payment: %v", pay)
	}

	sign(t, ten.Root, paymentID, o)
	done := waitRamp(t, ten.Root, off["rampId"].(string))
	if done["status"] != "CONFIRMED" || done["paymentStatus"] != "COMPLETED" || done["txHash"] == nil ||
		!strings.HasPrefix(fmt.Sprint(done["fiatRef"]), "simfiat_off_") || done["failureReason"] != nil {
		t.Fatalf("off-ramp after signing: %v", done)
	}
	waitMirror(t, ten.Root, walletID, "40")
}

// TestRamps_OffRampFailsWhenThePaymentIsCancelled: cancelling the linked payment ends the
// off-ramp FAILED, with a reason and no fiatRef; nothing left the Safe.
func TestRamps_OffRampFailsWhenThePaymentIsCancelled(t *testing.T) {
	ten := env().NewTenant(t)
	walletID := newWallet(t, ten.Root, harness.NewOwner(t))
	on := ten.Root.Post("/v1/ramps", onRamp(walletID, "10")).Expect(t, 201).JSON(t)
	waitRamp(t, ten.Root, on["rampId"].(string))

	off := ten.Root.Post("/v1/ramps", map[string]any{"walletId": walletID, "direction": "off", "amount": "5"}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/payments/"+off["paymentId"].(string)+"/cancel", nil).Expect(t, 200)
	got := ten.Root.Get("/v1/ramps/"+off["rampId"].(string)).Expect(t, 200).JSON(t)
	if got["status"] != "FAILED" || got["paymentStatus"] != "CANCELLED" || got["fiatRef"] != nil || got["failureReason"] == nil {
		t.Fatalf("cancelled off-ramp: %v", got)
	}
	waitMirror(t, ten.Root, walletID, "10")
}

// parallel sends the bodies at once and counts the answers by status and code.
func parallel(t *testing.T, post func(i int) (int, string), n int) map[string]int {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	counts := map[string]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, code := post(i)
			mu.Lock()
			counts[fmt.Sprintf("%d %s", status, code)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return counts
}

func codeOf(body []byte) string {
	s := string(body)
	i := strings.Index(s, `"code":"`)
	if i < 0 {
		return ""
	}
	s = s[i+len(`"code":"`):]
	return s[:strings.IndexByte(s, '"')]
}

// TestRamps_DailyCapUnderParallelRequests: twenty on-ramps of 100 USD at once against a cap of
// 1050 USD per 24 hours: exactly ten pass, ten answer RAMP_DAILY_CAP.
func TestRamps_DailyCapUnderParallelRequests(t *testing.T) {
	ten := env().NewTenant(t)
	walletID := newWallet(t, ten.Root, harness.NewOwner(t))
	counts := parallel(t, func(int) (int, string) {
		r := ten.Root.Post("/v1/ramps", onRamp(walletID, "100"))
		return r.Status, codeOf(r.Body)
	}, 20)
	if counts["201 "] != 10 || counts["422 RAMP_DAILY_CAP"] != 10 {
		t.Fatalf("answers: %v, want 10 created and 10 RAMP_DAILY_CAP", counts)
	}
	if list := ten.Root.Get("/v1/ramps").Expect(t, 200).JSON(t); list["total"] != float64(10) {
		t.Fatalf("ramps recorded: %v", list["total"])
	}
	e := ten.Root.Post("/v1/ramps", onRamp(walletID, "50.000001")).ExpectError(t, 422, "RAMP_DAILY_CAP")
	if d := e["details"].(map[string]any); d["remainingUsd"] != "50" || d["dailyCapUsd"] != "1050" {
		t.Errorf("details: %v", d)
	}
	// What remains still fits; off-ramps are not counted against the on-ramp cap.
	ten.Root.Post("/v1/ramps", onRamp(walletID, "50")).Expect(t, 201)
}

// TestRamps_PerTransactionCapUnderParallelRequests: twenty on-ramps at once, half at the cap
// and half just above it: exactly the ten at the cap pass.
func TestRamps_PerTransactionCapUnderParallelRequests(t *testing.T) {
	ten := env().NewTenant(t)
	walletID := newWallet(t, ten.Root, harness.NewOwner(t))
	counts := parallel(t, func(i int) (int, string) {
		amount := "10"
		if i%2 == 1 {
			amount = "100.000001"
		}
		r := ten.Root.Post("/v1/ramps", onRamp(walletID, amount))
		return r.Status, codeOf(r.Body)
	}, 20)
	if counts["201 "] != 10 || counts["422 RAMP_AMOUNT_TOO_LARGE"] != 10 {
		t.Fatalf("answers: %v, want 10 created and 10 RAMP_AMOUNT_TOO_LARGE", counts)
	}
	e := ten.Root.Post("/v1/ramps", onRamp(walletID, "101")).ExpectError(t, 422, "RAMP_AMOUNT_TOO_LARGE")
	if d := e["details"].(map[string]any); d["maxAmountUsd"] != "100" {
		t.Errorf("details: %v", d)
	}
	ten.Root.Post("/v1/ramps", onRamp(walletID, "100")).Expect(t, 201)
}

// TestRamps_IdempotentRetry: a retry with the same Idempotency-Key replays the one ramp; the
// same key with another body is refused.
func TestRamps_IdempotentRetry(t *testing.T) {
	ten := env().NewTenant(t)
	walletID := newWallet(t, ten.Root, harness.NewOwner(t))
	c := ten.Root.With("Idempotency-Key", "ramp-retry-1")
	first := c.Post("/v1/ramps", onRamp(walletID, "7")).Expect(t, 201)
	again := c.Post("/v1/ramps", onRamp(walletID, "7")).Expect(t, 201)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.JSON(t)["rampId"] != first.JSON(t)["rampId"] {
		t.Fatalf("replay: %s vs %s", again.Body, first.Body)
	}
	c.Post("/v1/ramps", onRamp(walletID, "8")).ExpectError(t, 422, "IDEMPOTENCY_KEY_REUSED")
	if list := ten.Root.Get("/v1/ramps").Expect(t, 200).JSON(t); list["total"] != float64(1) {
		t.Fatalf("ramps after a retry: %v", list)
	}
}

// TestRamps_Validation: bad bodies are VALIDATION_FAILED naming the field and record nothing;
// a recognized provider other than simulated is RAMP_PROVIDER_NOT_AVAILABLE.
func TestRamps_Validation(t *testing.T) {
	ten := env().NewTenant(t)
	walletID := newWallet(t, ten.Root, harness.NewOwner(t))
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no wallet", map[string]any{"direction": "on", "amount": "1"}, "walletId"},
		{"no direction", map[string]any{"walletId": walletID, "amount": "1"}, "direction"},
		{"upper-case direction", map[string]any{"walletId": walletID, "direction": "ON", "amount": "1"}, "direction"},
		{"sideways", map[string]any{"walletId": walletID, "direction": "sideways", "amount": "1"}, "direction"},
		{"no amount", map[string]any{"walletId": walletID, "direction": "on"}, "amount"},
		{"zero", map[string]any{"walletId": walletID, "direction": "on", "amount": "0"}, "amount"},
		{"seven digits", map[string]any{"walletId": walletID, "direction": "on", "amount": "1.0000001"}, "amount"},
		{"negative", map[string]any{"walletId": walletID, "direction": "on", "amount": "-1"}, "amount"},
		{"unknown provider", map[string]any{"walletId": walletID, "direction": "on", "amount": "1", "provider": "acme"}, "provider"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ten.Root.Post("/v1/ramps", tc.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if !strings.Contains(fmt.Sprint(e["details"]), tc.field) {
				t.Errorf("details %v do not name %s", e["details"], tc.field)
			}
		})
	}
	ten.Root.Post("/v1/ramps", map[string]any{"walletId": walletID, "direction": "on", "amount": "1", "provider": "moonpay"}).
		ExpectError(t, 422, "RAMP_PROVIDER_NOT_AVAILABLE")
	ten.Root.Post("/v1/ramps", map[string]any{"walletId": walletID, "direction": "on", "amount": "1", "extra": true}).
		ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Post("/v1/ramps", onRamp("wal_nope", "1")).ExpectError(t, 404, "WALLET_NOT_FOUND")
	ten.Root.Get("/v1/ramps/rmp_nope").ExpectError(t, 404, "RAMP_NOT_FOUND")
	if list := ten.Root.Get("/v1/ramps").Expect(t, 200).JSON(t); list["total"] != float64(0) {
		t.Fatalf("refused requests recorded ramps: %v", list)
	}
	// simulated, spelled out, is the default provider.
	ten.Root.Post("/v1/ramps", map[string]any{"walletId": walletID, "direction": "on", "amount": "1", "provider": "simulated"}).Expect(t, 201)
}

// TestRamps_OtherTenantAndLive: another tenant's ramp and wallet answer 404; a LIVE key is
// refused SANDBOX_ONLY; a key without ramps:write cannot create.
func TestRamps_OtherTenantAndLive(t *testing.T) {
	owner, other := env().NewTenant(t), env().NewTenant(t)
	walletID := newWallet(t, owner.Root, harness.NewOwner(t))
	id := owner.Root.Post("/v1/ramps", onRamp(walletID, "1")).Expect(t, 201).JSON(t)["rampId"].(string)

	other.Root.Get("/v1/ramps/"+id).ExpectError(t, 404, "RAMP_NOT_FOUND")
	other.Root.Get("/v1/ramps?walletId="+walletID).ExpectError(t, 404, "WALLET_NOT_FOUND")
	other.Root.Post("/v1/ramps", onRamp(walletID, "1")).ExpectError(t, 404, "WALLET_NOT_FOUND")
	if list := other.Root.Get("/v1/ramps").Expect(t, 200).JSON(t); list["total"] != float64(0) {
		t.Fatalf("other tenant sees: %v", list)
	}

	live := env().Client(t).WithKey(env().NewKey(t, owner.Session, map[string]any{"name": "live", "scopes": []string{"*"}, "environment": "live"}))
	live.Post("/v1/ramps", onRamp(walletID, "1")).ExpectError(t, 403, "SANDBOX_ONLY")
	live.Get("/v1/ramps").ExpectError(t, 403, "SANDBOX_ONLY")
	live.Get("/v1/ramps/"+id).ExpectError(t, 403, "SANDBOX_ONLY")

	reader := env().Client(t).WithKey(env().NewKey(t, owner.Session, map[string]any{"name": "reader", "scopes": []string{"ramps:read"}}))
	reader.Post("/v1/ramps", onRamp(walletID, "1")).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	reader.Get("/v1/ramps/"+id).Expect(t, 200)
}

package ramps

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestRamps_OffRampTwoFactorHandshake: an off-ramp the tenant's settings protect answers
// TWOFA_REQUIRED with a challenge that survives the refused ramp (its verify answers 200, not
// 404), and the same request with twofaChallengeId records the ramp and its payment, once.
func TestRamps_OffRampTwoFactorHandshake(t *testing.T) {
	ten := env().NewTenant(t)
	walletID := newWallet(t, ten.Root, harness.NewOwner(t))
	on := ten.Root.Post("/v1/ramps", onRamp(walletID, "60")).Expect(t, 201).JSON(t)
	if got := waitRamp(t, ten.Root, on["rampId"].(string)); got["status"] != "CONFIRMED" {
		t.Fatalf("on-ramp: %v", got)
	}
	ten.Root.Do("PUT", "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": "10"}).Expect(t, 200)
	f := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "ops"}).Expect(t, 201).JSON(t)
	secret := f["secret"].(string)
	ten.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, 200)

	body := map[string]any{"walletId": walletID, "direction": "off", "amount": "25"}
	refused := ten.Root.Post("/v1/ramps", body).ExpectError(t, 403, "TWOFA_REQUIRED")
	chID := refused["details"].(map[string]any)["challengeId"].(string)
	if n := ten.Root.Get("/v1/ramps?walletId=" + walletID).JSON(t)["total"]; n != float64(1) {
		t.Fatalf("a refused off-ramp was recorded: %v ramps", n)
	}
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, 200)

	body["twofaChallengeId"] = chID
	off := ten.Root.Post("/v1/ramps", body).Expect(t, 201).JSON(t)
	if off["paymentId"] == nil || off["paymentStatus"] != "AWAITING_SIGNATURE" {
		t.Fatalf("off-ramp after approval: %v", off)
	}
	// The challenge is used: the same approval does not make a second ramp.
	ten.Root.Post("/v1/ramps", body).ExpectError(t, 403, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
	if n := ten.Root.Get("/v1/ramps?walletId=" + walletID).JSON(t)["total"]; n != float64(2) {
		t.Fatalf("ramps after the handshake: %v", n)
	}
}

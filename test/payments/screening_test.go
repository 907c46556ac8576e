package payments

import (
	"fmt"
	"testing"
)

// TestPropose_ScreeningRefusesFirst: propose screens its destination with the screening port
// the off-ramp composer uses (the sandbox's triggers are the amount's last two digits in base
// units: 92 sanctions, 91 monitoring review). A refusal answers 403
// DESTINATION_SCREENING_REJECTED with the reasons and records nothing; a clear amount passes.
func TestPropose_ScreeningRefusesFirst(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten, newOwners(t, 1), 1, "")
	to := randomAddress(t)
	for amount, reason := range map[string]string{"1.000092": "SANCTIONS_REVIEW_REQUIRED", "1.000091": "TRANSACTION_MONITORING_REVIEW"} {
		e := ten.Root.Post("/v1/payments", toAddress(w, to, amount)).ExpectError(t, 403, "DESTINATION_SCREENING_REJECTED")
		if got := fmt.Sprint(e["details"].(map[string]any)["reasons"]); got != "["+reason+"]" {
			t.Fatalf("%s: reasons %s, want [%s]", amount, got, reason)
		}
	}
	if l := ten.Root.Get("/v1/payments").Expect(t, 200).JSON(t); l["total"] != float64(0) {
		t.Fatalf("a refused proposal was recorded: %v", l)
	}
	propose(t, ten.Root, toAddress(w, to, "1.000093"))
}

package secondary

import (
	"net/http"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestSecondary_SendWithTwoFactor: a send above the tenant's approval threshold answers
// twofa_required with the challenge; once the challenge is satisfied, the same send naming it
// is proposed, and a send that differs from the approved one is refused.
func TestSecondary_SendWithTwoFactor(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := newOwner(t)
	id := secondaryWallet(t, ten.Root, o, "cus_twofa")["wallet_id"].(string)
	deployed(t, ten.Root, id)
	fund(t, ten.Root, id, "50")

	ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": "1"}).Expect(t, http.StatusOK)
	f := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "phone"}).Expect(t, http.StatusCreated).JSON(t)
	secret := f["secret"].(string)
	ten.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, http.StatusOK)

	body := map[string]any{"currency": "USDC", "amount": "5", "destination": newOwner(t).address.Hex(), "note": "approved"}
	e := secondaryError(t, ten.Root.With("Idempotency-Key", "twofa-1").Post("/v1/wallets/"+id+"/send", body), 403, "twofa_required")
	chID, _ := e["details"].(map[string]any)["challengeId"].(string)
	if chID == "" {
		t.Fatalf("details: %v", e["details"])
	}
	// The message names this route's own field.
	if msg, _ := e["message"].(string); !strings.Contains(msg, "twofa_challenge_id") || strings.Contains(msg, "twofaChallengeId") {
		t.Fatalf("message %q must name twofa_challenge_id", msg)
	}
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, http.StatusOK)

	other := map[string]any{"currency": "USDC", "amount": "6", "destination": body["destination"], "note": "approved", "twofa_challenge_id": chID}
	secondaryError(t, ten.Root.With("Idempotency-Key", "twofa-2").Post("/v1/wallets/"+id+"/send", other), 403, "twofa_binding_mismatch")

	body["twofa_challenge_id"] = chID
	sent := ten.Root.With("Idempotency-Key", "twofa-3").Post("/v1/wallets/"+id+"/send", body).Expect(t, http.StatusCreated).JSON(t)
	if sent["status"] != "awaiting_signature" {
		t.Fatalf("send: %v", sent)
	}
}

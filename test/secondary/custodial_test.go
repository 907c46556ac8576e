package secondary

import (
	"math/big"
	"strings"
	"testing"
)

// TestSecondary_CustodialWalletJourney: SPEC's own bodies work unchanged. POST /v1/wallets
// {customer_id, currencies} makes a 1-of-1 Safe owned by a key the service holds, answered in
// SPEC's shape; send {currency, amount, destination, note} is proposed, signed by the custody
// signer and executed without the partner signing anything, and answers transaction_id,
// status, transaction_hash (set once executed) and estimated_confirmation. No key material
// appears in any answer.
func TestSecondary_CustodialWalletJourney(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	created := ten.Root.Post("/v1/wallets", map[string]any{"customer_id": "cus_custodial", "currencies": []string{"USDC", "ETH"}}).Expect(t, 201)
	w := created.JSON(t)
	id, _ := w["wallet_id"].(string)
	addresses, _ := w["addresses"].(map[string]any)
	if id == "" || len(addresses) != 2 || addresses["USDC"] != addresses["ETH"] || w["created_at"] == nil || len(w) != 3 {
		t.Fatalf("custodial wallet: %v", w)
	}
	deployed(t, ten.Root, id)
	canonical := ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t)
	owners := canonical["owners"].([]any)
	if len(owners) != 1 || canonical["threshold"] != float64(1) {
		t.Fatalf("custodial Safe: %v", canonical)
	}
	fund(t, ten.Root, id, "20")

	to := newOwner(t).address
	sent := ten.Root.Post("/v1/wallets/"+id+"/send", map[string]any{"currency": "USDC", "amount": "7.5", "destination": to.Hex(), "note": "payout"}).Expect(t, 201).JSON(t)
	txID, _ := sent["transaction_id"].(string)
	if txID == "" || sent["status"] == nil || sent["estimated_confirmation"] == nil {
		t.Fatalf("send: %v", sent)
	}
	for _, k := range []string{"transaction_id", "status", "transaction_hash", "estimated_confirmation"} {
		if _, ok := sent[k]; !ok {
			t.Fatalf("send answer lacks %s: %v", k, sent)
		}
	}
	done := poll(t, "the custodial send to complete", func() map[string]any { return ten.Root.Get("/v1/payments/"+txID).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "COMPLETED" || m["status"] == "FAILED" })
	if done["status"] != "COMPLETED" {
		t.Fatalf("custodial send: %v", done)
	}
	sigs, _ := done["signatures"].([]any)
	if len(sigs) != 1 {
		t.Fatalf("signatures: %v", done["signatures"])
	}
	if signer := sigs[0].(map[string]any)["signer"]; !strings.EqualFold(signer.(string), owners[0].(map[string]any)["address"].(string)) {
		t.Fatalf("signed by %v, the Safe's owner is %v", signer, owners[0])
	}
	bal, err := env().Chain.USDCBalance(t.Context(), to)
	if err != nil {
		t.Fatal(err)
	}
	if bal.Cmp(big.NewInt(7_500_000)) != 0 {
		t.Fatalf("the destination holds %s base units, want 7500000", bal)
	}
	for _, body := range [][]byte{created.Body, ten.Root.Get("/v1/events").Body, ten.Root.Get("/v1/wallets/" + id).Body} {
		if strings.Contains(strings.ToLower(string(body)), "sealed") || strings.Contains(string(body), "cky_") {
			t.Fatalf("an answer names custody key material: %s", body)
		}
	}
}

// TestSecondary_CustodialWalletLiveRefused: LIVE keeps custody keys only in an HSM; with none
// configured a custodial wallet answers 503 in the secondary shape and nothing is created.
func TestSecondary_CustodialWalletLiveRefused(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
	secondaryError(t, live.Post("/v1/wallets", map[string]any{"customer_id": "cus_live", "currencies": []string{"USDC"}}), 503, "custody_unavailable")
	if n := live.Get("/v1/wallets").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("LIVE wallets: %v", n)
	}
}

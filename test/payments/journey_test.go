package payments

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestPayments_Journey is the Safe payments end-to-end check over HTTP on the simulated chain:
// a 2-of-3 wallet shows its predicted address, is funded before deployment, deploys at that
// address, pays out with two owner signatures, and the ledger mirror agrees with the chain to
// the unit.
func TestPayments_Journey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten := env().NewTenant(t)
	owners := newOwners(t, 3)
	list := make([]map[string]any, len(owners))
	for i, o := range owners {
		list[i] = map[string]any{"address": o.address.Hex(), "role": "ADMIN_OWNER"}
	}
	created := ten.Root.Post("/v1/wallets", map[string]any{"name": "journey", "owners": list, "threshold": 2}).Expect(t, 201).JSON(t)
	id, predicted := created["id"].(string), common.HexToAddress(created["address"].(string))
	if created["predictedAddress"] != true || created["status"] != "PENDING_DEPLOYMENT" {
		t.Fatalf("create: %v", created)
	}

	// Funds sent to the predicted address before the Safe exists are there after deployment.
	w := testWallet{ID: id, Address: predicted, Owners: owners}
	fundWallet(t, ten, w, "40")
	deployed := poll(t, func() map[string]any { return ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if deployed["status"] != "DEPLOYED" || deployed["predictedAddress"] != false || common.HexToAddress(deployed["address"].(string)) != predicted {
		t.Fatalf("deployment: %v", deployed)
	}
	if ok, err := env().Chain.IsDeployed(ctx, predicted); err != nil || !ok {
		t.Fatalf("no Safe at the predicted address: %v", err)
	}
	if got := balance(t, predicted); got.Cmp(usdc(t, "40")) != 0 {
		t.Fatalf("Safe holds %s after deployment, want 40 USDC", got)
	}

	to := randomAddress(t)
	pay := propose(t, ten.Root, toAddress(w, to, "15.25"))
	sign(t, ten.Root, pay, owners[1]).Expect(t, 200)
	sign(t, ten.Root, pay, owners[0]).Expect(t, 200)
	waitStatus(t, ten.Root, pay["id"].(string), "COMPLETED")
	if got := balance(t, to); got.Cmp(usdc(t, "15.25")) != 0 {
		t.Fatalf("recipient holds %s, want 15.25 USDC", got)
	}

	// The ledger mirror catches up with the chain: 40 in, 15.25 out, zero drift.
	rec := poll(t, func() map[string]any { return ten.Root.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			for _, row := range m["wallets"].([]any) {
				r := row.(map[string]any)
				if r["walletId"] == id {
					return r["ledgerBalance"] == "24.75"
				}
			}
			return false
		})
	for _, row := range rec["wallets"].([]any) {
		r := row.(map[string]any)
		if r["walletId"] != id {
			continue
		}
		if r["onchainBalance"] != "24.75" || r["drift"] != "0" {
			t.Fatalf("reconciliation row %v: want ledger = on-chain = 24.75 and drift 0", r)
		}
	}
}

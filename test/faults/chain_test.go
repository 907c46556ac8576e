package faults

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// waitSwallowed waits until the node took a transaction without answering.
func waitSwallowed(t *testing.T, before int) common.Hash {
	t.Helper()
	for range 600 {
		if got := swallower.swallowed(); len(got) > before {
			return got[len(got)-1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the service sent no transaction")
	return common.Hash{}
}

// silentThenBack asserts what the service answers while the node is silent (ready, degraded),
// then lets the node answer again and mine what it took.
func silentThenBack(t *testing.T, ten *harness.Tenant, walletID string) {
	t.Helper()
	env := harness.Shared()
	// The replica stays ready (the node is a dependency, not a part of it) and says degraded.
	got := env.Client(t).Get("/readyz").Expect(t, 200).JSON(t)
	if got["status"] != "degraded" || got["checks"].(map[string]any)["chain:TEST"] != "the chain's node does not answer" {
		t.Fatalf("readyz while the node is silent: %v", got)
	}
	// What needs no node keeps answering.
	ten.Root.Get("/v1/wallets/"+walletID).Expect(t, 200)
	ten.Root.Get("/v1/balances").Expect(t, 200)

	env.StallChain(false)
	if _, err := env.Chain.MineSimulated(); err != nil {
		t.Fatalf("mine: %v", err)
	}
	env.Client(t).Get("/readyz").Expect(t, 200)
}

// TestChainFaults_NodeTakesTheDeploymentAndGoesSilent (d): the node takes a wallet's deployment
// and stops answering. The service answers 503 for the chain and keeps answering the rest; once
// the node is back the wallet is DEPLOYED by that one transaction, none sent again.
func TestChainFaults_NodeTakesTheDeploymentAndGoesSilent(t *testing.T) {
	env := harness.Shared()
	ten := env.NewTenant(t)
	owner := harness.NewOwner(t)
	mark, swallowed := swallower.mark(), len(swallower.swallowed())
	swallower.arm()
	created := ten.Root.With("Idempotency-Key", "deploy-"+ten.ID).Post("/v1/wallets", map[string]any{"name": "silent node",
		"owners": []map[string]any{{"address": owner.Address.Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201).JSON(t)
	id := created["id"].(string)
	taken := waitSwallowed(t, swallowed)
	silentThenBack(t, ten, id)

	deployed := ten.Root.WaitWalletDeployed(t, id)
	address := common.HexToAddress(deployed["address"].(string))
	if ok, err := env.Chain.IsDeployed(context.Background(), address); err != nil || !ok {
		t.Fatalf("the Safe %s has no code: %v", address, err)
	}
	if r, err := env.Chain.Receipt(context.Background(), taken); err != nil || r.Status != ports.TxSucceeded {
		t.Fatalf("the transaction the node took (%s) did not deploy: %+v %v", taken, r, err)
	}
	if n := swallower.sentSince(mark, env.Chain.Addresses().SafeProxyFactory); n != 1 {
		t.Fatalf("%d deployments sent, want the one the node took", n)
	}
	// A retry of the create replays it.
	if r := ten.Root.With("Idempotency-Key", "deploy-"+ten.ID).Post("/v1/wallets", map[string]any{"name": "silent node",
		"owners": []map[string]any{{"address": owner.Address.Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201); r.JSON(t)["id"] != id {
		t.Fatalf("the retried create is not a replay: %s", r.Body)
	}
	expectInvariants(t)
}

// TestChainFaults_NodeTakesTheSafePaymentAndGoesSilent (d): the node takes a Safe payment's
// execution and stops answering. Once it is back the payment completes by that one
// transaction: the recipient is paid once, the Safe's nonce moved once, nothing sent again.
func TestChainFaults_NodeTakesTheSafePaymentAndGoesSilent(t *testing.T) {
	env := harness.Shared()
	ten := env.NewTenant(t)
	owner := harness.NewOwner(t)
	created := ten.Root.Post("/v1/wallets", map[string]any{"name": "silent node payment",
		"owners": []map[string]any{{"address": owner.Address.Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201).JSON(t)
	walletID := created["id"].(string)
	safeAddress := common.HexToAddress(ten.Root.WaitWalletDeployed(t, walletID)["address"].(string))
	ten.Root.Fund(t, walletID, "5")
	recipient := harness.NewOwner(t).Address

	payment := ten.Root.With("Idempotency-Key", "pay-"+ten.ID).Post("/v1/payments", map[string]any{"sourceWalletId": walletID,
		"destination": map[string]any{"type": "address", "address": recipient.Hex(), "chainId": wallet.SandboxChainID},
		"amount":      map[string]any{"value": "2", "asset": "usdc"}}).Expect(t, 201).JSON(t)
	id := payment["id"].(string)
	mark, swallowed := swallower.mark(), len(swallower.swallowed())
	swallower.arm()
	ten.Root.SignPayment(t, id, owner).Expect(t, 200)
	taken := waitSwallowed(t, swallowed)
	silentThenBack(t, ten, walletID)

	done := harness.Poll(t, "payment "+id+" ends", func() map[string]any { return ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			return m["status"] == "COMPLETED" || m["status"] == "FAILED" || m["status"] == "CANCELLED"
		})
	if done["status"] != "COMPLETED" {
		t.Fatalf("payment %s: %v", id, done)
	}
	ctx := context.Background()
	if r, err := env.Chain.Receipt(ctx, taken); err != nil || r.Status != ports.TxSucceeded {
		t.Fatalf("the execution the node took (%s) did not succeed: %+v %v", taken, r, err)
	}
	if got, err := env.Chain.USDCBalance(ctx, recipient); err != nil || got.Cmp(big.NewInt(2_000_000)) != 0 {
		t.Fatalf("recipient holds %v base units (%v), want 2000000: paid once", got, err)
	}
	if nonce, err := env.Chain.SafeNonce(ctx, safeAddress); err != nil || nonce != 1 {
		t.Fatalf("Safe nonce %d (%v), want 1", nonce, err)
	}
	if n := swallower.sentSince(mark, safeAddress); n != 1 {
		t.Fatalf("%d executions sent to the Safe, want the one the node took", n)
	}
	if r := ten.Root.With("Idempotency-Key", "pay-"+ten.ID).Post("/v1/payments", map[string]any{"sourceWalletId": walletID,
		"destination": map[string]any{"type": "address", "address": recipient.Hex(), "chainId": wallet.SandboxChainID},
		"amount":      map[string]any{"value": "2", "asset": "usdc"}}).Expect(t, 201); r.JSON(t)["id"] != id {
		t.Fatalf("the retried proposal is not a replay: %s", r.Body)
	}
	expectInvariants(t)
}

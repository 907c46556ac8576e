package checkout

import (
	"context"
	"math/big"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/test/harness"
)

// TestCheckout_RefundPaidOnceAcrossACrash: a refund whose USDC went out but whose transaction
// hash was never stored (the process died between the two, or the write failed) is not paid
// again when its job runs again: the factory refuses to pay its key twice, and the job adopts
// the payment already on chain — the destination holds the amount once, and the refund is
// processed with the hash of the transaction that paid it.
func TestCheckout_RefundPaidOnceAcrossACrash(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 5)
	id, deposit := c["id"].(string), c["deposit_address"].(string)
	pay(t, deposit, 5_000_000)
	mine(t, confirmations)
	waitStatus(t, ten.Root, id, "completed")
	harness.Poll(t, "swept", func() map[string]any { return map[string]any{"b": usdcBalance(t, deposit)} },
		func(m map[string]any) bool { return m["b"] == int64(0) })

	to := newAddress(t)
	refund := ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 5, "address": to}).Expect(t, 201).JSON(t)
	refundID := refund["id"].(string)
	paid := waitRefund(t, ten, id, refundID, "processed")
	hash, _ := paid["transaction_hash"].(string)
	if hash == "" || usdcBalance(t, to) != 5_000_000 {
		t.Fatalf("refund %v, destination holds %d, want 5000000 and a hash", paid, usdcBalance(t, to))
	}

	// The crash: the transfer is on chain, the row is back where it was before the hash was
	// stored, and the job runs again.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE checkout_refunds SET status = 'PENDING', tx_hash = '' WHERE id = $1`, refundID); err != nil {
		t.Fatal(err)
	}
	if got := waitRefund(t, ten, id, refundID, "pending"); got["transaction_hash"] != nil {
		t.Fatalf("refund after the simulated crash: %v", got)
	}
	// The service's account could pay it again: only the guard stops a second payout.
	if _, err := env().Chain.MintUSDC(ctx, env().Chain.RelayerAddress(), big.NewInt(5_000_000)); err != nil {
		t.Fatal(err)
	}
	if err := env().Service.Checkout.SendRefund(ctx, id, refundID); err != nil {
		t.Fatal(err)
	}
	if b := usdcBalance(t, to); b != 5_000_000 {
		t.Fatalf("destination holds %d after the retried job, want 5000000 (paid once)", b)
	}
	if got := waitRefund(t, ten, id, refundID, "processed"); got["transaction_hash"] != hash {
		t.Fatalf("adopted refund %v, want transaction_hash %s", got, hash)
	}
	// Running it once more changes nothing.
	if err := env().Service.Checkout.SendRefund(ctx, id, refundID); err != nil {
		t.Fatal(err)
	}
	if b := usdcBalance(t, to); b != 5_000_000 {
		t.Fatalf("destination holds %d, want 5000000", b)
	}
	harness.ExpectLedgerBalanced(t, env().DatabaseURL, ten)
}

// waitRefund polls the checkout's refunds until refundID has status and returns it.
func waitRefund(t *testing.T, ten *harness.Tenant, checkoutID, refundID, status string) map[string]any {
	t.Helper()
	var out map[string]any
	harness.Poll(t, "refund "+refundID+" "+status, func() map[string]any {
		return ten.Root.Get("/v1/payments/"+checkoutID+"/refunds").Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool {
		for _, r := range m["data"].([]any) {
			if r := r.(map[string]any); r["id"] == refundID && r["status"] == status {
				out = r
				return true
			}
		}
		return false
	})
	return out
}

package payments

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// TestPayments_ReapStuckExecution: a payment left EXECUTING after its execution job ended (its
// attempts spent while the node was down, say) is handed back to the job by the reaper's pass,
// which reconciles it with the chain and completes it; a recent EXECUTING payment is left alone.
func TestPayments_ReapStuckExecution(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten := env().NewTenant(t)
	owners := newOwners(t, 1)
	w := newWallet(t, ten, owners, 1, "5")
	pay := propose(t, ten.Root, toAddress(w, randomAddress(t), "1"))
	sign(t, ten.Root, pay, owners[0]).Expect(t, 200)
	id := pay["id"].(string)
	waitStatus(t, ten.Root, id, "COMPLETED")

	// Back to what a job that gave up leaves: EXECUTING with its transaction recorded and no
	// job left to follow it.
	setExecuting := func(updatedAt time.Time) {
		t.Helper()
		err := env().Service.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			p, err := tx.Payments().LockPayment(ctx, "", id)
			if err != nil {
				return err
			}
			p.Status, p.UpdatedAt = safepay.StatusExecuting, updatedAt
			return tx.Payments().UpdatePayment(ctx, p)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	setExecuting(time.Now().Add(-10 * time.Minute))
	if _, err := env().Service.SafePay.ReapStuckExecutions(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if got := ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t); got["status"] != "EXECUTING" {
		t.Fatalf("a payment executing for minutes was reaped: %v", got["status"])
	}

	setExecuting(time.Now().Add(-2 * time.Hour))
	if _, err := env().Service.SafePay.ReapStuckExecutions(ctx); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ten.Root, id, "COMPLETED")
}

package cards

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// TestCards_PaymentOnItsWayHoldsItsUSDC: a Safe payment holds its USDC on the wallet's mirror
// from just before it is sent until the mirror books its transfer, so a card authorization
// decided in between cannot approve against USDC the payment took. A wallet of 10 USDC pays 8
// while the mirror is kept from indexing (its cursor locked): the Safe holds 2 and the mirror
// still 10, and an authorization of 5 declines INSUFFICIENT_SAFE_BALANCE, where it was approved
// and its settlement would have failed on chain. Once the mirror books the transfer, the hold
// is gone with it: the wallet reconciles with zero drift and an authorization of 2 is approved.
//
// Not parallel: the mirror's cursor is the environment's, so no other test may index meanwhile.
func TestCards_PaymentOnItsWayHoldsItsUSDC(t *testing.T) {
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 10)
	cardID := issue(t, ten.Root, w, map[string]any{})["cardId"].(string)
	// The payment is signed and executed through a service whose jobs are recorded, so its steps
	// run here, one after the other, with the mirror held back.
	svc, id := signedWithRecordedJobs(t, ten, w, "8")
	ctx := context.Background()

	release := holdMirrorCursor(t)
	for {
		snooze, err := svc.RunExecution(ctx, ten.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if snooze == 0 {
			break
		}
		time.Sleep(snooze)
	}
	if got := ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t); got["status"] != "COMPLETED" {
		t.Fatalf("the payment: %v", got)
	}
	if onchain, err := env().Chain.USDCBalance(ctx, w.Address); err != nil || onchain.Int64() != 2_000_000 {
		t.Fatalf("the Safe after the payment: %v (%v)", onchain, err)
	}
	if b := mirrorBalance(t, w.ID); b.Posted != 10_000_000 || b.PendingDebits != 8_000_000 {
		t.Fatalf("the mirror before it books the payment: %+v", b)
	}
	if a := authorize(t, ten.Root, cardID, "5", "5411"); a["status"] != "DECLINED" || declineReason(a) != "INSUFFICIENT_SAFE_BALANCE" {
		t.Fatalf("an authorization of USDC the payment took: %v", a)
	}
	// The wallet's held line is the cards' alone: the payment's USDC has left the Safe already.
	for _, raw := range ten.Root.Get("/v1/wallets/"+w.ID).Expect(t, 200).JSON(t)["balances"].([]any) {
		if line := raw.(map[string]any); line["asset"] == "usdc" && (line["amount"] != "2" || line["held"] != "0" || line["available"] != "2") {
			t.Fatalf("the wallet's USDC line: %v", line)
		}
	}
	// The hold is not a line of the wallet's history: the payment's own row is.
	history := ten.Root.Get("/v1/wallets/"+w.ID+"/transactions?type=withdrawal").Expect(t, 200).JSON(t)
	if lines := history["data"].([]any); len(lines) != 1 || lines[0].(map[string]any)["id"] != id ||
		lines[0].(map[string]any)["status"] != "completed" {
		t.Fatalf("the wallet's withdrawals while the payment is held: %v", history)
	}

	release()
	assertZeroDrift(t, ten.Root, w.ID, "2000000")
	if b := mirrorBalance(t, w.ID); b.Posted != 2_000_000 || b.PendingDebits != 0 {
		t.Fatalf("the mirror after it booked the payment: %+v", b)
	}
	if a := authorize(t, ten.Root, cardID, "2", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("an authorization of what is left: %v", a)
	}
}

// holdMirrorCursor locks the TEST environment's ledger-mirror cursor in a transaction of its own
// until the returned function is called, so no indexer run can commit a range meanwhile.
func holdMirrorCursor(t *testing.T) func() {
	t.Helper()
	locked, done, ended := make(chan error, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		_ = env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			_, err := tx.ChainIndex().LockCursor(ctx, core.EnvTest, env().Chain.ChainID(), time.Now().UTC())
			locked <- err
			<-done
			return errRollbackHold
		})
	}()
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	var once bool
	release := func() {
		if !once {
			once = true
			close(done)
			<-ended
		}
	}
	t.Cleanup(release)
	return release
}

var errRollbackHold = errors.New("the mirror's cursor is released")

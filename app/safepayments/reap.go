package safepayments

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core/safepay"
)

const (
	// paymentStuckAfter is how long an EXECUTING payment may go without any change before the
	// reaper hands it back to its execution job: longer than the job's receipt wait
	// (paymentReceiptTimeout) and its bounded retries, so only a payment whose job has ended
	// (attempts exhausted while the node was down, or the job lost) qualifies.
	paymentStuckAfter = time.Hour
	// PaymentReapInterval paces the reaper.
	PaymentReapInterval = 10 * time.Minute
	// paymentReapBatch bounds the payments one pass hands back.
	paymentReapBatch = 100
)

// ReapStuckExecutions hands every payment EXECUTING without change for paymentStuckAfter back
// to its execution job, which reconciles it with the chain: COMPLETED when the Safe executed
// its safeTxHash, FAILED when another transaction used its nonce, else sent or confirmed again.
// A stuck payment is never failed blindly: a transaction it sent may still be mined. Each
// reaped payment's updatedAt moves to now, so a payment that stays stuck is handed back once
// per paymentStuckAfter, not at every pass. It returns how many payments were reaped.
func (s *Service) ReapStuckExecutions(ctx context.Context) (int, error) {
	now := s.clock.Now()
	var reaped int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		reaped = 0
		stale, err := tx.Payments().ListStalePayments(ctx, safepay.StatusExecuting, now.Add(-paymentStuckAfter), paymentReapBatch)
		if err != nil {
			return err
		}
		for _, pay := range stale {
			locked, err := tx.Payments().LockPayment(ctx, pay.TenantID, pay.ID)
			if err != nil {
				return err
			}
			if locked.Status != safepay.StatusExecuting || !locked.UpdatedAt.Equal(pay.UpdatedAt) {
				continue // it moved since the list was read
			}
			locked.UpdatedAt = now
			if err := s.savePayment(ctx, tx, locked, false); err != nil {
				return err
			}
			if err := s.enqueuePaymentExecution(ctx, locked.TenantID, locked.ID); err != nil {
				return err
			}
			reaped++
		}
		return nil
	})
	return reaped, err
}

// ReapPaymentsArgs is the periodic job of the stuck-execution reaper.
type ReapPaymentsArgs struct{}

// Kind names the job.
func (ReapPaymentsArgs) Kind() string { return "payment.reap" }

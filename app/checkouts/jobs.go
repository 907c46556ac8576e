package checkouts

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/ports"
)

// Bounds of the jobs.
const (
	watchJobAttempts  = 5
	refundJobAttempts = 25
	watchJobTimeout   = 2 * time.Minute
)

// RegisterWorkers adds the watcher and the refund sender.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddWorker(workers, watchJobTimeout, func(ctx context.Context, a WatchArgs) error { return s.WatchAll(ctx, a.Environment) })
	kernel.AddWorker(workers, 0, func(ctx context.Context, a WatchOneArgs) error { return s.WatchOne(ctx, a.CheckoutID) })
	kernel.AddWorker(workers, 0, func(ctx context.Context, a SendRefundArgs) error { return s.SendRefund(ctx, a.CheckoutID, a.RefundID) })
}

// PeriodicJobs is the watcher's pass, per environment.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	every := s.cfg.PollInterval
	// River deduplicates by periods of at least a second.
	unique := max(every, time.Second)
	var out []*river.PeriodicJob
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		out = append(out, river.NewPeriodicJob(river.PeriodicInterval(every), func() (river.JobArgs, *river.InsertOpts) {
			return WatchArgs{Environment: env}, &river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: unique}}
		}, &river.PeriodicJobOpts{RunOnStart: true}))
	}
	return out
}

// WatchArgs is one pass of the watcher over an environment's checkouts.
type WatchArgs struct {
	Environment core.Environment `json:"environment"`
}

// Kind names the job.
func (WatchArgs) Kind() string { return "checkout.watch" }

// WatchOneArgs watches one checkout now.
type WatchOneArgs struct {
	CheckoutID string `json:"checkoutId"`
}

// Kind names the job.
func (WatchOneArgs) Kind() string { return "checkout.watch_one" }

// SendRefundArgs sends one refund's USDC.
type SendRefundArgs struct {
	CheckoutID string `json:"checkoutId"`
	RefundID   string `json:"refundId"`
}

// Kind names the job.
func (SendRefundArgs) Kind() string { return "checkout.send_refund" }

// SendRefund pays a PENDING refund's USDC from the service's own account (where sweeps go) to
// its destination through the checkout factory's refund, under the refund's key
// (checkout.RefundKey), then marks it PROCESSED and records refund.processed. The factory pays a
// key at most once, ever, so a crash between the send and recording its hash cannot pay twice:
// the retry finds the refund paid on chain (refundOf, or its own send reverting) and adopts
// the paying transaction from the factory's Refunded log. The ledger side was booked when the
// refund was accepted.
func (s *Service) SendRefund(ctx context.Context, checkoutID, refundID string) error {
	r, err := s.findRefund(ctx, checkoutID, refundID)
	if err != nil || r.Status == checkout.RefundProcessed {
		return err
	}
	chain, deposits, err := s.deposits(r.Environment)
	if err != nil {
		return err
	}
	key := checkout.RefundKey(r.ID)
	if r.TxHash == "" {
		hash, err := deposits.RefundCheckout(ctx, key, common.HexToAddress(r.Destination), big.NewInt(r.Amount))
		var revert *ports.RevertError
		switch {
		case err == nil && hash == (common.Hash{}),
			errors.As(err, &revert) && revert.Reason == "CDF:refunded":
			// Already paid on chain: a send from before a crash, or one still pending.
			return s.adoptRefund(ctx, deposits, checkoutID, r)
		case err != nil:
			return fmt.Errorf("checkout refund %s: %w", r.ID, err)
		}
		kernel.CrashPoint(kernel.CrashCheckoutRefundSent)
		if err := s.setRefundHash(ctx, &r, hash.Hex()); err != nil {
			return err
		}
	}
	receipt, err := chain.Receipt(ctx, common.HexToHash(r.TxHash))
	if err != nil {
		return err
	}
	switch receipt.Status {
	case ports.TxPending:
		return river.JobSnooze(time.Second)
	case ports.TxFailed:
		// Reverted: another transaction paid this key first (adopt it), or the service's
		// account was short (clear the hash so the retry sends again).
		paid, err := deposits.CheckoutRefundOf(ctx, key)
		if err != nil {
			return err
		}
		if paid.Paid() {
			return s.adoptRefund(ctx, deposits, checkoutID, r)
		}
		failed := r.TxHash
		if err := s.setRefundHash(ctx, &r, ""); err != nil {
			return err
		}
		return fmt.Errorf("checkout refund %s: transfer %s reverted", r.ID, failed)
	}
	return s.markRefundProcessed(ctx, checkoutID, r)
}

// adoptRefund records the on-chain payment of r's key as r's: the transaction of the factory's
// Refunded log (searched back to the checkout's start block), and PROCESSED. A payment whose
// log is out of reach is still PROCESSED, without a hash: the chain says it was paid. A key the
// chain does not show paid yet (its transaction is pending) waits; one paid to another
// destination or amount is an error that needs a person.
func (s *Service) adoptRefund(ctx context.Context, deposits ports.CheckoutDeposits, checkoutID string, r checkout.Refund) error {
	key := checkout.RefundKey(r.ID)
	paid, err := deposits.CheckoutRefundOf(ctx, key)
	switch {
	case err != nil:
		return err
	case !paid.Paid():
		return river.JobSnooze(time.Second)
	case paid.To != common.HexToAddress(r.Destination) || paid.AmountBaseUnits.Cmp(big.NewInt(r.Amount)) != 0:
		return fmt.Errorf("checkout refund %s: the chain paid its key %s base units to %s, not %d to %s",
			r.ID, paid.AmountBaseUnits, paid.To.Hex(), r.Amount, r.Destination)
	}
	var start uint64
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := tx.Checkouts().FindPublicCheckout(ctx, checkoutID)
		start = c.StartBlock
		return err
	}); err != nil {
		return err
	}
	hash, found, err := deposits.CheckoutRefundTx(ctx, key, start)
	if err != nil {
		return err
	}
	if found {
		r.TxHash = hash.Hex()
	} else {
		r.TxHash = ""
		s.log.WarnContext(ctx, "checkout refund paid on chain, its transaction not found in the logs searched", "refund", r.ID)
	}
	return s.markRefundProcessed(ctx, checkoutID, r)
}

// setRefundHash records (or clears) the refund's transaction hash.
func (s *Service) setRefundHash(ctx context.Context, r *checkout.Refund, hash string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		r.TxHash, r.UpdatedAt = hash, s.clock.Now().UTC()
		return tx.Checkouts().UpdateRefund(ctx, *r)
	})
}

// markRefundProcessed marks the refund PROCESSED with its hash and records refund.processed.
func (s *Service) markRefundProcessed(ctx context.Context, checkoutID string, r checkout.Refund) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := tx.Checkouts().LockCheckout(ctx, r.TenantID, checkoutID)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		r.Status, r.UpdatedAt = checkout.RefundProcessed, now
		if err := tx.Checkouts().UpdateRefund(ctx, r); err != nil {
			return err
		}
		data := map[string]any{"payment_id": c.ID, "transaction_hash": r.TxHash, "destination": r.Destination}
		if r.TxHash == "" {
			data["transaction_hash"] = nil
		}
		return kernel.RecordEvent(ctx, tx, r.TenantID, r.Environment, "refund", r.ID, "processed", r.Amount, now, data)
	})
}

func (s *Service) findRefund(ctx context.Context, checkoutID, refundID string) (checkout.Refund, error) {
	var out checkout.Refund
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		// The job names the checkout alone: its lookup row gives the tenant.
		c, err := tx.Checkouts().FindPublicCheckout(ctx, checkoutID)
		if err != nil {
			return err
		}
		all, err := tx.Checkouts().ListRefunds(ctx, c.TenantID, checkoutID)
		if err != nil {
			return err
		}
		for _, r := range all {
			if r.ID == refundID {
				out = r
				return nil
			}
		}
		return fmt.Errorf("checkout refund %s of %s not found", refundID, checkoutID)
	})
	return out, err
}

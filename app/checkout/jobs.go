package checkout

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/riverqueue/river"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/checkout"
	"corridor/ports"
)

// Bounds of the jobs.
const (
	watchJobAttempts  = 5
	refundJobAttempts = 25
	watchJobTimeout   = 2 * time.Minute
)

// RegisterWorkers adds the watcher and the refund sender.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &WatchWorker{Service: s})
	river.AddWorker(workers, &WatchOneWorker{Service: s})
	river.AddWorker(workers, &SendRefundWorker{Service: s})
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

// WatchWorker works checkout.watch jobs.
type WatchWorker struct {
	river.WorkerDefaults[WatchArgs]
	Service *Service
}

// Work runs one pass.
func (w *WatchWorker) Work(ctx context.Context, job *river.Job[WatchArgs]) error {
	return w.Service.WatchAll(ctx, job.Args.Environment)
}

// Timeout bounds one pass.
func (w *WatchWorker) Timeout(*river.Job[WatchArgs]) time.Duration { return watchJobTimeout }

// WatchOneArgs watches one checkout now.
type WatchOneArgs struct {
	CheckoutID string `json:"checkoutId"`
}

// Kind names the job.
func (WatchOneArgs) Kind() string { return "checkout.watch_one" }

// WatchOneWorker works checkout.watch_one jobs.
type WatchOneWorker struct {
	river.WorkerDefaults[WatchOneArgs]
	Service *Service
}

// Work watches the checkout.
func (w *WatchOneWorker) Work(ctx context.Context, job *river.Job[WatchOneArgs]) error {
	return w.Service.WatchOne(ctx, job.Args.CheckoutID)
}

// SendRefundArgs sends one refund's USDC.
type SendRefundArgs struct {
	CheckoutID string `json:"checkoutId"`
	RefundID   string `json:"refundId"`
}

// Kind names the job.
func (SendRefundArgs) Kind() string { return "checkout.send_refund" }

// SendRefundWorker works checkout.send_refund jobs.
type SendRefundWorker struct {
	river.WorkerDefaults[SendRefundArgs]
	Service *Service
}

// Work sends the refund.
func (w *SendRefundWorker) Work(ctx context.Context, job *river.Job[SendRefundArgs]) error {
	return w.Service.SendRefund(ctx, job.Args.CheckoutID, job.Args.RefundID)
}

// SendRefund transfers a PENDING refund's USDC from the service's own account (where sweeps
// go) to its destination, then marks it PROCESSED and records refund.processed. The transfer
// is sent once per refund id by this process's relayer; the ledger side was booked when the
// refund was accepted.
func (s *Service) SendRefund(ctx context.Context, checkoutID, refundID string) error {
	r, err := s.findRefund(ctx, checkoutID, refundID)
	if err != nil || r.Status == checkout.RefundProcessed {
		return err
	}
	chain, _, err := s.deposits(r.Environment)
	if err != nil {
		return err
	}
	hash := common.HexToHash(r.TxHash)
	if r.TxHash == "" {
		if hash, err = chain.TransferUSDC(ctx, common.HexToAddress(r.Destination), big.NewInt(r.Amount)); err != nil {
			return fmt.Errorf("checkout refund %s: %w", r.ID, err)
		}
		if err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			r.TxHash, r.UpdatedAt = hash.Hex(), s.clock.Now().UTC()
			return tx.Checkouts().UpdateRefund(ctx, r)
		}); err != nil {
			return err
		}
	}
	receipt, err := chain.Receipt(ctx, hash)
	if err != nil {
		return err
	}
	switch receipt.Status {
	case ports.TxPending:
		return river.JobSnooze(time.Second)
	case ports.TxFailed:
		// Reverted (the service's account is short): clear the hash so the retry sends again.
		if err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			r.TxHash, r.UpdatedAt = "", s.clock.Now().UTC()
			return tx.Checkouts().UpdateRefund(ctx, r)
		}); err != nil {
			return err
		}
		return fmt.Errorf("checkout refund %s: transfer %s reverted", r.ID, hash.Hex())
	}
	return s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Checkouts().LockCheckout(ctx, checkoutID)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		r.Status, r.UpdatedAt = checkout.RefundProcessed, now
		if err := tx.Checkouts().UpdateRefund(ctx, r); err != nil {
			return err
		}
		return kernel.RecordEvent(ctx, tx, r.TenantID, r.Environment, "refund", r.ID, "processed", r.Amount, now,
			map[string]any{"payment_id": c.ID, "transaction_hash": r.TxHash, "destination": r.Destination})
	})
}

func (s *Service) findRefund(ctx context.Context, checkoutID, refundID string) (checkout.Refund, error) {
	var out checkout.Refund
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		all, err := tx.Checkouts().ListRefunds(ctx, checkoutID)
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

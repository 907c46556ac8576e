package safepayments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

const (
	// paymentReceiptPoll is how soon the execution job looks again at a pending transaction.
	paymentReceiptPoll = time.Second
	// paymentReceiptTimeout bounds polling for one transaction; after it the job errors and
	// its bounded retries take over (the payment stays EXECUTING: see docs/decisions/README.md).
	paymentReceiptTimeout = 15 * time.Minute
	// paymentNonceUsedGrace is how long an EXECUTING payment without a recorded transaction
	// waits before a used nonce fails it: another run may have sent it and not yet recorded.
	paymentNonceUsedGrace = 30 * time.Second
)

// errPaymentStepDone: another run already moved the payment on; nothing is left to do.
var errPaymentStepDone = errors.New("payment step already done")

// RunExecution runs one step of a payment's execution job and says when to look again
// (0 = nothing left). Chain calls happen outside transactions; every outcome is recorded with
// the row locked and the state checked again, so duplicate or retried runs are harmless:
// exactly one run moves READY_TO_EXECUTE → EXECUTING, ExecSafeTransaction is idempotent per
// safeTxHash, and the Safe's nonce refuses a second execution in any case.
func (s *Service) RunExecution(ctx context.Context, tenantID, paymentID string) (time.Duration, error) {
	pay, err := s.paymentByID(ctx, tenantID, paymentID)
	if err != nil {
		return 0, err
	}
	chain, err := s.paymentChain(pay)
	if err != nil {
		return 0, err
	}
	var snooze time.Duration
	switch {
	case pay.Status == safepay.StatusReadyToExecute:
		snooze, err = s.claimPaymentExecution(ctx, chain, pay)
	case pay.Status == safepay.StatusExecuting && pay.ExecutedTxHash == "":
		snooze, err = s.sendPayment(ctx, chain, pay)
	case pay.Status == safepay.StatusExecuting:
		snooze, err = s.confirmPayment(ctx, chain, pay)
	}
	if errors.Is(err, errPaymentStepDone) {
		return 0, nil
	}
	return snooze, err
}

// claimPaymentExecution moves READY_TO_EXECUTE → EXECUTING and sends. A payment queued behind
// an earlier nonce stays READY_TO_EXECUTE: the earlier payment's completion enqueues this job
// again (and explicit execute stays available).
func (s *Service) claimPaymentExecution(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	chainNonce, err := chain.SafeNonce(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return 0, err
	}
	switch {
	case pay.WaitingFor(chainNonce):
		return 0, nil
	case chainNonce > pay.SafeNonce:
		// Never claimed, so never sent: another Safe transaction used this nonce.
		return 0, s.failPayment(ctx, chain, pay, safepay.NonceUsedReason(pay), stillReady)
	}
	// Never sent (the Safe is still at its nonce): a payment that would spend USDC open card
	// authorizations hold fails here, before the relayer sends it.
	if err := checkHeld(ctx, s.store, chain, pay); core.HasCode(err, core.CodeInsufficientFunds) {
		return 0, s.failPayment(ctx, chain, pay, err.Error(), stillReady)
	} else if err != nil {
		return 0, err
	}
	claimed, err := s.updatePayment(ctx, pay.TenantID, pay.ID, func(p safepay.Payment) (safepay.Payment, error) {
		switch p.Status {
		case safepay.StatusReadyToExecute:
			return p.Apply(safepay.TriggerExecute, s.clock.Now())
		case safepay.StatusExecuting:
			return p, nil // an explicit execute claimed it; sending is this job's work either way
		}
		return p, errPaymentStepDone
	})
	if err != nil {
		return 0, err
	}
	if claimed.ExecutedTxHash != "" {
		return s.confirmPayment(ctx, chain, claimed)
	}
	return s.sendPayment(ctx, chain, claimed)
}

// sendPayment relays execTransaction with the signatures sorted by signer and records the
// transaction hash. A revert found while estimating fails the payment with its reason.
func (s *Service) sendPayment(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	switch snooze, refusal, err := s.holds.hold(ctx, chain, pay); {
	case snooze > 0 || err != nil:
		return snooze, err
	case refusal != nil:
		return 0, s.failPayment(ctx, chain, pay, refusal.Error(), stillUnsent)
	}
	tx, err := pay.SafeTransaction(chain.USDCAddress())
	if err != nil {
		return 0, s.failPayment(ctx, chain, pay, "SAFE_TX_MISMATCH: "+err.Error(), stillUnsent)
	}
	signatures, err := pay.PackedSignatures()
	if err != nil {
		return 0, s.failPayment(ctx, chain, pay, "SIGNATURES_UNUSABLE: "+err.Error(), stillUnsent)
	}
	hash, err := chain.ExecSafeTransaction(ctx, common.HexToAddress(pay.SafeAddress), tx, signatures)
	var revert *ports.RevertError
	switch {
	case errors.As(err, &revert):
		return 0, s.failPayment(ctx, chain, pay, revertReason(revert), stillUnsent)
	case errors.Is(err, ports.ErrSafeNonceUsed):
		return s.paymentNonceUsed(ctx, chain, pay)
	case err != nil:
		return 0, err
	}
	kernel.CrashPoint(kernel.CrashSafeExecutionSent)
	sent, err := s.updatePayment(ctx, pay.TenantID, pay.ID, func(p safepay.Payment) (safepay.Payment, error) {
		if p.Status != safepay.StatusExecuting {
			return p, errPaymentStepDone
		}
		if p.ExecutedTxHash == "" {
			p.ExecutedTxHash = hash.Hex()
			p.UpdatedAt = s.clock.Now()
		}
		return p, nil
	})
	if err != nil {
		return 0, err
	}
	return s.confirmPayment(ctx, chain, sent)
}

// paymentNonceUsed handles a Safe whose nonce moved past the payment's. When a run recorded
// this payment's transaction, that is the one to confirm. Otherwise another transaction used
// the nonce and the payment fails, after a short grace for a run that sent but has not yet
// recorded.
func (s *Service) paymentNonceUsed(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	current, err := s.paymentByID(ctx, pay.TenantID, pay.ID)
	if err != nil {
		return 0, err
	}
	switch {
	case current.Status != safepay.StatusExecuting:
		return 0, nil
	case current.ExecutedTxHash != "":
		return s.confirmPayment(ctx, chain, current)
	case s.clock.Now().Sub(current.UpdatedAt) < paymentNonceUsedGrace:
		return paymentReceiptPoll, nil
	}
	if adopted, err := s.adoptExecution(ctx, chain, current); adopted || err != nil {
		return 0, err
	}
	return 0, s.failPayment(ctx, chain, current, safepay.NonceUsedReason(current), stillUnsent)
}

// adoptExecution completes the payment with the transaction that executed its safeTxHash on
// chain, when the Safe shows one. A send whose outcome was unknown (a timeout after the node
// took it), or another run's send, can have moved the money while this run saw a used nonce or
// its own transaction revert: the Safe's ExecutionSuccess event is the truth, so the payment is
// never reported FAILED for money that moved.
func (s *Service) adoptExecution(ctx context.Context, chain ports.Chain, pay safepay.Payment) (bool, error) {
	if pay.SafeTxHash == "" {
		return false, nil
	}
	txHash, found, err := chain.SafeExecution(ctx, common.HexToAddress(pay.SafeAddress), common.HexToHash(pay.SafeTxHash))
	if err != nil || !found {
		return false, err
	}
	adopted, err := s.updatePayment(ctx, pay.TenantID, pay.ID, func(p safepay.Payment) (safepay.Payment, error) {
		if p.Status != safepay.StatusExecuting {
			return p, errPaymentStepDone
		}
		p.ExecutedTxHash = txHash.Hex()
		p.UpdatedAt = s.clock.Now()
		return p, nil
	})
	if errors.Is(err, errPaymentStepDone) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return true, s.completePayment(ctx, adopted)
}

// confirmPayment reads the receipt: success completes the payment, a revert fails it, pending
// looks again later (bounded by paymentReceiptTimeout).
func (s *Service) confirmPayment(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	receipt, err := chain.Receipt(ctx, common.HexToHash(pay.ExecutedTxHash))
	if err != nil {
		return 0, err
	}
	switch receipt.Status {
	case ports.TxSucceeded:
		return 0, s.completePayment(ctx, pay)
	case ports.TxFailed:
		reason := receipt.FailureReason
		if reason == "" {
			reason = "the transaction reverted on chain"
		}
		if adopted, err := s.adoptExecution(ctx, chain, pay); adopted || err != nil {
			return 0, err
		}
		sentAs := func(p safepay.Payment) bool {
			return p.Status == safepay.StatusExecuting && p.ExecutedTxHash == pay.ExecutedTxHash
		}
		return 0, s.failPayment(ctx, chain, pay, "REVERTED: "+reason+" (transaction "+pay.ExecutedTxHash+")", sentAs)
	}
	if waited := s.clock.Now().Sub(pay.UpdatedAt); waited > paymentReceiptTimeout {
		return 0, fmt.Errorf("safepay: payment %s: transaction %s still pending after %s", pay.ID, pay.ExecutedTxHash, waited.Round(time.Second))
	}
	return paymentReceiptPoll, nil
}

// completePayment records COMPLETED and, in the same transaction, enqueues the execution of
// the wallet's next payment when it was ready and waiting for this nonce.
func (s *Service) completePayment(ctx context.Context, pay safepay.Payment) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := tx.Payments().LockPayment(ctx, pay.TenantID, pay.ID)
		if err != nil || locked.Status != safepay.StatusExecuting {
			return err
		}
		done, err := locked.Apply(safepay.TriggerSucceeded, s.clock.Now())
		if err != nil {
			return err
		}
		if err := s.savePayment(ctx, tx, done, false); err != nil {
			return err
		}
		next, err := tx.Payments().ListQueuedPayments(ctx, done.TenantID, done.SourceWalletID, done.SafeNonce, 1)
		if err != nil || len(next) == 0 {
			return err
		}
		if next[0].SafeNonce == done.SafeNonce+1 && next[0].Status == safepay.StatusReadyToExecute {
			return s.enqueuePaymentExecution(ctx, next[0].TenantID, next[0].ID)
		}
		return nil
	})
}

// Guards of failPayment: the state the failure was observed in must still hold under the lock,
// or another run has moved the payment on and the failure no longer applies.
func stillReady(p safepay.Payment) bool { return p.Status == safepay.StatusReadyToExecute }

func stillUnsent(p safepay.Payment) bool {
	return p.Status == safepay.StatusExecuting && p.ExecutedTxHash == ""
}

// failPayment records FAILED with reason when still holds for the locked payment. When the
// payment's nonce is still unused on chain, every later queued payment of the wallet could
// never execute: each fails too, with a NONCE_GAP reason naming this payment, so the nonce is
// free for the next proposal.
func (s *Service) failPayment(ctx context.Context, chain ports.Chain, pay safepay.Payment, reason string, still func(safepay.Payment) bool) error {
	chainNonce, err := chain.SafeNonce(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return err
	}
	nonceUnused := chainNonce <= pay.SafeNonce
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if _, err := tx.Wallets().LockWallet(ctx, pay.TenantID, pay.SourceWalletID); err != nil {
			return err
		}
		locked, err := tx.Payments().LockPayment(ctx, pay.TenantID, pay.ID)
		if err != nil || locked.Status.Terminal() || !still(locked) {
			return err
		}
		now := s.clock.Now()
		failed, err := locked.Fail(reason, now)
		if err != nil {
			return err
		}
		if err := s.savePayment(ctx, tx, failed, false); err != nil {
			return err
		}
		// Unsent or reverted, the payment moved no USDC: its hold on the mirror goes.
		if err := kernel.ReleaseHoldOfPayment(ctx, tx, failed.Environment, failed.TenantID, failed.ID, "payment failed", now); err != nil || !nonceUnused {
			return err
		}
		later, err := tx.Payments().ListQueuedPayments(ctx, failed.TenantID, failed.SourceWalletID, failed.SafeNonce, safepay.MaxQueued)
		if err != nil {
			return err
		}
		for _, l := range later {
			queued, err := tx.Payments().LockPayment(ctx, l.TenantID, l.ID)
			if err != nil {
				return err
			}
			if queued.Status.Terminal() {
				continue
			}
			gap, err := queued.Fail(safepay.NonceGapReason(failed), now)
			if err != nil {
				return err
			}
			if err := s.savePayment(ctx, tx, gap, false); err != nil {
				return err
			}
		}
		return nil
	})
}

// revertReason is a failureReason from a revert found before sending: Safe's code first
// ("GS013: …"), so clients can branch on the prefix.
func revertReason(e *ports.RevertError) string {
	switch {
	case e.Reason == "":
		return "REVERTED: the execution would revert"
	case e.Meaning != "":
		return e.Reason + ": " + e.Meaning
	}
	return e.Reason
}

// updatePayment applies change to the locked payment and saves it in one transaction.
// change returning errPaymentStepDone leaves the row alone.
func (s *Service) updatePayment(ctx context.Context, tenantID, id string, change func(safepay.Payment) (safepay.Payment, error)) (safepay.Payment, error) {
	var out safepay.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := tx.Payments().LockPayment(ctx, tenantID, id)
		if err != nil {
			return err
		}
		next, err := change(locked)
		if err != nil {
			return err
		}
		out = next
		return s.savePayment(ctx, tx, next, false)
	})
	return out, err
}

// paymentByID loads a payment by id alone (jobs).
func (s *Service) paymentByID(ctx context.Context, tenantID, id string) (safepay.Payment, error) {
	var pay safepay.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		pay, err = tx.Payments().LockPayment(ctx, tenantID, id)
		return err
	})
	return pay, err
}

// paymentChain is the chain a payment lives on, or CHAIN_UNAVAILABLE.
func (s *Service) paymentChain(pay safepay.Payment) (ports.Chain, error) {
	chain, err := s.chains.Chain(pay.Environment)
	if err != nil {
		return nil, err
	}
	if chain.ChainID() != pay.ChainID {
		return nil, core.E(core.CodeChainUnavailable, "payment %s is on chain %d; %s is served by chain %d", pay.ID, pay.ChainID, pay.Environment, chain.ChainID())
	}
	return chain, nil
}

// enqueuePaymentExecution enqueues the execution job in the caller's transaction.
func (s *Service) enqueuePaymentExecution(ctx context.Context, tenantID, paymentID string) error {
	return s.jobs.Enqueue(ctx, ExecutePaymentArgs{TenantID: tenantID, PaymentID: paymentID}, ports.JobOptions{MaxAttempts: paymentJobMaxAttempts})
}

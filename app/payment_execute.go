package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/safepay"
	"corridor/core/tenant"
	"corridor/ports"
)

const (
	// paymentReceiptPoll is how soon the execution job looks again at a pending transaction.
	paymentReceiptPoll = time.Second
	// paymentReceiptTimeout bounds polling for one transaction; after it the job errors and
	// its bounded retries take over (the payment stays EXECUTING: see docs/decisions.md).
	paymentReceiptTimeout = 15 * time.Minute
	// paymentNonceUsedGrace is how long an EXECUTING payment without a recorded transaction
	// waits before a used nonce fails it: another run may have sent it and not yet recorded.
	paymentNonceUsedGrace = 30 * time.Second
)

// errPaymentStepDone: another run already moved the payment on; nothing is left to do.
var errPaymentStepDone = errors.New("payment step already done")

// ExecutePayment is the explicit execute: it moves a READY_TO_EXECUTE payment to EXECUTING
// under the payment's row lock and enqueues the job that relays it. Exactly one of any number
// of concurrent callers (and the auto-execute job) makes that move; the others get 409
// INVALID_STATE. A payment queued behind an earlier Safe nonce is refused with INVALID_STATE
// too: the Safe executes nonces in order.
func (a *App) ExecutePayment(ctx context.Context, p auth.Principal, id, ownerAddress string) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsExecute); err != nil {
		return safepay.Payment{}, err
	}
	chain, err := a.chains.Chain(p.Environment)
	if err != nil {
		return safepay.Payment{}, err
	}
	pay, err := a.findPayment(ctx, p, id)
	if err != nil {
		return pay, err
	}
	if !pay.Can(safepay.TriggerExecute) {
		return pay.Apply(safepay.TriggerExecute, a.clock.Now())
	}
	if err := requirePaymentOwner(ctx, chain, pay, ownerAddress); err != nil {
		return pay, err
	}
	chainNonce, err := chain.SafeNonce(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return pay, paymentChainError("reading the Safe's nonce", err)
	}
	if pay.WaitingFor(chainNonce) {
		return pay, core.E(core.CodeInvalidState,
			"payment %s holds Safe nonce %d but the Safe is at nonce %d: the earlier payments must execute first; this one then executes automatically",
			pay.ID, pay.SafeNonce, chainNonce).
			WithDetails(map[string]any{"status": string(pay.Status), "safeNonce": pay.SafeNonce, "currentSafeNonce": chainNonce})
	}
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := lockCallerPayment(ctx, tx, p, pay.ID)
		if err != nil {
			return err
		}
		next, err := locked.Apply(safepay.TriggerExecute, a.clock.Now())
		if err != nil {
			return err
		}
		if err := tx.Payments().UpdatePayment(ctx, next); err != nil {
			return err
		}
		pay = next
		return a.enqueuePaymentExecution(ctx, next.ID)
	})
	return pay, err
}

// CancelPayment cancels a payment that has not been sent (CREATED, AWAITING_SIGNATURE or
// READY_TO_EXECUTE). Only the newest queued payment of a wallet can be cancelled: cancelling
// an earlier one would leave a Safe nonce that nothing uses, and no later payment could
// execute (safepay.Payment.Cancel). The wallet row is locked first, as propose does, so no
// payment is queued behind this one while it is being cancelled.
func (a *App) CancelPayment(ctx context.Context, p auth.Principal, id, ownerAddress string) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return safepay.Payment{}, err
	}
	pay, err := a.findPayment(ctx, p, id)
	if err != nil {
		return pay, err
	}
	if ownerAddress != "" {
		chain, err := a.chains.Chain(p.Environment)
		if err != nil {
			return pay, err
		}
		if err := requirePaymentOwner(ctx, chain, pay, ownerAddress); err != nil {
			return pay, err
		}
	}
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if _, err := tx.Wallets().LockWallet(ctx, pay.SourceWalletID); err != nil {
			return err
		}
		locked, err := lockCallerPayment(ctx, tx, p, pay.ID)
		if err != nil {
			return err
		}
		later, err := tx.Payments().ListQueuedPayments(ctx, locked.SourceWalletID, locked.SafeNonce, safepay.MaxQueued)
		if err != nil {
			return err
		}
		next, err := locked.Cancel(later, a.clock.Now())
		if err != nil {
			return err
		}
		pay = next
		return tx.Payments().UpdatePayment(ctx, next)
	})
	return pay, err
}

// requirePaymentOwner checks the optional ownerAddress of execute and cancel: when given it
// must be one of the Safe's on-chain owners. It names who acted; the relayer pays either way.
func requirePaymentOwner(ctx context.Context, chain ports.Chain, pay safepay.Payment, ownerAddress string) error {
	ownerAddress = strings.TrimSpace(ownerAddress)
	if ownerAddress == "" {
		return nil
	}
	addr, err := tenant.ValidateAddress("ownerAddress", ownerAddress)
	if err != nil {
		return err
	}
	owners, err := chain.SafeOwners(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return paymentChainError("reading the Safe's owners", err)
	}
	for _, o := range owners {
		if o == common.HexToAddress(addr) {
			return nil
		}
	}
	return core.E(safepay.CodeSignerNotOwner, "%s is not an owner of the Safe %s", addr, pay.SafeAddress).
		WithDetails(map[string]any{"field": "ownerAddress"})
}

// RunPaymentExecution runs one step of a payment's execution job and says when to look again
// (0 = nothing left). Chain calls happen outside transactions; every outcome is recorded with
// the row locked and the state checked again, so duplicate or retried runs are harmless:
// exactly one run moves READY_TO_EXECUTE → EXECUTING, ExecSafeTransaction is idempotent per
// safeTxHash, and the Safe's nonce refuses a second execution in any case.
func (a *App) RunPaymentExecution(ctx context.Context, paymentID string) (time.Duration, error) {
	pay, err := a.paymentByID(ctx, paymentID)
	if err != nil {
		return 0, err
	}
	chain, err := a.paymentChain(pay)
	if err != nil {
		return 0, err
	}
	var snooze time.Duration
	switch {
	case pay.Status == safepay.StatusReadyToExecute:
		snooze, err = a.claimPaymentExecution(ctx, chain, pay)
	case pay.Status == safepay.StatusExecuting && pay.ExecutedTxHash == "":
		snooze, err = a.sendPayment(ctx, chain, pay)
	case pay.Status == safepay.StatusExecuting:
		snooze, err = a.confirmPayment(ctx, chain, pay)
	}
	if errors.Is(err, errPaymentStepDone) {
		return 0, nil
	}
	return snooze, err
}

// claimPaymentExecution moves READY_TO_EXECUTE → EXECUTING and sends. A payment queued behind
// an earlier nonce stays READY_TO_EXECUTE: the earlier payment's completion enqueues this job
// again (and explicit execute stays available).
func (a *App) claimPaymentExecution(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	chainNonce, err := chain.SafeNonce(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return 0, err
	}
	switch {
	case pay.WaitingFor(chainNonce):
		return 0, nil
	case chainNonce > pay.SafeNonce:
		// Never claimed, so never sent: another Safe transaction used this nonce.
		return 0, a.failPayment(ctx, chain, pay, safepay.NonceUsedReason(pay), stillReady)
	}
	claimed, err := a.updatePayment(ctx, pay.ID, func(p safepay.Payment) (safepay.Payment, error) {
		switch p.Status {
		case safepay.StatusReadyToExecute:
			return p.Apply(safepay.TriggerExecute, a.clock.Now())
		case safepay.StatusExecuting:
			return p, nil // an explicit execute claimed it; sending is this job's work either way
		}
		return p, errPaymentStepDone
	})
	if err != nil {
		return 0, err
	}
	if claimed.ExecutedTxHash != "" {
		return a.confirmPayment(ctx, chain, claimed)
	}
	return a.sendPayment(ctx, chain, claimed)
}

// sendPayment relays execTransaction with the signatures sorted by signer and records the
// transaction hash. A revert found while estimating fails the payment with its reason.
func (a *App) sendPayment(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	tx, err := pay.SafeTransaction(chain.USDCAddress())
	if err != nil {
		return 0, a.failPayment(ctx, chain, pay, "SAFE_TX_MISMATCH: "+err.Error(), stillUnsent)
	}
	signatures, err := pay.PackedSignatures()
	if err != nil {
		return 0, a.failPayment(ctx, chain, pay, "SIGNATURES_UNUSABLE: "+err.Error(), stillUnsent)
	}
	hash, err := chain.ExecSafeTransaction(ctx, common.HexToAddress(pay.SafeAddress), tx, signatures)
	var revert *ports.RevertError
	switch {
	case errors.As(err, &revert):
		return 0, a.failPayment(ctx, chain, pay, revertReason(revert), stillUnsent)
	case errors.Is(err, ports.ErrSafeNonceUsed):
		return a.paymentNonceUsed(ctx, chain, pay)
	case err != nil:
		return 0, err
	}
	sent, err := a.updatePayment(ctx, pay.ID, func(p safepay.Payment) (safepay.Payment, error) {
		if p.Status != safepay.StatusExecuting {
			return p, errPaymentStepDone
		}
		if p.ExecutedTxHash == "" {
			p.ExecutedTxHash = hash.Hex()
			p.UpdatedAt = a.clock.Now()
		}
		return p, nil
	})
	if err != nil {
		return 0, err
	}
	return a.confirmPayment(ctx, chain, sent)
}

// paymentNonceUsed handles a Safe whose nonce moved past the payment's. When a run recorded
// this payment's transaction, that is the one to confirm. Otherwise another transaction used
// the nonce and the payment fails, after a short grace for a run that sent but has not yet
// recorded.
func (a *App) paymentNonceUsed(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	current, err := a.paymentByID(ctx, pay.ID)
	if err != nil {
		return 0, err
	}
	switch {
	case current.Status != safepay.StatusExecuting:
		return 0, nil
	case current.ExecutedTxHash != "":
		return a.confirmPayment(ctx, chain, current)
	case a.clock.Now().Sub(current.UpdatedAt) < paymentNonceUsedGrace:
		return paymentReceiptPoll, nil
	}
	if adopted, err := a.adoptExecution(ctx, chain, current); adopted || err != nil {
		return 0, err
	}
	return 0, a.failPayment(ctx, chain, current, safepay.NonceUsedReason(current), stillUnsent)
}

// adoptExecution completes the payment with the transaction that executed its safeTxHash on
// chain, when the Safe shows one. A send whose outcome was unknown (a timeout after the node
// took it), or another run's send, can have moved the money while this run saw a used nonce or
// its own transaction revert: the Safe's ExecutionSuccess event is the truth, so the payment is
// never reported FAILED for money that moved.
func (a *App) adoptExecution(ctx context.Context, chain ports.Chain, pay safepay.Payment) (bool, error) {
	if pay.SafeTxHash == "" {
		return false, nil
	}
	txHash, found, err := chain.SafeExecution(ctx, common.HexToAddress(pay.SafeAddress), common.HexToHash(pay.SafeTxHash))
	if err != nil || !found {
		return false, err
	}
	adopted, err := a.updatePayment(ctx, pay.ID, func(p safepay.Payment) (safepay.Payment, error) {
		if p.Status != safepay.StatusExecuting {
			return p, errPaymentStepDone
		}
		p.ExecutedTxHash = txHash.Hex()
		p.UpdatedAt = a.clock.Now()
		return p, nil
	})
	if errors.Is(err, errPaymentStepDone) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return true, a.completePayment(ctx, adopted)
}

// confirmPayment reads the receipt: success completes the payment, a revert fails it, pending
// looks again later (bounded by paymentReceiptTimeout).
func (a *App) confirmPayment(ctx context.Context, chain ports.Chain, pay safepay.Payment) (time.Duration, error) {
	receipt, err := chain.Receipt(ctx, common.HexToHash(pay.ExecutedTxHash))
	if err != nil {
		return 0, err
	}
	switch receipt.Status {
	case ports.TxSucceeded:
		return 0, a.completePayment(ctx, pay)
	case ports.TxFailed:
		reason := receipt.FailureReason
		if reason == "" {
			reason = "the transaction reverted on chain"
		}
		if adopted, err := a.adoptExecution(ctx, chain, pay); adopted || err != nil {
			return 0, err
		}
		sentAs := func(p safepay.Payment) bool {
			return p.Status == safepay.StatusExecuting && p.ExecutedTxHash == pay.ExecutedTxHash
		}
		return 0, a.failPayment(ctx, chain, pay, "REVERTED: "+reason+" (transaction "+pay.ExecutedTxHash+")", sentAs)
	}
	if waited := a.clock.Now().Sub(pay.UpdatedAt); waited > paymentReceiptTimeout {
		return 0, fmt.Errorf("app: payment %s: transaction %s still pending after %s", pay.ID, pay.ExecutedTxHash, waited.Round(time.Second))
	}
	return paymentReceiptPoll, nil
}

// completePayment records COMPLETED and, in the same transaction, enqueues the execution of
// the wallet's next payment when it was ready and waiting for this nonce.
func (a *App) completePayment(ctx context.Context, pay safepay.Payment) error {
	return a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Payments().LockPayment(ctx, pay.ID)
		if err != nil || locked.Status != safepay.StatusExecuting {
			return err
		}
		done, err := locked.Apply(safepay.TriggerSucceeded, a.clock.Now())
		if err != nil {
			return err
		}
		if err := tx.Payments().UpdatePayment(ctx, done); err != nil {
			return err
		}
		next, err := tx.Payments().ListQueuedPayments(ctx, done.SourceWalletID, done.SafeNonce, 1)
		if err != nil || len(next) == 0 {
			return err
		}
		if next[0].SafeNonce == done.SafeNonce+1 && next[0].Status == safepay.StatusReadyToExecute {
			return a.enqueuePaymentExecution(ctx, next[0].ID)
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
func (a *App) failPayment(ctx context.Context, chain ports.Chain, pay safepay.Payment, reason string, still func(safepay.Payment) bool) error {
	chainNonce, err := chain.SafeNonce(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return err
	}
	nonceUnused := chainNonce <= pay.SafeNonce
	return a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if _, err := tx.Wallets().LockWallet(ctx, pay.SourceWalletID); err != nil {
			return err
		}
		locked, err := tx.Payments().LockPayment(ctx, pay.ID)
		if err != nil || locked.Status.Terminal() || !still(locked) {
			return err
		}
		now := a.clock.Now()
		failed, err := locked.Fail(reason, now)
		if err != nil {
			return err
		}
		if err := tx.Payments().UpdatePayment(ctx, failed); err != nil || !nonceUnused {
			return err
		}
		later, err := tx.Payments().ListQueuedPayments(ctx, failed.SourceWalletID, failed.SafeNonce, safepay.MaxQueued)
		if err != nil {
			return err
		}
		for _, l := range later {
			queued, err := tx.Payments().LockPayment(ctx, l.ID)
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
			if err := tx.Payments().UpdatePayment(ctx, gap); err != nil {
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
func (a *App) updatePayment(ctx context.Context, id string, change func(safepay.Payment) (safepay.Payment, error)) (safepay.Payment, error) {
	var out safepay.Payment
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Payments().LockPayment(ctx, id)
		if err != nil {
			return err
		}
		next, err := change(locked)
		if err != nil {
			return err
		}
		out = next
		return tx.Payments().UpdatePayment(ctx, next)
	})
	return out, err
}

// paymentByID loads a payment by id alone (jobs).
func (a *App) paymentByID(ctx context.Context, id string) (safepay.Payment, error) {
	var pay safepay.Payment
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		pay, err = tx.Payments().LockPayment(ctx, id)
		return err
	})
	return pay, err
}

// paymentChain is the chain a payment lives on, or CHAIN_UNAVAILABLE.
func (a *App) paymentChain(pay safepay.Payment) (ports.Chain, error) {
	chain, err := a.chains.Chain(pay.Environment)
	if err != nil {
		return nil, err
	}
	if chain.ChainID() != pay.ChainID {
		return nil, core.E(core.CodeChainUnavailable, "payment %s is on chain %d; %s is served by chain %d", pay.ID, pay.ChainID, pay.Environment, chain.ChainID())
	}
	return chain, nil
}

// enqueuePaymentExecution enqueues the execution job in the caller's transaction.
func (a *App) enqueuePaymentExecution(ctx context.Context, paymentID string) error {
	return a.jobs.Enqueue(ctx, ExecutePaymentArgs{PaymentID: paymentID}, ports.JobOptions{MaxAttempts: paymentJobMaxAttempts})
}

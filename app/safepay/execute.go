package safepay

import (
	"context"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/safepay"
	"corridor/core/tenant"
	"corridor/ports"
)

// Execute is the explicit execute: it moves a READY_TO_EXECUTE payment to EXECUTING
// under the payment's row lock and enqueues the job that relays it. Exactly one of any number
// of concurrent callers (and the auto-execute job) makes that move; the others get 409
// INVALID_STATE. A payment queued behind an earlier Safe nonce is refused with INVALID_STATE
// too: the Safe executes nonces in order.
func (s *Service) Execute(ctx context.Context, p auth.Principal, id, ownerAddress string) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsExecute); err != nil {
		return safepay.Payment{}, err
	}
	chain, err := s.chains.Chain(p.Environment)
	if err != nil {
		return safepay.Payment{}, err
	}
	pay, err := s.findPayment(ctx, p, id)
	if err != nil {
		return pay, err
	}
	if !pay.Can(safepay.TriggerExecute) {
		return pay.Apply(safepay.TriggerExecute, s.clock.Now())
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
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := lockCallerPayment(ctx, tx, p, pay.ID)
		if err != nil {
			return err
		}
		next, err := locked.Apply(safepay.TriggerExecute, s.clock.Now())
		if err != nil {
			return err
		}
		if err := tx.Payments().UpdatePayment(ctx, next); err != nil {
			return err
		}
		pay = next
		return s.enqueuePaymentExecution(ctx, next.ID)
	})
	return pay, err
}

// Cancel cancels a payment that has not been sent (CREATED, AWAITING_SIGNATURE or
// READY_TO_EXECUTE). Only the newest queued payment of a wallet can be cancelled: cancelling
// an earlier one would leave a Safe nonce that nothing uses, and no later payment could
// execute (safepay.Payment.Cancel). The wallet row is locked first, as propose does, so no
// payment is queued behind this one while it is being cancelled.
func (s *Service) Cancel(ctx context.Context, p auth.Principal, id, ownerAddress string) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return safepay.Payment{}, err
	}
	pay, err := s.findPayment(ctx, p, id)
	if err != nil {
		return pay, err
	}
	if ownerAddress != "" {
		chain, err := s.chains.Chain(p.Environment)
		if err != nil {
			return pay, err
		}
		if err := requirePaymentOwner(ctx, chain, pay, ownerAddress); err != nil {
			return pay, err
		}
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
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
		next, err := locked.Cancel(later, s.clock.Now())
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

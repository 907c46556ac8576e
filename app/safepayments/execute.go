package safepayments

import (
	"context"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// ExecutionRead is an explicit execute's chain reads (the optional owner, the Safe's nonce),
// made by ReadExecution outside any database transaction.
type ExecutionRead struct {
	tenantID  string
	paymentID string
}

// ReadExecution checks an explicit execute against the chain: the optional ownerAddress is an
// on-chain owner, no earlier Safe nonce is still pending, and the payment does not spend USDC
// that open card authorizations hold (checkHeld: 422 INSUFFICIENT_FUNDS, the payment unchanged). It must be called outside any
// unit of work.
func (s *Service) ReadExecution(ctx context.Context, p auth.Principal, id, ownerAddress string) (ExecutionRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsExecute); err != nil {
		return ExecutionRead{}, err
	}
	chain, err := s.chains.Chain(p.Environment)
	if err != nil {
		return ExecutionRead{}, err
	}
	pay, err := findActedPayment(ctx, s.store, p, id)
	if err != nil {
		return ExecutionRead{}, err
	}
	if !pay.Can(safepay.TriggerExecute) {
		_, err := pay.Apply(safepay.TriggerExecute, s.clock.Now())
		return ExecutionRead{}, err
	}
	if err := requirePaymentOwner(ctx, chain, pay, ownerAddress); err != nil {
		return ExecutionRead{}, err
	}
	chainNonce, err := chain.SafeNonce(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return ExecutionRead{}, paymentChainError("reading the Safe's nonce", err)
	}
	if pay.WaitingFor(chainNonce) {
		return ExecutionRead{}, core.E(core.CodeInvalidState,
			"payment %s holds Safe nonce %d but the Safe is at nonce %d: the earlier payments must execute first; this one then executes automatically",
			pay.ID, pay.SafeNonce, chainNonce).
			WithDetails(map[string]any{"status": string(pay.Status), "safeNonce": pay.SafeNonce, "currentSafeNonce": chainNonce})
	}
	if err := checkHeld(ctx, s.store, chain, pay); err != nil {
		return ExecutionRead{}, err
	}
	return ExecutionRead{tenantID: p.TenantID, paymentID: pay.ID}, nil
}

// Execute is the explicit execute: it moves a READY_TO_EXECUTE payment to EXECUTING
// under the payment's row lock and enqueues the job that relays it. Exactly one of any number
// of concurrent callers (and the auto-execute job) makes that move; the others get 409
// INVALID_STATE. A payment queued behind an earlier Safe nonce was refused with INVALID_STATE
// by ReadExecution: the Safe executes nonces in order.
func (s *Service) Execute(ctx context.Context, p auth.Principal, read ExecutionRead) (safepay.Payment, error) {
	if err := checkRead(p, auth.ScopePaymentsExecute, read.tenantID); err != nil {
		return safepay.Payment{}, err
	}
	var pay safepay.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := lockCallerPayment(ctx, tx, p, read.paymentID)
		if err != nil {
			return err
		}
		next, err := locked.Apply(safepay.TriggerExecute, s.clock.Now())
		if err != nil {
			return err
		}
		if err := s.savePayment(ctx, tx, next, false); err != nil {
			return err
		}
		pay = next
		return s.enqueuePaymentExecution(ctx, next.TenantID, next.ID)
	})
	return pay, err
}

// CancelRead is a cancel's optional owner check against the chain, made by ReadCancel outside
// any database transaction.
type CancelRead struct {
	tenantID  string
	paymentID string
}

// ReadCancel checks a cancel's optional ownerAddress against the Safe's on-chain owners. It
// must be called outside any unit of work.
func (s *Service) ReadCancel(ctx context.Context, p auth.Principal, id, ownerAddress string) (CancelRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return CancelRead{}, err
	}
	pay, err := findActedPayment(ctx, s.store, p, id)
	if err != nil {
		return CancelRead{}, err
	}
	if strings.TrimSpace(ownerAddress) != "" {
		chain, err := s.chains.Chain(p.Environment)
		if err != nil {
			return CancelRead{}, err
		}
		if err := requirePaymentOwner(ctx, chain, pay, ownerAddress); err != nil {
			return CancelRead{}, err
		}
	}
	return CancelRead{tenantID: p.TenantID, paymentID: pay.ID}, nil
}

// Cancel cancels a payment that has not been sent (CREATED, AWAITING_SIGNATURE, SIGNING or
// READY_TO_EXECUTE). When later payments of the wallet are queued behind it, its Safe nonce is
// taken over by a rejection transaction proposed in the same unit of work
// (safepay.Payment.Cancel): the owners sign that one like any payment (a custodial wallet's
// custody key signs it by itself), and once it executes every later payment executes with the
// signatures it already has. The wallet row is locked first, as propose does, so no payment is
// queued behind this one while it is being cancelled.
func (s *Service) Cancel(ctx context.Context, p auth.Principal, read CancelRead) (safepay.Payment, error) {
	if err := checkRead(p, auth.ScopePaymentsCreate, read.tenantID); err != nil {
		return safepay.Payment{}, err
	}
	found, err := s.findPayment(ctx, p, read.paymentID)
	if err != nil {
		return found, err
	}
	// The closure reads found and writes only pay, so a retried run starts from the row read
	// above, never from what a rolled-back run made of it.
	pay := found
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err := tx.Wallets().LockWallet(ctx, found.TenantID, found.SourceWalletID)
		if err != nil {
			return err
		}
		locked, err := lockCallerPayment(ctx, tx, p, found.ID)
		if err != nil {
			return err
		}
		later, err := tx.Payments().ListQueuedPayments(ctx, locked.TenantID, locked.SourceWalletID, locked.SafeNonce, safepay.MaxQueued)
		if err != nil {
			return err
		}
		next, rejection, err := locked.Cancel(later, core.NewID(core.PrefixPayment), s.clock.Now())
		if err != nil {
			return err
		}
		pay = next
		if err := s.savePayment(ctx, tx, next, false); err != nil || rejection == nil {
			return err
		}
		if err := s.savePayment(ctx, tx, *rejection, true); err != nil {
			return err
		}
		if w.CustodyKeyRef != "" {
			return s.enqueueCustodySignature(ctx, rejection.TenantID, rejection.ID)
		}
		return nil
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

package safepayments

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// Get returns one of the caller's payments.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return safepay.Payment{}, err
	}
	return s.findPayment(ctx, p, id)
}

// List lists the caller's payments in its environment, newest first.
func (s *Service) List(ctx context.Context, p auth.Principal, page ports.Page) ([]safepay.Payment, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return nil, 0, err
	}
	var out []safepay.Payment
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Payments().ListPayments(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// findPayment loads a payment of the caller's tenant and environment (else PAYMENT_NOT_FOUND).
func (s *Service) findPayment(ctx context.Context, p auth.Principal, id string) (safepay.Payment, error) {
	var pay safepay.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		pay, err = tx.Payments().FindPayment(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return pay, err
}

// findActedPayment is findPayment for a step on the payment (sign, execute, cancel): an agent
// key acts only on its own agent's wallet's payments, as it proposes only from it
// (kernel.RequireAgentWallet: 403 INSUFFICIENT_SCOPE, details.reason AGENT_WALLET_ONLY).
func findActedPayment(ctx context.Context, store kernel.Units[txView], p auth.Principal, id string) (safepay.Payment, error) {
	var pay safepay.Payment
	err := store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if pay, err = tx.Payments().FindPayment(ctx, p.TenantID, p.Environment, strings.TrimSpace(id)); err != nil {
			return err
		}
		return kernel.RequireAgentWallet(ctx, tx.Agents(), p, pay.SourceWalletID)
	})
	return pay, err
}

// lockCallerPayment locks a payment by id and checks it is the caller's, so another tenant's
// payment answers exactly like a missing one.
func lockCallerPayment(ctx context.Context, tx txView, p auth.Principal, id string) (safepay.Payment, error) {
	pay, err := tx.Payments().LockPayment(ctx, p.TenantID, id)
	if err == nil && (pay.TenantID != p.TenantID || pay.Environment != p.Environment) {
		return safepay.Payment{}, core.NotFound(safepay.CodePaymentNotFound, "payment")
	}
	return pay, err
}

// paymentChainError reports a chain read that failed as CHAIN_UNAVAILABLE (retryable, 503),
// without the node's error text.
func paymentChainError(what string, err error) error {
	if err == nil {
		return nil
	}
	return core.E(core.CodeChainUnavailable, "the chain node did not answer (%s); retry shortly", what).Transient(core.RetryDependency)
}

// checkRead is the start of every apply step of a prepared use case: the caller holds scope, and
// the chain read was made for the caller's tenant (a read made for another caller, or none at
// all, is a programming error).
func checkRead(p auth.Principal, scope auth.Scope, readTenantID string) error {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return err
	}
	if readTenantID == "" || readTenantID != p.TenantID {
		return core.E(core.CodeInternal, "a chain read was used for another caller")
	}
	return nil
}

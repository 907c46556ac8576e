package safepayments

import (
	"context"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
)

// Sign adds one owner's signature: 65 bytes r ‖ s ‖ v (v 27 or 28) over the raw
// safeTxHash, no EIP-191 prefix (docs/api.md Authentication 9). Refusals:
//   - malformed hex, wrong length, v 0/1, an eth_sign v 31/32, or a personal_sign signature:
//     400 VALIDATION_FAILED on field "signature" with details.reason;
//   - a signature that recovers to an address that is not an on-chain owner: 422
//     SIGNER_NOT_OWNER with details.signer;
//   - an owner signing twice: 409 SIGNATURE_DUPLICATE.
//
// The signature is verified against the Safe's on-chain owners by ReadSignature, before any
// transaction (the HTTP adapter runs it before the runner's unit of work). Sign then locks the
// payment row, so concurrent signatures are applied one at a time, and re-checks the status
// under the lock. The one that reaches the threshold moves the payment to READY_TO_EXECUTE and
// enqueues its execution in the same transaction (auto-execute).
func (s *Service) Sign(ctx context.Context, p auth.Principal, read SignatureRead) (safepay.Payment, error) {
	if err := checkRead(p, auth.ScopePaymentsCreate, read.tenantID); err != nil {
		return safepay.Payment{}, err
	}
	var pay safepay.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := lockCallerPayment(ctx, tx, p, read.paymentID)
		if err != nil {
			return err
		}
		w, err := tx.Wallets().FindWallet(ctx, locked.TenantID, locked.Environment, locked.SourceWalletID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		escrow := w.Purpose == wallet.PurposeEscrow
		next, err := locked.AddSignature(safepay.Signature{Signer: read.signer.Hex(), Value: read.signature, SignedAt: now}, now, escrow)
		if err != nil {
			return err
		}
		if err := s.savePayment(ctx, tx, next, false); err != nil {
			return err
		}
		pay = next
		if next.Status == safepay.StatusReadyToExecute {
			// The signature that makes the payment executable charges its one relayer-paid
			// execution; past the budget it is refused and not recorded.
			if err := s.relayerBudget.Charge(ctx, tx, p.TenantID, p.Environment, now); err != nil {
				return err
			}
			return s.enqueuePaymentExecution(ctx, next.TenantID, next.ID)
		}
		return nil
	})
	return pay, err
}

// SignatureRead is a signature verified against the Safe's on-chain owners, made by
// ReadSignature outside any database transaction.
type SignatureRead struct {
	tenantID  string
	paymentID string
	signer    common.Address
	signature string
}

// ReadSignature validates a signature and verifies it against the Safe's on-chain owners. It
// must be called outside any unit of work: it reads the chain.
func (s *Service) ReadSignature(ctx context.Context, p auth.Principal, id, signature string) (SignatureRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return SignatureRead{}, err
	}
	signature = strings.TrimSpace(signature)
	if signature == "" {
		return SignatureRead{}, core.Invalid("signature", "is required: 0x followed by 130 hex digits (r ‖ s ‖ v)")
	}
	if _, err := safe.ParseSignature(signature); err != nil {
		return SignatureRead{}, err
	}
	chain, err := s.chains.Chain(p.Environment)
	if err != nil {
		return SignatureRead{}, err
	}
	pay, err := findActedPayment(ctx, s.store, p, id)
	if err != nil {
		return SignatureRead{}, err
	}
	if !pay.Status.TakesSignatures() {
		return SignatureRead{}, core.E(core.CodeInvalidState, "payment %s is %s: it takes no more signatures", pay.ID, pay.Status).
			WithDetails(map[string]any{"status": string(pay.Status)})
	}
	owners, err := chain.SafeOwners(ctx, common.HexToAddress(pay.SafeAddress))
	if err != nil {
		return SignatureRead{}, paymentChainError("reading the Safe's owners", err)
	}
	signer, sig, err := safe.VerifyOwnerSignature(common.HexToHash(pay.SafeTxHash), signature, owners)
	if err != nil {
		return SignatureRead{}, notOwnerError(err, pay)
	}
	return SignatureRead{tenantID: p.TenantID, paymentID: pay.ID, signer: signer, signature: sig.Hex()}, nil
}

// notOwnerError answers a signature by a key that is not an owner with SIGNER_NOT_OWNER (422):
// the signature is well formed, the business rule refuses it. Other refusals stay
// VALIDATION_FAILED on "signature" with their reason.
func notOwnerError(err error, pay safepay.Payment) error {
	var se *safe.SignatureError
	if !errors.As(err, &se) || se.Problem != safe.ProblemNotOwner {
		return err
	}
	return core.E(safepay.CodeSignerNotOwner, "the signature recovers to %s, which is not an owner of the Safe %s", se.Signer.Hex(), pay.SafeAddress).
		WithDetails(map[string]any{"field": "signature", "reason": string(se.Problem), "signer": se.Signer.Hex()})
}

package safepay

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/safepay"
	"corridor/core/wallet"
	"corridor/ports"
)

// Propose records a Safe payment from one of the caller's DEPLOYED wallets and returns
// it AWAITING_SIGNATURE with the safeTxHash its owners sign (SPEC.md Safe payments).
//
// The chain is read first, outside any transaction of this use case: the Safe's nonce and
// threshold. The unit of work then locks the source wallet, so concurrent proposals of one
// wallet take consecutive nonces, resolves the destination and picks the nonce with
// safepay.NextNonce.
func (s *Service) Propose(ctx context.Context, p auth.Principal, in safepay.Request) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return safepay.Payment{}, err
	}
	order, err := safepay.ParseOrder(in)
	if err != nil {
		return safepay.Payment{}, err
	}
	chain, err := s.chains.Chain(p.Environment)
	if err != nil {
		return safepay.Payment{}, err
	}
	w, err := s.paymentSourceWallet(ctx, p, order.SourceWalletID)
	if err != nil {
		return safepay.Payment{}, err
	}
	safeAddress := common.HexToAddress(w.Address)
	chainNonce, err := chain.SafeNonce(ctx, safeAddress)
	if err != nil {
		return safepay.Payment{}, paymentChainError("reading the Safe's nonce", err)
	}
	threshold, err := chain.SafeThreshold(ctx, safeAddress)
	if err != nil {
		return safepay.Payment{}, paymentChainError("reading the Safe's threshold", err)
	}

	// Spend policy (POLICY_DENIED) is evaluated inside the unit of work below, once the
	// destination is resolved (its address is the policy's counterparty): see the policy gate.
	// Agent limits (AGENT_LIMIT, AGENT_SUSPENDED) are not checked yet.

	var pay safepay.Payment
	var denied *core.Error
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		denied = nil
		locked, err := tx.Wallets().LockWallet(ctx, w.ID)
		if err != nil {
			return err
		}
		dest, err := s.resolveDestination(ctx, tx, p, locked, order.Destination)
		if err != nil {
			return err
		}
		highest, inUse, err := tx.Payments().HighestNonceInUse(ctx, locked.ID)
		if err != nil {
			return err
		}
		nonce := safepay.NextNonce(chainNonce, highest, inUse)
		if safepay.QueueFull(nonce, chainNonce) {
			return core.E(safepay.CodeQueueFull, "wallet %s already has %d payments queued behind the Safe's nonce %d; execute or cancel some first",
				locked.ID, safepay.MaxQueued, chainNonce)
		}
		pay, err = safepay.Propose(safepay.Proposal{
			ID: core.NewID(core.PrefixPayment), TenantID: p.TenantID, Environment: p.Environment,
			SourceWalletID: locked.ID, SafeAddress: safeAddress.Hex(), ChainID: locked.ChainID,
			Token: chain.USDCAddress(), Order: order,
			DestinationAddress: dest.address, DestinationWallet: dest.walletID, DestinationChainID: dest.chainID,
			Nonce: nonce, Threshold: threshold, Now: s.clock.Now(),
		})
		if err != nil {
			return err
		}
		// In enforce mode a deny records the payment FAILED (failureReason POLICY_DENIED: …)
		// and commits it with its decision log; the caller then gets 403 POLICY_DENIED.
		if denied, err = s.policyGate.GateSafePayment(ctx, p, pay); err != nil {
			return err
		}
		if denied != nil {
			if pay, err = policyDeniedPayment(pay, denied, s.clock.Now()); err != nil {
				return err
			}
		}
		return tx.Payments().CreatePayment(ctx, pay)
	})
	if err == nil && denied != nil {
		return pay, denied
	}
	return pay, err
}

// paymentSourceWallet loads the caller's wallet and insists it is deployed: a Safe that does not
// exist yet has no nonce to sign for and cannot execute (docs/decisions.md, "Safe payments").
func (s *Service) paymentSourceWallet(ctx context.Context, p auth.Principal, id string) (wallet.Wallet, error) {
	var w wallet.Wallet
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		w, err = tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, id)
		return err
	})
	if err != nil {
		return w, err
	}
	if w.Status != wallet.StatusDeployed {
		return w, core.E(core.CodeInvalidState, "wallet %s is %s: payments can be proposed once it is DEPLOYED", w.ID, w.Status).
			WithDetails(map[string]any{"walletStatus": string(w.Status)})
	}
	return w, nil
}

// ReasonPolicyDenied starts the failureReason of a payment the policy blocked in enforce mode
// ("POLICY_DENIED: <rule code> ...", the machine-code-then-explanation form of safepay).
const ReasonPolicyDenied = "POLICY_DENIED"

// policyDeniedPayment is the FAILED record of a payment the policy blocked: it keeps what was
// asked for, gives up its Safe nonce (failed payments hold none) and has nothing to sign.
func policyDeniedPayment(pay safepay.Payment, denied *core.Error, now time.Time) (safepay.Payment, error) {
	reason, _ := denied.Details["reason"].(string)
	failed, err := pay.Fail(ReasonPolicyDenied+": "+reason+": "+denied.Message, now)
	failed.SafeTxHash = ""
	return failed, err
}

package app

import (
	"context"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/safepay"
	"corridor/core/tenant"
	"corridor/core/wallet"
	"corridor/ports"
)

// Bounds of destination resolution by email: the members and wallets of a tenant looked at.
const (
	paymentMemberPages     = 10 // pages of ports.MaxTake members
	paymentTenantWalletCap = 1000
)

// ProposePayment records a Safe payment from one of the caller's DEPLOYED wallets and returns
// it AWAITING_SIGNATURE with the safeTxHash its owners sign (SPEC.md Safe payments).
//
// The chain is read first, outside any transaction of this use case: the Safe's nonce and
// threshold. The unit of work then locks the source wallet, so concurrent proposals of one
// wallet take consecutive nonces, resolves the destination and picks the nonce with
// safepay.NextNonce.
func (a *App) ProposePayment(ctx context.Context, p auth.Principal, in safepay.Request) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return safepay.Payment{}, err
	}
	order, err := safepay.ParseOrder(in)
	if err != nil {
		return safepay.Payment{}, err
	}
	chain, err := a.chains.Chain(p.Environment)
	if err != nil {
		return safepay.Payment{}, err
	}
	w, err := a.paymentSourceWallet(ctx, p, order.SourceWalletID)
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
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		denied = nil
		locked, err := tx.Wallets().LockWallet(ctx, w.ID)
		if err != nil {
			return err
		}
		dest, err := a.resolveDestination(ctx, tx, p, locked, order.Destination)
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
			Nonce: nonce, Threshold: threshold, Now: a.clock.Now(),
		})
		if err != nil {
			return err
		}
		// In enforce mode a deny records the payment FAILED (failureReason POLICY_DENIED: …)
		// and commits it with its decision log; the caller then gets 403 POLICY_DENIED.
		if denied, err = a.policyGate.GateSafePayment(ctx, p, pay); err != nil {
			return err
		}
		if denied != nil {
			if pay, err = policyDeniedPayment(pay, denied, a.clock.Now()); err != nil {
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
func (a *App) paymentSourceWallet(ctx context.Context, p auth.Principal, id string) (wallet.Wallet, error) {
	var w wallet.Wallet
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
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

// resolvedDestination is where a payment's USDC goes.
type resolvedDestination struct {
	address  string // EIP-55
	chainID  int64
	walletID string // "" for an address destination
}

// resolveDestination turns the destination union into an address on the source wallet's chain.
func (a *App) resolveDestination(ctx context.Context, tx ports.Tx, p auth.Principal, source wallet.Wallet, d safepay.Destination) (resolvedDestination, error) {
	switch d.Type {
	case safepay.DestinationAddress:
		return resolvedDestination{address: d.Address, chainID: d.ChainID}, nil
	case safepay.DestinationWallet:
		w, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, d.WalletID)
		if err != nil {
			return resolvedDestination{}, unresolved(err, "destination.walletId", "WALLET_NOT_FOUND", "no wallet %s in this tenant and environment", d.WalletID)
		}
		return walletDestination(w), nil
	case safepay.DestinationHandle:
		h, err := tx.Handles().FindHandle(ctx, p.Environment, d.Handle)
		if err != nil {
			return resolvedDestination{}, unresolved(err, "destination.handle", "HANDLE_NOT_FOUND", "no handle %q in the directory of this environment", d.Handle)
		}
		w, err := tx.Wallets().FindWallet(ctx, h.TenantID, p.Environment, h.WalletID)
		if err != nil {
			return resolvedDestination{}, unresolved(err, "destination.handle", "WALLET_NOT_FOUND", "handle %q names a wallet that no longer exists", d.Handle)
		}
		return walletDestination(w), nil
	case safepay.DestinationEmail:
		return a.resolveEmail(ctx, tx, p, source, d.Email)
	}
	return resolvedDestination{}, core.Invalid("destination.type", "must be one of handle, email, address, wallet")
}

func walletDestination(w wallet.Wallet) resolvedDestination {
	return resolvedDestination{address: w.Address, chainID: w.ChainID, walletID: w.ID}
}

// resolveEmail finds the wallet of a member of the caller's tenant: an ACTIVE member with that
// email and a signer address, and the oldest wallet of this environment and chain (other than
// the source) whose owners include that signer.
func (a *App) resolveEmail(ctx context.Context, tx ports.Tx, p auth.Principal, source wallet.Wallet, email string) (resolvedDestination, error) {
	member, err := findActiveMember(ctx, tx, p.TenantID, email)
	if err != nil {
		return resolvedDestination{}, err
	}
	if member == nil {
		return resolvedDestination{}, destinationError("destination.email", "EMAIL_NOT_A_MEMBER",
			"%s is not an active member of this tenant; pay an address or a handle instead", email)
	}
	if member.SignerAddress == "" {
		return resolvedDestination{}, destinationError("destination.email", "MEMBER_HAS_NO_SIGNER",
			"member %s has no signer address, so no wallet can be theirs", email)
	}
	wallets, err := tx.Wallets().ListTenantWallets(ctx, p.TenantID, paymentTenantWalletCap)
	if err != nil {
		return resolvedDestination{}, err
	}
	var found *wallet.Wallet
	for i, w := range wallets {
		if w.Environment != p.Environment || w.ChainID != source.ChainID || w.ID == source.ID || !w.HasOwner(member.SignerAddress) {
			continue
		}
		if found == nil || w.CreatedAt.Before(found.CreatedAt) {
			found = &wallets[i]
		}
	}
	if found == nil {
		return resolvedDestination{}, destinationError("destination.email", "MEMBER_HAS_NO_WALLET",
			"member %s (signer %s) owns no wallet of this tenant on chain %d other than the source", email, member.SignerAddress, source.ChainID)
	}
	return walletDestination(*found), nil
}

// findActiveMember pages through the tenant's members (bounded) for an ACTIVE one with email.
func findActiveMember(ctx context.Context, tx ports.Tx, tenantID, email string) (*tenant.Member, error) {
	for page := 0; page < paymentMemberPages; page++ {
		members, total, err := tx.Members().ListMembers(ctx, tenantID, ports.Page{Skip: page * ports.MaxTake, Take: ports.MaxTake})
		if err != nil {
			return nil, err
		}
		for i, m := range members {
			if m.Status == tenant.MemberActive && strings.EqualFold(m.Email, email) {
				return &members[i], nil
			}
		}
		if (page+1)*ports.MaxTake >= total {
			break
		}
	}
	return nil, nil
}

// unresolved turns a repository's not-found into DESTINATION_NOT_RESOLVED; other errors pass.
func unresolved(err error, field, reason, format string, args ...any) error {
	var de *core.Error
	if errors.As(err, &de) && strings.HasSuffix(string(de.Code), "_NOT_FOUND") {
		return destinationError(field, reason, format, args...)
	}
	return err
}

func destinationError(field, reason, format string, args ...any) error {
	return core.E(safepay.CodeDestinationNotResolved, format, args...).
		WithDetails(map[string]any{"field": field, "reason": reason})
}

// GetPayment returns one of the caller's payments.
func (a *App) GetPayment(ctx context.Context, p auth.Principal, id string) (safepay.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return safepay.Payment{}, err
	}
	return a.findPayment(ctx, p, id)
}

// ListPayments lists the caller's payments in its environment, newest first.
func (a *App) ListPayments(ctx context.Context, p auth.Principal, page ports.Page) ([]safepay.Payment, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return nil, 0, err
	}
	var out []safepay.Payment
	var total int
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Payments().ListPayments(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// findPayment loads a payment of the caller's tenant and environment (else PAYMENT_NOT_FOUND).
func (a *App) findPayment(ctx context.Context, p auth.Principal, id string) (safepay.Payment, error) {
	var pay safepay.Payment
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		pay, err = tx.Payments().FindPayment(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return pay, err
}

// lockCallerPayment locks a payment by id and checks it is the caller's, so another tenant's
// payment answers exactly like a missing one.
func lockCallerPayment(ctx context.Context, tx ports.Tx, p auth.Principal, id string) (safepay.Payment, error) {
	pay, err := tx.Payments().LockPayment(ctx, id)
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
	return core.E(core.CodeChainUnavailable, "the chain node did not answer (%s); retry shortly", what)
}

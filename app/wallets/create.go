package wallets

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// CreateWalletInput is the body of POST /v1/wallets.
type CreateWalletInput struct {
	Name      string
	Owners    []wallet.OwnerInput
	Threshold *int
	ChainID   *int64
	// Purpose is set by a capability provisioning a wallet for its own use (an agent's Safe, a
	// treasury bucket); "" is GENERAL, what POST /v1/wallets creates.
	Purpose wallet.Purpose
	// custodyKeyRef is the custody key owning a custodial wallet (CreateCustodialWallet).
	custodyKeyRef string
}

// CreateWallet validates the definition, predicts the Safe's CREATE2 address (a pure
// computation, no network call) and, in one transaction, stores the wallet as
// PENDING_DEPLOYMENT and enqueues its deployment job. The address is final at once: funds sent
// to it before deployment belong to the Safe once deployed.
func (s *Service) CreateWallet(ctx context.Context, p auth.Principal, in CreateWalletInput) (wallet.Wallet, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsWrite); err != nil {
		return wallet.Wallet{}, err
	}
	def, err := wallet.Define(p.Environment, in.Name, in.Owners, in.Threshold, in.ChainID)
	if err != nil {
		return wallet.Wallet{}, err
	}
	purpose := in.Purpose
	if purpose == "" {
		purpose = wallet.PurposeGeneral
	}
	if !purpose.Valid() {
		return wallet.Wallet{}, core.E(core.CodeInternal, "wallets: unknown purpose %q", purpose)
	}
	chain, err := s.chains.ChainFor(p.Environment, def.ChainID)
	if err != nil {
		return wallet.Wallet{}, err
	}
	now := s.clock.Now()
	w := wallet.Wallet{
		ID: core.NewID(core.PrefixWallet), TenantID: p.TenantID, Environment: p.Environment, Name: def.Name, Purpose: purpose,
		ChainID: def.ChainID, Owners: def.Owners, Threshold: def.Threshold,
		Status: wallet.StatusPendingDeployment, CreatedAt: now,
		SetupModule:   setupModuleFor(p.Environment, s.cardModules.Module(p.Environment)),
		CustodyKeyRef: in.custodyKeyRef,
	}
	address, err := chain.PredictSafeAddress(safeConfigOf(w))
	if err != nil {
		return wallet.Wallet{}, err // VALIDATION_FAILED from Safe's own rules (zero or sentinel owner)
	}
	w.Address = address.Hex()
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		n, err := tx.Wallets().CountWalletsLocked(ctx, w.TenantID, w.Environment)
		if err != nil {
			return err
		}
		if n >= s.walletQuota() {
			return core.E(wallet.CodeWalletQuotaExceeded, "a tenant holds at most %d wallets per environment", s.walletQuota())
		}
		if err := s.relayerBudget.Charge(ctx, tx, w.TenantID, w.Environment, now); err != nil {
			return err
		}
		if err := tx.Wallets().CreateWallet(ctx, w); err != nil {
			return err
		}
		return s.jobs.Enqueue(ctx, DeployWalletArgs{TenantID: w.TenantID, WalletID: w.ID}, ports.JobOptions{MaxAttempts: deployJobMaxAttempts})
	})
	return w, err
}

// walletQuota is the per-tenant, per-environment wallet limit (Deps.MaxWalletsPerTenant, else
// wallet.MaxWalletsPerTenant).
func (s *Service) walletQuota() int {
	if s.maxWalletsPerTenant > 0 {
		return s.maxWalletsPerTenant
	}
	return wallet.MaxWalletsPerTenant
}

// setupModuleFor is the module a new wallet's Safe enables in its setup: the card spend module
// on TEST wallets when the environment's chain has one (card issuance is sandbox-only), none on
// LIVE wallets ever. The wallet records it, since it is part of the Safe's address.
func setupModuleFor(env core.Environment, module ports.CardSpendModule) string {
	if env != core.EnvTest || module == nil || module.CardModuleAddress() == (common.Address{}) {
		return ""
	}
	return module.CardModuleAddress().Hex()
}

// safeConfigOf is the Safe a wallet deploys to. The salt nonce derives from the id, the adapter
// encodes owners sorted, and the setup module is the one recorded at creation (none for wallets
// created before modules were enabled at setup), so the address depends only on the wallet.
func safeConfigOf(w wallet.Wallet) ports.SafeConfig {
	owners := make([]common.Address, len(w.Owners))
	for i, o := range w.Owners {
		owners[i] = common.HexToAddress(o.Address)
	}
	cfg := ports.SafeConfig{Owners: owners, Threshold: w.Threshold, SaltNonce: safe.SaltNonceFor(w.ID)}
	if w.SetupModule != "" {
		cfg.SetupModule = common.HexToAddress(w.SetupModule)
	}
	return cfg
}

package app

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/safe"
	"corridor/core/wallet"
	"corridor/ports"
)

// CreateWalletInput is the body of POST /v1/wallets.
type CreateWalletInput struct {
	Name      string
	Owners    []wallet.OwnerInput
	Threshold *int
	ChainID   *int64
}

// CreateWallet validates the definition, predicts the Safe's CREATE2 address (a pure
// computation, no network call) and, in one transaction, stores the wallet as
// PENDING_DEPLOYMENT and enqueues its deployment job. The address is final at once: funds sent
// to it before deployment belong to the Safe once deployed.
func (a *App) CreateWallet(ctx context.Context, p auth.Principal, in CreateWalletInput) (wallet.Wallet, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsWrite); err != nil {
		return wallet.Wallet{}, err
	}
	def, err := wallet.Define(p.Environment, in.Name, in.Owners, in.Threshold, in.ChainID)
	if err != nil {
		return wallet.Wallet{}, err
	}
	chain, err := a.chainFor(p.Environment, def.ChainID)
	if err != nil {
		return wallet.Wallet{}, err
	}
	now := a.clock.Now()
	w := wallet.Wallet{
		ID: core.NewID(core.PrefixWallet), TenantID: p.TenantID, Environment: p.Environment, Name: def.Name,
		ChainID: def.ChainID, Owners: def.Owners, Threshold: def.Threshold,
		Status: wallet.StatusPendingDeployment, CreatedAt: now,
	}
	address, err := chain.PredictSafeAddress(safeConfigOf(w))
	if err != nil {
		return wallet.Wallet{}, err // VALIDATION_FAILED from Safe's own rules (zero or sentinel owner)
	}
	w.Address = address.Hex()
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		n, err := tx.Wallets().CountWalletsLocked(ctx, w.TenantID, w.Environment)
		if err != nil {
			return err
		}
		if n >= a.walletQuota() {
			return core.E(wallet.CodeWalletQuotaExceeded, "a tenant holds at most %d wallets per environment", a.walletQuota())
		}
		if err := tx.Wallets().CreateWallet(ctx, w); err != nil {
			return err
		}
		return a.jobs.Enqueue(ctx, DeployWalletArgs{WalletID: w.ID}, ports.JobOptions{MaxAttempts: deployJobMaxAttempts})
	})
	return w, err
}

// walletQuota is the per-tenant, per-environment wallet limit (Deps.MaxWalletsPerTenant, else
// wallet.MaxWalletsPerTenant).
func (a *App) walletQuota() int {
	if a.maxWalletsPerTenant > 0 {
		return a.maxWalletsPerTenant
	}
	return wallet.MaxWalletsPerTenant
}

// chainFor is the environment's chain, which must be the chain the wallet names.
func (a *App) chainFor(env core.Environment, chainID int64) (ports.Chain, error) {
	chain, err := a.chains.Chain(env)
	if err != nil {
		return nil, err
	}
	if chain.ChainID() != chainID {
		return nil, core.E(core.CodeChainUnavailable, "chain %d is not served in %s by this deployment (it serves %d)", chainID, env, chain.ChainID())
	}
	return chain, nil
}

// safeConfigOf is the Safe a wallet deploys to. The salt nonce derives from the id, and the
// adapter encodes owners sorted, so the address depends only on the wallet.
func safeConfigOf(w wallet.Wallet) ports.SafeConfig {
	owners := make([]common.Address, len(w.Owners))
	for i, o := range w.Owners {
		owners[i] = common.HexToAddress(o.Address)
	}
	return ports.SafeConfig{Owners: owners, Threshold: w.Threshold, SaltNonce: safe.SaltNonceFor(w.ID)}
}

// ListWallets lists the caller's wallets in its environment, oldest first.
func (a *App) ListWallets(ctx context.Context, p auth.Principal, page ports.Page) ([]wallet.Wallet, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead); err != nil {
		return nil, 0, err
	}
	var out []wallet.Wallet
	var total int
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Wallets().ListWallets(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// Balance is one live on-chain balance of a wallet, in the asset's base units.
type Balance struct {
	Asset           wallet.Asset
	AmountBaseUnits *big.Int
}

// WalletView is a wallet with its live balances. Balances is nil when the chain could not be
// read: the wallet itself is still returned (docs/decisions.md, "Wallets and faucet").
type WalletView struct {
	Wallet   wallet.Wallet
	Balances []Balance
}

// balanceReadTimeout bounds the chain reads of one get-one request.
const balanceReadTimeout = 5 * time.Second

// GetWallet returns a wallet with its USDC and ETH balances read live from the chain, after
// the database transaction has ended.
func (a *App) GetWallet(ctx context.Context, p auth.Principal, id string) (WalletView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead); err != nil {
		return WalletView{}, err
	}
	w, err := a.findWallet(ctx, p, id)
	if err != nil {
		return WalletView{}, err
	}
	return WalletView{Wallet: w, Balances: a.readBalances(ctx, w)}, nil
}

func (a *App) findWallet(ctx context.Context, p auth.Principal, id string) (wallet.Wallet, error) {
	var w wallet.Wallet
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		w, err = tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, id)
		return err
	})
	return w, err
}

// readBalances reads USDC and ETH at the wallet's address (deployed or not), or nil.
func (a *App) readBalances(ctx context.Context, w wallet.Wallet) []Balance {
	chain, err := a.chainFor(w.Environment, w.ChainID)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, balanceReadTimeout)
	defer cancel()
	address := common.HexToAddress(w.Address)
	usdc, err := chain.USDCBalance(ctx, address)
	if err != nil {
		return nil
	}
	eth, err := chain.ETHBalance(ctx, address)
	if err != nil {
		return nil
	}
	return []Balance{{Asset: wallet.AssetUSDC, AmountBaseUnits: usdc}, {Asset: wallet.AssetETH, AmountBaseUnits: eth}}
}

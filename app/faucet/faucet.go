package faucet

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// FundInput is the body of POST /v1/wallets/{id}/fund; nil fields take the faucet's defaults.
type FundInput struct {
	Asset  *string
	Amount *string
}

// dripJobMaxAttempts bounds faucet job runs that end in an error.
const dripJobMaxAttempts = 8

// DripArgs is the durable job that sends one drip and confirms it.
type DripArgs struct {
	// TenantID routes the job's reads to the drip's shard; empty in a job enqueued before jobs
	// carried it (the repository then finds the drip by id alone).
	TenantID string `json:"tenantId,omitempty"`
	DripID   string `json:"dripId"`
}

// Kind names the job.
func (DripArgs) Kind() string { return "faucet.drip" }

func sandboxOnly(env core.Environment) error {
	if env != core.EnvTest {
		return core.E(core.CodeSandboxOnly, "the faucet is sandbox only: use a TEST key; live wallets are funded by a USDC transfer to their address on chain 8453")
	}
	return nil
}

// FundWallet records a SUBMITTED drip for a TEST wallet and enqueues the job that mints USDC or
// sends ETH, in one transaction. Drips are rate limited per wallet and per tenant over a rolling
// window counted in the database; the tenant's faucet lock makes counting and inserting atomic.
// The wallet need not be deployed: its address is final.
func (s *Service) FundWallet(ctx context.Context, p auth.Principal, walletID string, in FundInput) (wallet.Drip, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsFund); err != nil {
		return wallet.Drip{}, err
	}
	if err := sandboxOnly(p.Environment); err != nil {
		return wallet.Drip{}, err
	}
	req, err := wallet.ParseDripRequest(in.Asset, in.Amount)
	if err != nil {
		return wallet.Drip{}, err
	}
	var d wallet.Drip
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err := s.fundableWallet(ctx, tx, p, walletID)
		if err != nil {
			return err
		}
		if err := tx.Drips().LockFaucet(ctx, p.TenantID); err != nil {
			return err
		}
		now := s.clock.Now()
		if err := s.checkFaucetQuota(ctx, tx.Drips(), w, now); err != nil {
			return err
		}
		d = newDrip(w, req.Asset, req.AmountBaseUnits, now)
		return s.createDrip(ctx, tx, d)
	})
	return d, err
}

// fundableWallet is the caller's wallet the faucet may fund: a TEST wallet that did not fail
// to deploy, on the chain this deployment serves.
func (s *Service) fundableWallet(ctx context.Context, tx txView, p auth.Principal, walletID string) (wallet.Wallet, error) {
	w, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, walletID)
	if err != nil {
		return wallet.Wallet{}, err
	}
	if err := fundable(w); err != nil {
		return wallet.Wallet{}, err
	}
	_, err = s.chains.ChainFor(w.Environment, w.ChainID)
	return w, err
}

// newDrip is a SUBMITTED drip of amountBaseUnits of asset to w.
func newDrip(w wallet.Wallet, asset wallet.Asset, amountBaseUnits int64, now time.Time) wallet.Drip {
	return wallet.Drip{
		ID: core.NewID(core.PrefixDrip), TenantID: w.TenantID, Environment: w.Environment, WalletID: w.ID,
		Address: w.Address, ChainID: w.ChainID, Asset: asset, AmountBaseUnits: amountBaseUnits,
		Status: wallet.DripSubmitted, CreatedAt: now, UpdatedAt: now,
	}
}

// createDrip records d and enqueues the job that sends it, in the caller's unit of work.
func (s *Service) createDrip(ctx context.Context, tx txView, d wallet.Drip) error {
	if err := tx.Drips().CreateDrip(ctx, d); err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, DripArgs{TenantID: d.TenantID, DripID: d.ID}, ports.JobOptions{MaxAttempts: dripJobMaxAttempts})
}

// fundable refuses a LIVE wallet (never reachable with a TEST key, checked all the same) and a
// wallet whose deployment failed.
func fundable(w wallet.Wallet) error {
	if err := sandboxOnly(w.Environment); err != nil {
		return err
	}
	if w.Status == wallet.StatusFailed {
		return core.E(core.CodeInvalidState, "wallet %s failed to deploy; the faucet does not fund it", w.ID)
	}
	return nil
}

// checkFaucetQuota answers RATE_LIMITED when the wallet's or the tenant's window is full.
func (s *Service) checkFaucetQuota(ctx context.Context, drips ports.DripRepo, w wallet.Wallet, now time.Time) error {
	since := now.Add(-s.limits.Window)
	scopes := []struct {
		name   string
		filter ports.DripFilter
		limit  int
	}{
		{"wallet", ports.DripFilter{TenantID: w.TenantID, Environment: w.Environment, WalletID: w.ID}, s.limits.PerWallet},
		{"tenant", ports.DripFilter{TenantID: w.TenantID, Environment: w.Environment}, s.limits.PerTenant},
	}
	for _, scope := range scopes {
		at, full, err := drips.NthNewestDripSince(ctx, scope.filter, since, scope.limit)
		if err != nil {
			return err
		}
		if full {
			return s.limits.QuotaExceeded(scope.name, scope.limit, at, now)
		}
	}
	return nil
}

// ListDrips lists the caller's drips, newest first, optionally of one wallet (which must be
// the caller's: WALLET_NOT_FOUND otherwise).
func (s *Service) ListDrips(ctx context.Context, p auth.Principal, walletID string, page ports.Page) ([]wallet.Drip, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsFund); err != nil {
		return nil, 0, err
	}
	if err := sandboxOnly(p.Environment); err != nil {
		return nil, 0, err
	}
	var out []wallet.Drip
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		walletID = strings.TrimSpace(walletID)
		if walletID != "" {
			if _, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, walletID); err != nil {
				return err
			}
		}
		var err error
		out, total, err = tx.Drips().ListDrips(ctx, ports.DripFilter{TenantID: p.TenantID, Environment: p.Environment, WalletID: walletID}, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// GetDrip returns one of the caller's drips.
func (s *Service) GetDrip(ctx context.Context, p auth.Principal, id string) (wallet.Drip, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsFund); err != nil {
		return wallet.Drip{}, err
	}
	if err := sandboxOnly(p.Environment); err != nil {
		return wallet.Drip{}, err
	}
	var d wallet.Drip
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		d, err = tx.Drips().FindDrip(ctx, p.TenantID, p.Environment, id)
		return err
	})
	return d, err
}

func dripAmount(d wallet.Drip) *big.Int { return big.NewInt(d.AmountBaseUnits) }

package faucet

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// CreditFromPool records a drip that mints amountBaseUnits of test USDC into a TEST wallet's
// Safe and enqueues the faucet job that sends it, inside the caller's unit of work: the
// sandbox on-ramp's on-chain credit. Unlike FundWallet it takes no faucet quota and no faucet
// maximum (the caller applies its own caps); the ledger mirror books the mint when indexed.
func (s *Service) CreditFromPool(ctx context.Context, p auth.Principal, walletID string, amountBaseUnits int64) (wallet.Drip, error) {
	if p.TenantID == "" {
		return wallet.Drip{}, core.E(core.CodeTenantRequired, "a tenant is required")
	}
	if err := sandboxOnly(p.Environment); err != nil {
		return wallet.Drip{}, err
	}
	if amountBaseUnits <= 0 {
		return wallet.Drip{}, core.Invalid("amount", "must be greater than zero")
	}
	var d wallet.Drip
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		w, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, walletID)
		if err != nil {
			return err
		}
		if err := fundable(w); err != nil {
			return err
		}
		if _, err := s.chains.ChainFor(w.Environment, w.ChainID); err != nil {
			return err
		}
		now := s.clock.Now()
		d = wallet.Drip{
			ID: core.NewID(core.PrefixDrip), TenantID: p.TenantID, Environment: w.Environment, WalletID: w.ID,
			Address: w.Address, ChainID: w.ChainID, Asset: wallet.AssetUSDC, AmountBaseUnits: amountBaseUnits,
			Status: wallet.DripSubmitted, Purpose: wallet.DripForRamp, CreatedAt: now, UpdatedAt: now,
		}
		if err := tx.Drips().CreateDrip(ctx, d); err != nil {
			return err
		}
		return s.jobs.Enqueue(ctx, DripArgs{DripID: d.ID}, ports.JobOptions{MaxAttempts: dripJobMaxAttempts})
	})
	return d, err
}

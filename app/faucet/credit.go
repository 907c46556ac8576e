package faucet

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
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
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err := s.fundableWallet(ctx, tx, p, walletID)
		if err != nil {
			return err
		}
		d = newDrip(w, wallet.AssetUSDC, amountBaseUnits, s.clock.Now())
		d.Purpose = wallet.DripForRamp
		return s.createDrip(ctx, tx, d)
	})
	return d, err
}

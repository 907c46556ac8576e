package wallets

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// ListWallets lists the caller's wallets in its environment, oldest first.
func (s *Service) ListWallets(ctx context.Context, p auth.Principal, page ports.Page) ([]wallet.Wallet, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead); err != nil {
		return nil, 0, err
	}
	var out []wallet.Wallet
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
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
// read: the wallet itself is still returned (docs/decisions/README.md, "Wallets and faucet").
// HeldUSDC is the USDC, in base units, that open card authorizations hold on the wallet (its
// mirror account's pending debits less Safe payments' holds, kernel.WalletHeld): it is still in the Safe, and a Safe payment may not spend it
// (docs/decisions/safe-payments.md).
type WalletView struct {
	Wallet   wallet.Wallet
	Balances []Balance
	HeldUSDC int64
}

// AvailableUSDC is the wallet's live USDC less what open card authorizations hold (never below
// 0), what a Safe payment from it may spend now; nil when the balances could not be read.
func (v WalletView) AvailableUSDC() *big.Int {
	for _, b := range v.Balances {
		if b.Asset == wallet.AssetUSDC {
			return max0(new(big.Int).Sub(b.AmountBaseUnits, big.NewInt(v.HeldUSDC)))
		}
	}
	return nil
}

func max0(n *big.Int) *big.Int {
	if n.Sign() < 0 {
		n.SetInt64(0)
	}
	return n
}

// balanceReadTimeout bounds the chain reads of one get-one request.
const balanceReadTimeout = 5 * time.Second

// GetWallet returns a wallet with its USDC and ETH balances read live from the chain, after
// the database transaction has ended.
func (s *Service) GetWallet(ctx context.Context, p auth.Principal, id string) (WalletView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead); err != nil {
		return WalletView{}, err
	}
	var v WalletView
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if v.Wallet, err = tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, id); err != nil {
			return err
		}
		v.HeldUSDC, _, err = kernel.WalletHeld(ctx, tx, v.Wallet.Environment, v.Wallet.TenantID, v.Wallet.ID)
		return err
	})
	if err != nil {
		return WalletView{}, err
	}
	v.Balances = s.readBalances(ctx, v.Wallet)
	return v, nil
}

// readBalances reads USDC and ETH at the wallet's address (deployed or not), or nil.
func (s *Service) readBalances(ctx context.Context, w wallet.Wallet) []Balance {
	chain, err := s.chains.ChainFor(w.Environment, w.ChainID)
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

package kernel

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// WalletMirrorBalance is the balance of a wallet's on-chain mirror account
// (wallet:{id}:onchain, docs/chain.md): Posted is the USDC the indexed Transfer logs left in the
// Safe, PendingDebits what open card authorizations and Safe payments on their way hold of it
// (WalletHeld tells the two apart). A wallet the indexer has not
// yet booked a transfer for has no account, and reads as zero. Safe payments (the held-USDC
// check), a secondary send's pre-check and the mirror's catch-up all read it from here.
func WalletMirrorBalance(ctx context.Context, l ports.LedgerRepo, env core.Environment, tenantID, walletID string) (ledger.Balance, error) {
	account, err := l.FindAccountByReference(ctx, env, ledger.AssetUSDC, tenantID, ledger.WalletOnchainRef(walletID))
	if core.HasCode(err, core.CodeAccountNotFound) {
		return ledger.Balance{}, nil
	}
	if err != nil {
		return ledger.Balance{}, err
	}
	balances, err := l.Balances(ctx, []string{account.ID})
	return balances[account.ID], err
}

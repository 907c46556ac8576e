package wallets

import (
	"context"

	"corridor/app/kernel"
	"corridor/core/auth"
	"corridor/ports"
)

// Activity is one page of the caller's wallet activity (one wallet's when q.WalletID is set,
// another tenant's wallet answering WALLET_NOT_FOUND): its Safe payments and on-chain USDC
// movements, newest first, filtered and paged by the store over every row, with the total.
func (s *Service) Activity(ctx context.Context, p auth.Principal, q ports.ActivityQuery, page ports.Page) ([]ports.WalletActivity, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead, auth.ScopePaymentsRead); err != nil {
		return nil, 0, err
	}
	if q.WalletID != "" {
		if _, err := s.findWallet(ctx, p, q.WalletID); err != nil {
			return nil, 0, err
		}
	}
	q.TenantID, q.Environment = p.TenantID, p.Environment
	var rows []ports.WalletActivity
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		rows, total, err = tx.WalletActivity().ListWalletActivity(ctx, q, page)
		return err
	})
	return rows, total, err
}

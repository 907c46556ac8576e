package wallets

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
)

// ActivityPage is one page of wallet activity: its rows, how many rows the query matches in
// all, and whether rows follow the page.
type ActivityPage struct {
	Rows    []ports.WalletActivity
	Total   int
	HasMore bool
}

// Activity is one page of the caller's wallet activity (one wallet's when q.WalletID is set,
// another tenant's wallet answering WALLET_NOT_FOUND): its Safe payments and the ledger
// mirror's on-chain USDC movements, newest first, filtered, merged and paged by the store over
// every row, with the total. Both sources are read in one unit of work, behind one scope check
// (wallets:read and payments:read, since a row is either).
func (s *Service) Activity(ctx context.Context, p auth.Principal, q ports.ActivityQuery, page ports.Page) (ActivityPage, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsRead, auth.ScopePaymentsRead); err != nil {
		return ActivityPage{}, err
	}
	q.TenantID, q.Environment = p.TenantID, p.Environment
	var out ActivityPage
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if q.WalletID != "" {
			if _, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, q.WalletID); err != nil {
				return err
			}
		}
		rows, total, err := tx.WalletActivity().ListWalletActivity(ctx, q, page)
		out = ActivityPage{Rows: rows, Total: total, HasMore: page.Skip+len(rows) < total}
		return err
	})
	if err != nil {
		return ActivityPage{}, err
	}
	return out, nil
}

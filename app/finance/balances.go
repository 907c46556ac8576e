package finance

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// ServiceBalance is one asset of a tenant's service balance: the tenant's available account
// (AccountID "" while it has never been credited) and its balance.
type ServiceBalance struct {
	Asset     string
	AccountID string
	Balance   ledger.Balance
}

// BalancesView is GET /v1/balances: the caller's service balances in its environment, now or
// as of an instant.
type BalancesView struct {
	Environment core.Environment
	AsOf        *time.Time
	Balances    []ServiceBalance
}

// Balances returns the caller's service balance per asset; the service asset is always listed.
// A balance as of an instant is read from the ledger's history.
func (s *Service) Balances(ctx context.Context, p auth.Principal, asOf *time.Time) (BalancesView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return BalancesView{}, err
	}
	if err := s.checkAsOf(asOf); err != nil {
		return BalancesView{}, err
	}
	view := BalancesView{Environment: p.Environment, AsOf: asOf}
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		q := ports.AccountQuery{Environment: p.Environment, TenantID: p.TenantID, Kind: ledger.KindTenantAvailable}
		if asOf != nil {
			q.CreatedAtOrBefore = *asOf
		}
		accounts, _, err := tx.LedgerReports().ListAccounts(ctx, q, ports.Page{Take: ports.MaxTake})
		if err != nil {
			return err
		}
		if asOf != nil {
			if accounts, err = balancesAsOf(ctx, tx, accounts, *asOf); err != nil {
				return err
			}
		}
		view.Balances = serviceBalances(accounts)
		return nil
	})
	return view, err
}

// serviceBalances lists one line per asset, the service asset first and always present.
func serviceBalances(accounts []ports.AccountBalance) []ServiceBalance {
	out := []ServiceBalance{{Asset: kernel.ServiceAsset}}
	for _, ab := range accounts {
		line := ServiceBalance{Asset: ab.Account.Asset, AccountID: ab.Account.ID, Balance: ab.Balance}
		if ab.Account.Asset == kernel.ServiceAsset {
			out[0] = line
			continue
		}
		out = append(out, line)
	}
	return out
}

// balancesAsOf replaces each account's current balance by its balance as of instant.
func balancesAsOf(ctx context.Context, tx txView, accounts []ports.AccountBalance, instant time.Time) ([]ports.AccountBalance, error) {
	ids := make([]string, len(accounts))
	for i, ab := range accounts {
		ids[i] = ab.Account.ID
	}
	asOf, err := tx.LedgerReports().BalancesAsOf(ctx, ids, instant)
	if err != nil {
		return nil, err
	}
	out := make([]ports.AccountBalance, len(accounts))
	for i, ab := range accounts {
		out[i] = ports.AccountBalance{Account: ab.Account, Balance: asOf[ab.Account.ID]}
	}
	return out, nil
}

package fake

import (
	"context"

	"corridor/core"
	"corridor/core/safepay"
	"corridor/core/wallet"
	"corridor/ports"
)

// walletRepo stores wallets in a map, listed by id as the Postgres store lists them.
type walletRepo struct{ s *Store }

var _ ports.WalletRepo = walletRepo{}

var errWalletNotFound = core.NotFound(core.CodeWalletNotFound, "wallet")

func (r walletRepo) t() *table[wallet.Wallet] { return &r.s.state.wallets }

func (r walletRepo) CreateWallet(_ context.Context, w wallet.Wallet) error {
	return r.t().insert(w.ID, w)
}

func (r walletRepo) FindWallet(_ context.Context, tenantID string, env core.Environment, id string) (wallet.Wallet, error) {
	w, ok := r.t().rows[id]
	if !ok || w.TenantID != tenantID || w.Environment != env {
		return wallet.Wallet{}, errWalletNotFound
	}
	return w, nil
}

func (r walletRepo) LockWallet(_ context.Context, id string) (wallet.Wallet, error) {
	w, ok := r.t().rows[id]
	if !ok {
		return wallet.Wallet{}, errWalletNotFound
	}
	return w, nil
}

func (r walletRepo) tenantWallets(tenantID string, env core.Environment) []wallet.Wallet {
	return r.t().filter(func(w wallet.Wallet) bool { return w.TenantID == tenantID && w.Environment == env }, false)
}

func (r walletRepo) ListWallets(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]wallet.Wallet, int, error) {
	out, total := page(r.tenantWallets(tenantID, env), p)
	return out, total, nil
}

func (r walletRepo) UpdateWallet(_ context.Context, w wallet.Wallet) error {
	return r.t().update(w.ID, w)
}

func (r walletRepo) CountWalletsLocked(_ context.Context, tenantID string, env core.Environment) (int, error) {
	return len(r.tenantWallets(tenantID, env)), nil
}

func (r walletRepo) ListTenantWallets(_ context.Context, tenantID string, env core.Environment, limit int) ([]wallet.Wallet, error) {
	out, _ := page(r.tenantWallets(tenantID, env), ports.Page{Take: limit})
	return out, nil
}

// Payment returns a stored Safe payment by id, for assertions.
func (s *Store) Payment(id string) (p safepay.Payment, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok = s.state.payments.rows[id]
	return p, ok
}

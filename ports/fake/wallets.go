package fake

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// walletRepo stores wallets in a map, listed by id as the Postgres store lists them.
type walletRepo struct{ s *Store }

var _ ports.WalletRepo = walletRepo{}

var errWalletNotFound = core.NotFound(core.CodeWalletNotFound, "wallet")

func (r walletRepo) t() *table[wallet.Wallet] { return &r.s.state.wallets }

// CreateWallet refuses a second wallet at one chain and address, and a wallet at an address
// another tenant holds in the environment, as the database's unique index and lookup row do.
func (r walletRepo) CreateWallet(_ context.Context, w wallet.Wallet) error {
	for _, other := range r.t().rows {
		if !strings.EqualFold(other.Address, w.Address) {
			continue
		}
		if other.ChainID == w.ChainID && other.TenantID == w.TenantID {
			return fmt.Errorf("fake: a wallet at %s on chain %d exists", w.Address, w.ChainID)
		}
		if other.Environment == w.Environment && other.TenantID != w.TenantID {
			return fmt.Errorf("fake: the address %s is another tenant's wallet", w.Address)
		}
	}
	return r.t().insert(w.ID, w)
}

func (r walletRepo) FindWallet(_ context.Context, tenantID string, env core.Environment, id string) (wallet.Wallet, error) {
	w, ok := r.t().rows[id]
	if !ok || w.TenantID != tenantID || w.Environment != env {
		return wallet.Wallet{}, errWalletNotFound
	}
	return w, nil
}

// LockWallet finds a wallet of the tenant; an empty tenant (a job from before jobs carried it)
// matches any, as the Postgres store resolves it.
func (r walletRepo) LockWallet(_ context.Context, tenantID, id string) (wallet.Wallet, error) {
	w, ok := r.t().rows[id]
	if !ok || (tenantID != "" && w.TenantID != tenantID) {
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

// dripRepo stores faucet drips in a map.
type dripRepo struct{ s *Store }

var _ ports.DripRepo = dripRepo{}

var errDripNotFound = core.NotFound(core.CodeDripNotFound, "drip")

func (r dripRepo) t() *table[wallet.Drip] { return &r.s.state.drips }

// CreateDrip stores a drip; an empty purpose is the faucet's, as the Postgres store records it.
func (r dripRepo) CreateDrip(_ context.Context, d wallet.Drip) error {
	if d.Purpose == "" {
		d.Purpose = wallet.DripForFaucet
	}
	return r.t().insert(d.ID, d)
}

func (r dripRepo) FindDrip(_ context.Context, tenantID string, env core.Environment, id string) (wallet.Drip, error) {
	d, ok := r.t().rows[id]
	if !ok || d.TenantID != tenantID || d.Environment != env {
		return wallet.Drip{}, errDripNotFound
	}
	return d, nil
}

// LockDrip finds a drip of the tenant; an empty tenant matches any (see LockWallet).
func (r dripRepo) LockDrip(_ context.Context, tenantID, id string) (wallet.Drip, error) {
	d, ok := r.t().rows[id]
	if !ok || (tenantID != "" && d.TenantID != tenantID) {
		return wallet.Drip{}, errDripNotFound
	}
	return d, nil
}

func (r dripRepo) UpdateDrip(_ context.Context, d wallet.Drip) error { return r.t().update(d.ID, d) }

// faucetDrips are the faucet's drips of a filter (other purposes are left out, as in Postgres).
func (r dripRepo) faucetDrips(f ports.DripFilter, newestFirst bool) []wallet.Drip {
	return r.t().filter(func(d wallet.Drip) bool {
		return d.TenantID == f.TenantID && d.Environment == f.Environment && d.Purpose == wallet.DripForFaucet &&
			(f.WalletID == "" || d.WalletID == f.WalletID)
	}, newestFirst)
}

func (r dripRepo) ListDrips(_ context.Context, f ports.DripFilter, p ports.Page) ([]wallet.Drip, int, error) {
	out, total := page(r.faucetDrips(f, true), p)
	return out, total, nil
}

// LockFaucet has nothing to lock: units of work already run one at a time.
func (r dripRepo) LockFaucet(context.Context, string) error { return nil }

func (r dripRepo) NthNewestDripSince(_ context.Context, f ports.DripFilter, since time.Time, n int) (time.Time, bool, error) {
	if n < 1 {
		return time.Time{}, false, fmt.Errorf("fake: NthNewestDripSince needs n >= 1, got %d", n)
	}
	var at []time.Time
	for _, d := range r.faucetDrips(f, false) {
		if d.CreatedAt.After(since) {
			at = append(at, d.CreatedAt)
		}
	}
	sort.Slice(at, func(i, j int) bool { return at[i].After(at[j]) })
	if len(at) < n {
		return time.Time{}, false, nil
	}
	return at[n-1], true, nil
}

func (r dripRepo) DripTxHashUsed(_ context.Context, tenantID string, chainID int64, txHash string) (bool, error) {
	return len(r.t().filter(func(d wallet.Drip) bool {
		return d.TenantID == tenantID && d.ChainID == chainID && d.TxHash == txHash
	}, false)) > 0, nil
}

// Wallet returns a stored wallet by id, for assertions.
func (s *Store) Wallet(id string) (wallet.Wallet, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.state.wallets.rows[id]
	return w, ok
}

// Drip returns a stored drip by id, for assertions.
func (s *Store) Drip(id string) (wallet.Drip, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.state.drips.rows[id]
	return d, ok
}

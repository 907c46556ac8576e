package mirror

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"corridor/core"
	"corridor/core/wallet"
	"corridor/ports"
	"corridor/test/harness"
	"corridor/wiring"
)

// retryListWalletsOnce is a store whose first unit of work that lists a tenant's wallets (the
// reconciliation's ledger side) fails after its closure ran, with the serialization failure a
// commit-time conflict gives; the real store then runs the closure again.
type retryListWalletsOnce struct {
	ports.Store
	injected *atomic.Int64
}

func (s retryListWalletsOnce) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		listed := false
		if err := fn(ctx, listSpyTx{Tx: tx, listed: &listed}); err != nil {
			return err
		}
		if listed && s.injected.CompareAndSwap(0, 1) {
			return &pgconn.PgError{Code: "40001", Message: "injected serialization failure"}
		}
		return nil
	})
}

type listSpyTx struct {
	ports.Tx
	listed *bool
}

func (t listSpyTx) Wallets() ports.WalletRepo { return listSpyRepo{t.Tx.Wallets(), t.listed} }

type listSpyRepo struct {
	ports.WalletRepo
	listed *bool
}

func (r listSpyRepo) ListWallets(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]wallet.Wallet, int, error) {
	*r.listed = true
	return r.WalletRepo.ListWallets(ctx, tenantID, env, page)
}

// TestMirror_ReconciliationRetried: a reconciliation whose unit of work is retried counts each
// wallet once and sums each balance once (the retried run starts from an empty report).
func TestMirror_ReconciliationRetried(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, false)
	mint(t, w.Address, usdc(7))
	awaitIndexed(t, ten.Root, latestBlock(t))

	var injected atomic.Int64
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.WrapStore = func(s ports.Store) ports.Store { return retryListWalletsOnce{Store: s, injected: &injected} }
	})
	got := reconcile(t, srv.Client(t).WithKey(ten.RootKey))
	if injected.Load() != 1 {
		t.Fatal("no serialization failure was injected: the test proves nothing")
	}
	if got.Total != 1 || len(got.Wallets) != 1 || got.Truncated || got.Wallets[0].LedgerBalance != "7" || got.Totals.LedgerBalance != "7" {
		t.Fatalf("reconciliation after a retried unit of work: %+v", got)
	}
}

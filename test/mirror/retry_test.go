package mirror

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// listSpyTx reports when the closure lists a tenant's wallets (the reconciliation's ledger side).
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
		c.WrapStore = func(s ports.Store) ports.Store {
			return harness.RetryOnce{Store: s, Injected: &injected,
				Watch: func(tx ports.Tx, hit *bool) ports.Tx { return listSpyTx{Tx: tx, listed: hit} }}
		}
	})
	got := reconcile(t, srv.Client(t).WithKey(ten.RootKey))
	if injected.Load() != 1 {
		t.Fatal("no serialization failure was injected: the test proves nothing")
	}
	if got.Total != 1 || len(got.Wallets) != 1 || got.Truncated || got.Wallets[0].LedgerBalance != "7" || got.Totals.LedgerBalance != "7" {
		t.Fatalf("reconciliation after a retried unit of work: %+v", got)
	}
}

package finance

import (
	"context"
	"math/big"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// silentChain is a node that does not answer its head, counting the balance reads it is asked.
type silentChain struct {
	*fake.Chain
	balanceReads atomic.Int32
}

func (c *silentChain) LatestBlock(context.Context) (uint64, error) {
	return 0, core.E(core.CodeChainUnavailable, "the chain's node does not answer")
}

func (c *silentChain) USDCBalance(ctx context.Context, a common.Address) (*big.Int, error) {
	c.balanceReads.Add(1)
	return c.Chain.USDCBalance(ctx, a)
}

// TestReconciliation_SilentNodeAnswersTheLedgerSide: when the node does not answer the head,
// the report answers with the ledger's side and null on-chain balances, and asks the node for
// no wallet's balance (each would wait out a read time-out).
func TestReconciliation_SilentNodeAnswersTheLedgerSide(t *testing.T) {
	store := fake.NewStore()
	chain := &silentChain{Chain: fake.NewChain(wallet.SandboxChainID)}
	svc, err := New(Deps{Store: store, Chains: map[core.Environment]ports.Chain{core.EnvTest: chain}})
	if err != nil {
		t.Fatal(err)
	}
	for i, address := range []string{"0x00000000000000000000000000000000000000a1", "0x00000000000000000000000000000000000000a2"} {
		w := wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: "ten_a", Environment: core.EnvTest, Name: "w" + string(rune('0'+i)),
			ChainID: wallet.SandboxChainID, Address: address, Status: wallet.StatusDeployed}
		if err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) }); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := svc.LedgerReconciliation(context.Background(), auth.Principal{TenantID: "ten_a", Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != 2 || rep.LatestBlock != nil || rep.OnchainTotal != nil || chain.balanceReads.Load() != 0 {
		t.Fatalf("report %+v, balance reads %d", rep, chain.balanceReads.Load())
	}
	for _, w := range rep.Wallets {
		if w.OnchainBalance != nil || w.Drift != nil {
			t.Fatalf("wallet line %+v", w)
		}
	}
}

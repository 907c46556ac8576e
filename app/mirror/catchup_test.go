package mirror

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// stalledChain is a node that takes reads and never answers them.
type stalledChain struct{ *fake.Chain }

func (stalledChain) USDCBalance(ctx context.Context, _ common.Address) (*big.Int, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestCatchUpWalletMirror_StalledNode: a catch-up asked without a deadline of its own (a card
// authorization's) gives up on a node that does not answer the Safe's balance, after
// catchUpBalanceRead, instead of waiting for as long as the node stays silent. Were the read
// unbounded, this test would hang until go test's own time-out.
func TestCatchUpWalletMirror_StalledNode(t *testing.T) {
	store := fake.NewStore()
	w := wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: core.NewID(core.PrefixTenant), Environment: core.EnvTest, Name: "ops",
		Purpose: wallet.PurposeGeneral, ChainID: 84532, Address: common.HexToAddress("0x00000000000000000000000000000000000000c1").Hex(),
		Owners:    []wallet.Owner{{Address: common.HexToAddress("0x00000000000000000000000000000000000000c2").Hex(), Role: wallet.RoleAdminOwner}},
		Threshold: 1, Status: wallet.StatusDeployed}
	if err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) }); err != nil {
		t.Fatal(err)
	}
	s, err := New(Deps{Store: store, Jobs: fake.Jobs{Store: store},
		Chains: map[core.Environment]ports.Chain{core.EnvTest: stalledChain{fake.NewChain(84532)}}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.CatchUpWalletMirror(context.Background(), w.TenantID, core.EnvTest, w.ID)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a catch-up against a stalled node = %v, want the balance read's deadline", err)
	}
}

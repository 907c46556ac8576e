package reorg

import (
	"context"
	"math"
	"math/big"
	"testing"

	"github.com/corridorhq/corridor/app/mirror"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// TestMirror_UnpostableLogIsSkipped: a Transfer log the ledger cannot hold (an amount beyond
// int64 base units) no longer stalls the mirror: it is recorded DEAD in background_failures for
// an operator, and the logs after it (here, the same wallet's next deposit and another wallet's)
// are posted in the same pass.
func TestMirror_UnpostableLogIsSkipped(t *testing.T) {
	ctx := context.Background()
	tenant := env().NewTenant(t)
	a, b := newWallet(t, tenant.ID), newWallet(t, tenant.ID)
	huge := new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(1))
	hugeTx, err := env().Chain.MintUSDC(ctx, a, huge)
	if err != nil {
		t.Fatal(err)
	}
	awaitMined(t, hugeTx)
	tx1, err := env().Chain.MintUSDC(ctx, a, big.NewInt(5_000_000))
	if err != nil {
		t.Fatal(err)
	}
	awaitMined(t, tx1)
	tx2, err := env().Chain.MintUSDC(ctx, b, big.NewInt(7_000_000))
	if err != nil {
		t.Fatal(err)
	}
	awaitMined(t, tx2)
	mine(t, confirmations)
	index(t)

	if got := ledgerBalance(t, a); got != 5_000_000 {
		t.Errorf("wallet a: ledger %d, want the 5 USDC after the skipped log", got)
	}
	if got := ledgerBalance(t, b); got != 7_000_000 {
		t.Errorf("wallet b: ledger %d, want 7 USDC", got)
	}
	var failures []ports.BackgroundFailure
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		var err error
		failures, err = tx.ChainIndex().ListFailures(ctx, mirror.PassChainIndex, 100)
		return err
	})
	want := mirror.ChainLogReference(84532, hugeTx, 0)
	found := false
	for _, f := range failures {
		if f.Item == want {
			found = true
			if f.Status != ports.FailureDead || f.Environment != core.EnvTest || f.Attempts < 1 || f.LastError == "" {
				t.Errorf("failure %+v", f)
			}
		}
	}
	if !found {
		t.Fatalf("no background failure for %s among %+v", want, failures)
	}
}

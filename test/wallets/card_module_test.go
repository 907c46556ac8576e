package wallets

import (
	"context"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// TestWallets_TestWalletsEnableTheCardModuleAtSetup: a TEST wallet's Safe enables the card
// spend module in its own setup (no owner transaction needed later), and the wallet records
// the module, which its predicted address includes.
func TestWallets_TestWalletsEnableTheCardModuleAtSetup(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	module := e.Chain.CardModuleAddress()
	if module == ([20]byte{}) {
		t.Fatal("the sandbox chain has no card spend module")
	}
	w := newWallet(t, ten.Root)
	id, address := w["id"].(string), addr(w["address"])
	waitDeployed(t, ten.Root, id)

	ctx := ctxFor(t)
	if enabled, err := e.Chain.CardModuleEnabled(ctx, address); err != nil || !enabled {
		t.Fatalf("card module enabled on %s = %v (%v), want true", address.Hex(), enabled, err)
	}
	var recorded string
	if err := e.Service.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		stored, err := tx.Wallets().FindWallet(ctx, ten.ID, core.EnvTest, id)
		recorded = stored.SetupModule
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if recorded != module.Hex() {
		t.Fatalf("recorded setup module = %q, want %s", recorded, module.Hex())
	}
}

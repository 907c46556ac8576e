package harness

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/mirror"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// IssuerClearingPosted is the posted balance of the TEST card issuer's clearing account (0
// before it exists): what the mirror has booked of captured card spend and not yet settled.
// The mirror's and the reorg suites both read it, through the store, as the API does not show it.
func (e *Env) IssuerClearingPosted(t testing.TB) int64 {
	t.Helper()
	var posted int64
	err := e.Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		accounts, err := tx.Ledger().OpenAccounts(ctx, time.Now().UTC(), ledger.IssuerClearing(core.EnvTest, ledger.AssetUSDC, mirror.DefaultCardIssuer))
		if err != nil {
			return err
		}
		balances, err := tx.Ledger().Balances(ctx, []string{accounts[0].ID})
		posted = balances[accounts[0].ID].Posted
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return posted
}

package kernel

import (
	"testing"

	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ledger"
)

// TestSpendSourceOf: the accounts that hold a tenant's money are guarded sources, each of its kind;
// holds on their way out, platform accounts and another tenant's accounts are not.
func TestSpendSourceOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		account ledger.Account
		want    spend.Source
		guarded bool
	}{
		{"service balance", ledger.Account{TenantID: "ten_1", Kind: ledger.KindTenantAvailable}, spend.Source{Kind: spend.SourceServiceBalance}, true},
		{"wallet mirror", ledger.Account{TenantID: "ten_1", Kind: ledger.KindWalletOnchain, Reference: ledger.WalletOnchainRef("wal_9")},
			spend.Source{Kind: spend.SourceWallet, WalletID: "wal_9"}, true},
		{"escrow", ledger.Account{TenantID: "ten_1", Kind: ledger.KindClaimEscrow}, spend.Source{Kind: spend.SourceEscrow}, true},
		{"off-ramp hold", ledger.Account{TenantID: "ten_1", Kind: ledger.KindOfframpLocked}, spend.Source{}, false},
		{"another tenant's balance", ledger.Account{TenantID: "ten_2", Kind: ledger.KindTenantAvailable}, spend.Source{}, false},
		{"platform account", ledger.Account{Kind: ledger.KindWorld}, spend.Source{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, guarded := SpendSourceOf(c.account, "ten_1")
			if got != c.want || guarded != c.guarded {
				t.Fatalf("SpendSourceOf = %+v, %v; want %+v, %v", got, guarded, c.want, c.guarded)
			}
		})
	}
}

// TestReturnsToBalance: money coming home to the tenant's own service balance is not a spend.
func TestReturnsToBalance(t *testing.T) {
	own := ledger.Account{ID: "acc_a", TenantID: "ten_1", Kind: ledger.KindTenantAvailable}
	wallet := ledger.Account{ID: "acc_w", TenantID: "ten_1", Kind: ledger.KindWalletOnchain}
	world := ledger.Account{ID: "acc_x", Kind: ledger.KindWorld}
	if !returnsToBalance(ledger.Move(wallet.ID, own.ID, 5), []ledger.Account{wallet, own}, "ten_1") {
		t.Fatal("a move into the tenant's own balance is a return")
	}
	if returnsToBalance(ledger.Move(own.ID, world.ID, 5), []ledger.Account{own, world}, "ten_1") {
		t.Fatal("a move to the world is not a return")
	}
}

package postgres

import (
	"slices"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// TestHomesOf_TheAccountsHomesOnly: a tenant's transfer names its accounts' homes and not the
// platform's "" (on Citus, a lock naming "" would reach the platform accounts' shard group
// too); "" is named when an account is a platform account proper.
func TestHomesOf_TheAccountsHomesOnly(t *testing.T) {
	tenant := "ten_homes"
	share := ledger.Account{ID: "acc_share", Reference: ledger.Share(ledger.World(core.EnvTest, ledger.AssetUSDC, "bank"), tenant).Reference}
	own := ledger.Account{ID: "acc_own", TenantID: tenant, Reference: ledger.TenantAvailableRef(tenant)}
	platform := ledger.Account{ID: "acc_platform", Reference: ledger.WorldRef("bank")}
	if got := homesOf(map[string]ledger.Account{share.ID: share, own.ID: own}); !slices.Equal(got, []string{tenant}) {
		t.Fatalf("a tenant's transfer names homes %q, want only %q", got, tenant)
	}
	if got := homesOf(map[string]ledger.Account{platform.ID: platform, own.ID: own}); !slices.Equal(got, []string{"", tenant}) {
		t.Fatalf("a transfer with a platform account proper names homes %q, want \"\" and %q", got, tenant)
	}
}

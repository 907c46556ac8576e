package mirror

import (
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// TestLogLegs: every transfer a log becomes touches one tenant's rows. The outside world's
// side is the wallet tenant's share; a log between two tenants' wallets is two legs through
// the between-tenants shares, the second under the reference suffixed with ":in"; a log
// between one tenant's wallets stays one transfer.
func TestLogLegs(t *testing.T) {
	env, ref := core.EnvTest, "chain:84532:0xabc:0"
	world := ledger.World(env, ledger.AssetUSDC, ledger.ChainRail(84532))
	a := ledger.WalletOnchain(env, ledger.AssetUSDC, "ten_a", "wal_a")
	a2 := ledger.WalletOnchain(env, ledger.AssetUSDC, "ten_a", "wal_a2")
	b := ledger.WalletOnchain(env, ledger.AssetUSDC, "ten_b", "wal_b")
	between := ledger.BetweenTenants(env, ledger.AssetUSDC)
	issuer := ledger.Share(ledger.IssuerClearing(env, ledger.AssetUSDC, "sandbox"), "ten_a")
	for _, tc := range []struct {
		name     string
		from, to ledger.AccountSpec
		want     []logLeg
	}{
		{"mint into a wallet", world, a, []logLeg{{ref, ledger.Share(world, "ten_a"), a}}},
		{"a wallet pays outside", a, world, []logLeg{{ref, a, ledger.Share(world, "ten_a")}}},
		{"a card settlement", issuer, world, []logLeg{{ref, issuer, ledger.Share(world, "ten_a")}}},
		{"one tenant's wallets", a, a2, []logLeg{{ref, a, a2}}},
		{"two tenants' wallets", a, b, []logLeg{{ref, a, ledger.Share(between, "ten_a")}, {ref + ":in", ledger.Share(between, "ten_b"), b}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := logLegs(env, ref, tc.from, tc.to)
			if len(got) != len(tc.want) {
				t.Fatalf("legs %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("leg %d: %+v, want %+v", i, got[i], tc.want[i])
				}
				if h1, h2 := specHome(got[i].from), specHome(got[i].to); h1 != h2 {
					t.Fatalf("leg %d touches homes %q and %q", i, h1, h2)
				}
			}
		})
	}
}

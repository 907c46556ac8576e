package ledger

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// bucketOf is the chain bucket the database gives a tenant.
func (p privateLedger) bucketOf(t *testing.T, tenantID string) int {
	t.Helper()
	var b int
	if err := p.store.DB().DB.QueryRowContext(context.Background(), "SELECT ledger_chain_bucket($1)", tenantID).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// twoBuckets returns two tenant ids whose chain buckets differ.
func (p privateLedger) twoBuckets(t *testing.T) (string, string) {
	t.Helper()
	a := core.NewID(core.PrefixTenant)
	for {
		b := core.NewID(core.PrefixTenant)
		if p.bucketOf(t, a) != p.bucketOf(t, b) {
			return a, b
		}
	}
}

// TestVerify_StripesPerTenantBucket: every transfer is linked into a stripe of its home
// tenant's bucket (a stripe lies in one shard group), in exactly one stripe; verify walks
// every stripe (in parallel) and finds a transfer rewritten in one tenant's stripe there, and
// names that stripe only; a second link of a transfer and a link moved into another bucket's
// stripe are reported.
func TestVerify_StripesPerTenantBucket(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		tamper func(t *testing.T, p privateLedger, victim ledger.Transfer, other int)
		want   string
	}{
		{"rewritten transfer", func(t *testing.T, p privateLedger, v ledger.Transfer, _ int) {
			p.exec(t, "UPDATE ledger_transfers SET metadata = '{\"rewritten\": \"yes\"}' WHERE id = ?", v.ID)
		}, ""},
		{"second link", func(t *testing.T, p privateLedger, v ledger.Transfer, other int) {
			p.exec(t, `INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash, chain_key)
				SELECT transfer_id, environment, ?, 1000000, hash, ledger_chain_stripe_key(?::smallint) FROM ledger_chain WHERE transfer_id = ?`,
				other, other, v.ID)
		}, "not exactly one"},
		{"link in another bucket's stripe", func(t *testing.T, p privateLedger, v ledger.Transfer, other int) {
			p.exec(t, "UPDATE ledger_chain SET stripe = ?, position = 1000000 WHERE transfer_id = ?", other, v.ID)
		}, "another tenant bucket"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newPrivateLedger(t)
			tenantA, tenantB := p.twoBuckets(t)
			transfers := p.postForTenants(t, tenantA, tenantB)
			for _, tr := range transfers {
				home := tenantA
				if tr.Metadata["tenant"] == "b" {
					home = tenantB
				}
				stripe := p.stripeOf(t, tr.ID)
				if postgres.ChainBucketOfStripe(stripe) != p.bucketOf(t, home) {
					t.Fatalf("transfer %s of %s in stripe %d, not one of its bucket %d", tr.ID, home, stripe, p.bucketOf(t, home))
				}
			}
			if v := p.verify(t); !v.OK() || v.Transfers != int64(len(transfers)) || v.Chains != 2*postgres.ChainStripes {
				t.Fatalf("honest ledger: %+v", v)
			}
			victim := transfers[len(transfers)-1] // tenant b's
			stripe := p.stripeOf(t, victim.ID)
			other := postgres.ChainStripesBefore + postgres.ChainLanes*p.bucketOf(t, tenantA)
			c.tamper(t, p, victim, other)
			v := p.verify(t)
			if v.OK() {
				t.Fatalf("verify passed a tampered ledger: %+v", v)
			}
			if c.want != "" {
				if !strings.Contains(strings.Join(v.Problems, "\n"), c.want) || !strings.Contains(strings.Join(v.Problems, "\n"), victim.ID) {
					t.Fatalf("no problem names %s with %q: %+v", victim.ID, c.want, v)
				}
				return
			}
			if len(v.Breaks) != 1 || v.Breaks[0].Stripe != stripe || v.Breaks[0].TransferID != victim.ID {
				t.Fatalf("breaks %+v, want only the rewritten %s in stripe %d", v.Breaks, victim.ID, stripe)
			}
		})
	}
}

// postForTenants posts 20 deposits to each of two tenants' service balances, alternating, each
// in its own unit of work, and returns them (the last one is tenant b's).
func (p privateLedger) postForTenants(t *testing.T, tenantA, tenantB string) []ledger.Transfer {
	t.Helper()
	var accts []ledger.Account
	in := func(fn func(ctx context.Context, tx ports.Tx) error) {
		if err := p.store.InTx(context.Background(), fn); err != nil {
			t.Fatal(err)
		}
	}
	in(func(ctx context.Context, tx ports.Tx) error {
		var err error
		accts, err = tx.Ledger().OpenAccounts(ctx, time.Now(), ledger.World(core.EnvTest, ledger.AssetUSDC, "bank"),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantA), ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantB))
		return err
	})
	var out []ledger.Transfer
	for i := 0; i < 40; i++ {
		spec := moveSpec(ref("stripe"), accts[0].ID, accts[1+i%2].ID, usd(int64(1+i)))
		spec.Metadata = map[string]string{"tenant": []string{"a", "b"}[i%2]}
		in(func(ctx context.Context, tx ports.Tx) error {
			tr, _, err := tx.Ledger().Post(ctx, time.Now(), spec)
			out = append(out, tr)
			return err
		})
	}
	return out
}

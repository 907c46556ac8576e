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

// TestChainKeys_HashIntoTheirBuckets: every bucket's distribution key (ledger_chain_key) hashes
// into that bucket, every head and link carries its stripe's key, and on a Citus cluster the
// chain's tables are distributed by that key, co-located with the tenant tables, each key's
// shard covering its bucket's whole hash range and holding that bucket's tenants.
func TestChainKeys_HashIntoTheirBuckets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPrivateLedger(t)
	db := p.store.DB().DB
	keys := map[int]string{}
	for b := range postgres.ChainBuckets {
		var key string
		var got int
		if err := db.QueryRowContext(ctx, `SELECT ledger_chain_key($1::smallint), ledger_chain_bucket(ledger_chain_key($1::smallint))`, b).
			Scan(&key, &got); err != nil {
			t.Fatal(err)
		}
		if got != b || keys[got] != "" {
			t.Fatalf("bucket %d: key %q hashes into bucket %d", b, key, got)
		}
		keys[b] = key
	}
	tenantA, tenantB := p.twoBuckets(t)
	p.postForTenants(t, tenantA, tenantB)
	for _, table := range []string{"ledger_chain_heads", "ledger_chain"} {
		var wrong, rows int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE chain_key <> ledger_chain_stripe_key(stripe)), count(*) FROM `+table).
			Scan(&wrong, &rows); err != nil {
			t.Fatal(err)
		}
		if wrong != 0 || rows == 0 {
			t.Fatalf("%s: %d of %d rows carry another key than their stripe's", table, wrong, rows)
		}
	}
	citus, err := postgres.IsCitus(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if !citus {
		t.Log("PostgreSQL: the shard ranges are checked on a Citus cluster (CORRIDOR_TESTDB_SOURCE=citus)")
		return
	}
	checkChainShards(t, p, keys)
}

// checkChainShards checks, on Citus, that the chain's tables are distributed by chain_key in the
// tenant tables' co-location group and that each bucket's key lies in the shard whose hash
// range covers the bucket's (the b-th of 32 equal ranges), the shard of that bucket's tenants.
func checkChainShards(t *testing.T, p privateLedger, keys map[int]string) {
	t.Helper()
	ctx := context.Background()
	db := p.store.DB().DB
	var byKey, groups int
	if err := db.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE logicalrelid <> 'twofactor_settings'::regclass AND column_to_column_name(logicalrelid, partkey) = 'chain_key'),
		count(DISTINCT colocationid)
		FROM pg_dist_partition WHERE logicalrelid IN ('ledger_chain_heads'::regclass, 'ledger_chain'::regclass, 'twofactor_settings'::regclass)
		AND partmethod = 'h'`).Scan(&byKey, &groups); err != nil {
		t.Fatal(err)
	}
	if byKey != 2 || groups != 1 {
		t.Fatalf("%d chain tables hash-distributed by chain_key (want 2), in %d co-location groups with the tenant tables (want 1)", byKey, groups)
	}
	// Verify's placement check computes buckets and keys on the workers.
	var functions int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_dist_object WHERE classid = 'pg_proc'::regclass AND objid IN (
		'ledger_chain_bucket(text)'::regprocedure, 'ledger_chain_key(smallint)'::regprocedure,
		'ledger_chain_stripe_key(smallint)'::regprocedure)`).Scan(&functions); err != nil || functions != 3 {
		t.Fatalf("%d of the chain's 3 functions are distributed objects (err %v)", functions, err)
	}
	tenants := map[int]string{}
	for len(tenants) < postgres.ChainBuckets {
		id := core.NewID(core.PrefixTenant)
		tenants[p.bucketOf(t, id)] = id
	}
	for b, key := range keys {
		var low, high, tenantShard, keyShard int64
		if err := db.QueryRowContext(ctx, `SELECT s.shardminvalue::bigint, s.shardmaxvalue::bigint, s.shardid,
			get_shard_id_for_distribution_column('twofactor_settings', $2::text)
			FROM pg_dist_shard s WHERE s.shardid = get_shard_id_for_distribution_column('ledger_chain_heads', $1::text)`,
			key, tenants[b]).Scan(&low, &high, &keyShard, &tenantShard); err != nil {
			t.Fatal(err)
		}
		var sameGroup bool
		if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_dist_shard a JOIN pg_dist_shard b
			ON a.shardminvalue = b.shardminvalue AND b.logicalrelid = 'twofactor_settings'::regclass
			WHERE a.shardid = $1 AND b.shardid = $2)`, keyShard, tenantShard).Scan(&sameGroup); err != nil {
			t.Fatal(err)
		}
		// The bucket's hash range: the b-th of 32 equal ranges. A shard count dividing 32 (the
		// local cluster's 8, Citus's default 32) puts whole buckets in each shard.
		from := int64(-1<<31) + int64(b)*(1<<32)/int64(postgres.ChainBuckets)
		to := from + (1<<32)/int64(postgres.ChainBuckets) - 1
		if from < low || to > high || !sameGroup {
			t.Fatalf("bucket %d [%d, %d]: key %q in the shard [%d, %d], its tenant %s in the same shard group: %v",
				b, from, to, key, low, high, tenants[b], sameGroup)
		}
	}
}

// TestVerify_LinkPastTheHead: a link written past its stripe's head (a forged transfer's, its
// head left alone) breaks that stripe, although the walks stop at the head they read.
func TestVerify_LinkPastTheHead(t *testing.T) {
	t.Parallel()
	p := newPrivateLedger(t)
	tenantA, tenantB := p.twoBuckets(t)
	transfers := p.postForTenants(t, tenantA, tenantB)
	stripe := p.stripeOf(t, transfers[0].ID)
	p.exec(t, `INSERT INTO ledger_chain (transfer_id, environment, stripe, position, hash, chain_key)
		SELECT 'trf_forged', environment, stripe, position + 1, hash, chain_key FROM ledger_chain_heads
		WHERE environment = 'TEST' AND stripe = ?`, stripe)
	v := p.verify(t)
	if len(v.Breaks) != 1 || v.Breaks[0].Stripe != stripe || !strings.Contains(v.Breaks[0].Reason, "beyond") {
		t.Fatalf("breaks %+v, want one past the head of stripe %d", v.Breaks, stripe)
	}
}

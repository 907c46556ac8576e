package citus

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// TestCitus_ChainWritesOnTheTenantsWorker: a tenant's deposits are linked into the hash chain
// on the worker that holds the tenant's shard group (the chain's heads and links distributed by
// their bucket's key, co-located with the tenant tables); a transfer posted through connections
// that refuse a multi-shard statement is linked without one (every statement of the link
// functions names the key); and the metric that sums the chain heads reads them across the
// shards.
func TestCitus_ChainWritesOnTheTenantsWorker(t *testing.T) {
	ctx := context.Background()
	ten := env().NewTenant(t)
	for i := range 3 {
		ten.Root.With("Idempotency-Key", "chain-"+strconv.Itoa(i)).
			Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "2"}).Expect(t, 201)
	}
	store := singleShardStore(t)
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		// The world account's share of the tenant: the transfer has one home, the tenant's.
		accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), ledger.Share(ledger.World(core.EnvTest, ledger.AssetUSDC, "chain-test"), ten.ID),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, ten.ID))
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, time.Now(), ledger.TransferSpec{Reference: "chain-single-" + core.NewID(core.PrefixTransfer),
			Type: ledger.TypePosted, Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(accts[0].ID, accts[1].ID, 1)})
		return err
	}); err != nil {
		t.Fatalf("a transfer linked on connections refusing multi-shard statements: %v", err)
	}
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var ids []string
	if err := conn.QueryRow(ctx, `SELECT array_agg(id) FROM ledger_transfers WHERE home_tenant_id = $1`, ten.ID).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var links int
	if err := conn.QueryRow(ctx, `SELECT array_agg(DISTINCT chain_key), count(*) FROM ledger_chain WHERE transfer_id = ANY($1)`, ids).
		Scan(&keys, &links); err != nil {
		t.Fatal(err)
	}
	if len(ids) < 4 || links != len(ids) || len(keys) != 1 {
		t.Fatalf("%d transfers of the tenant, %d links under keys %v: want every one linked once, under one bucket key", len(ids), links, keys)
	}
	want := tenantPlacement(t, conn, "idempotency_keys", ten.ID).port
	for _, table := range []string{"ledger_chain", "ledger_chain_heads"} {
		if got := tenantPlacement(t, conn, table, keys[0]).port; got != want {
			t.Fatalf("%s rows of the tenant's bucket on the worker on port %d, the tenant on %d", table, got, want)
		}
	}
	counter := regexp.MustCompile(`(?m)^corridor_ledger_transfers_total\{environment="TEST"\} ([0-9.e+]+)$`)
	harness.Eventually(t, "the chain heads' sum counts the tenant's transfers", func() bool {
		m := counter.FindStringSubmatch(env().Metrics(t))
		n, err := strconv.ParseFloat(m2(m), 64)
		return err == nil && n >= float64(len(ids))
	})
}

// m2 is a regexp match's first group, or "" when it did not match.
func m2(m []string) string {
	if len(m) < 2 {
		return ""
	}
	return m[1]
}

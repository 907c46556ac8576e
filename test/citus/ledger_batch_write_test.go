package citus

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// TestCitus_BatchWriteRoutesToOneShard: a commit pipeline's batch of ledger transfers (one
// tenant's deposits into its available balance, and a sweep of its world share into the
// platform's world account, a transfer over two homes) is written through connections that
// refuse any statement Citus would send to more than one shard, and every transfer, posting
// and balance lands. The batch's single write statement read the transfers' insert result in
// its postings' insert, which Citus ran with that result sent to every worker: a silent worker
// then held up the COMMIT of the other worker's tenants (TestCitus_WorkerSilent).
func TestCitus_BatchWriteRoutesToOneShard(t *testing.T) {
	if !ledgerDistributed() {
		t.Skip("the ledger's tables are still pending in CitusPlan")
	}
	ten := env().NewTenant(t)
	ctx, cancel := context.WithTimeout(ports.WithAffinity(context.Background(), ten.ID), time.Minute)
	defer cancel()
	// Opening accounts over two homes reads both (rarely: a tenant's first money); it runs on
	// ordinary connections.
	db, err := postgres.Open(ctx, env().DatabaseURL, postgres.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	world := ledger.World(core.EnvTest, ledger.AssetUSDC, "batch-write-test")
	var accts []ledger.Account
	if err := postgres.NewStore(db).ForCitus().InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		accts, err = tx.Ledger().OpenAccounts(ctx, time.Now(), ledger.Share(world, ten.ID),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, ten.ID), world)
		return err
	}); err != nil {
		t.Fatalf("opening the accounts: %v", err)
	}
	share, avail, platform := accts[0].ID, accts[1].ID, accts[2].ID
	piped := singleShardStore(t).ForCitus().WithPipeline(postgres.PipelineOptions{Lanes: 1, MaxBatch: 16, MaxWait: 20 * time.Millisecond})
	t.Cleanup(piped.Close)
	const n = 8
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	post := func(i int, postings []ledger.Posting) {
		defer wg.Done()
		errs[i] = piped.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			_, _, err := tx.Ledger().Post(ctx, time.Now(), ledger.TransferSpec{Reference: "batch-write-" + ten.ID + "-" + strconv.Itoa(i),
				Type: ledger.TypePosted, Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: postings})
			return err
		})
	}
	wg.Add(n + 1)
	for i := range n {
		go post(i, ledger.Move(share, avail, int64(i+1)))
	}
	go post(n, ledger.Move(platform, share, 1000))
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("transfer %d on connections refusing multi-shard statements: %v", i, err)
		}
	}
	assertBatchWritten(t, ten.ID, avail, n)
}

// assertBatchWritten checks the tenant's transfers and postings are all there and its
// available balance is the sum of the deposits 1..n.
func assertBatchWritten(t *testing.T, tenantID, avail string, n int) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var transfers, postings, posted int64
	if err := conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM ledger_transfers WHERE home_tenant_id = $1 AND reference LIKE 'batch-write-%'),
		(SELECT count(*) FROM ledger_postings WHERE transfer_home_tenant_id = $1 AND transfer_id IN
			(SELECT id FROM ledger_transfers WHERE home_tenant_id = $1 AND reference LIKE 'batch-write-%')),
		(SELECT posted FROM ledger_balances WHERE home_tenant_id = $1 AND account_id = $2)`, tenantID, avail).
		Scan(&transfers, &postings, &posted); err != nil {
		t.Fatal(err)
	}
	if transfers != int64(n+1) || postings != 2*int64(n+1) || posted != int64(n*(n+1)/2) {
		t.Fatalf("%d transfers, %d postings, available %d: want %d, %d, %d", transfers, postings, posted, n+1, 2*(n+1), n*(n+1)/2)
	}
}

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
// and balance lands; four batches in turn, so that the statements run more often than
// PostgreSQL's five custom plans before it tries a generic one (which Citus plans on every
// shard). The batch's single write statement read the transfers' insert result in
// its postings' insert, which Citus ran with that result sent to every worker: a silent worker
// then held up the COMMIT of the other worker's tenants (TestCitus_WorkerSilent).
func TestCitus_BatchWriteRoutesToOneShard(t *testing.T) {
	ten := env().NewTenant(t)
	ctx, cancel := context.WithTimeout(ports.WithAffinity(context.Background(), ten.ID), time.Minute)
	defer cancel()
	share, avail, platform := openSweepAccounts(ctx, t, ten.ID, "batch-write-test")
	piped := singleShardStore(t).ForCitus().WithPipeline(postgres.PipelineOptions{Lanes: 1, MaxBatch: 16, MaxWait: 20 * time.Millisecond})
	t.Cleanup(piped.Close)
	const n, rounds = 8, 8
	var wg sync.WaitGroup
	for round := range rounds {
		errs := make([]error, n+1)
		post := func(i int, postings []ledger.Posting, metadata map[string]string) {
			defer wg.Done()
			errs[i] = piped.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				_, _, err := tx.Ledger().Post(ctx, time.Now(), ledger.TransferSpec{Reference: "batch-write-" + ten.ID + "-" + strconv.Itoa(round) + "-" + strconv.Itoa(i),
					Type: ledger.TypePosted, Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: postings, Metadata: metadata})
				return err
			})
		}
		wg.Add(n + 1)
		for i := range n {
			go post(i, ledger.Move(share, avail, int64(i+1)), nil)
		}
		go post(n, ledger.Move(platform, share, 1000), sweepMetadata())
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, transfer %d on connections refusing multi-shard statements: %v", round, i, err)
			}
		}
	}
	assertBatchWritten(t, ten.ID, avail, n, rounds)
}

// assertBatchWritten checks the tenant's transfers and postings are all there and its
// available balance is rounds times the sum of the deposits 1..n.
func assertBatchWritten(t *testing.T, tenantID, avail string, n, rounds int) {
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
	want := int64(rounds * (n + 1))
	if transfers != want || postings != 2*want || posted != int64(rounds*n*(n+1)/2) {
		t.Fatalf("%d transfers, %d postings, available %d: want %d, %d, %d", transfers, postings, posted, want, 2*want, rounds*n*(n+1)/2)
	}
}

// TestCitus_SingleWriteRoutesToOneShard: transfers written alone (each its own unit, outside
// the commit pipeline) through connections that refuse any statement Citus would send to more
// than one shard: a sweep over two homes (the platform's world account into the tenant's
// share), a deposit in the tenant's home, and a hold over two homes then its post, which names
// its target and records the target's new state in the target's home. Every transfer, posting
// and balance lands, and a retried sweep replays. The single write's statement read its
// transfer's insert result in its postings' insert, which Citus sent to every shard: a transfer
// over two homes was refused on such connections.
func TestCitus_SingleWriteRoutesToOneShard(t *testing.T) {
	ten := env().NewTenant(t)
	ctx, cancel := context.WithTimeout(ports.WithAffinity(context.Background(), ten.ID), time.Minute)
	defer cancel()
	share, avail, platform := openSweepAccounts(ctx, t, ten.ID, "single-write-test")
	alone := singleShardStore(t).ForCitus()
	post := func(what string, spec ledger.TransferSpec) (ledger.Transfer, bool) {
		t.Helper()
		if spec.Environment = core.EnvTest; spec.Type != ledger.TypePostPending {
			spec.Asset = ledger.AssetUSDC
		}
		if spec.Reference != "single-write-"+ten.ID+"-deposit" {
			spec.Metadata = sweepMetadata()
		}
		var tr ledger.Transfer
		var replayed bool
		if err := alone.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			var err error
			tr, replayed, err = tx.Ledger().Post(ctx, time.Now(), spec)
			return err
		}); err != nil {
			t.Fatalf("%s on connections refusing multi-shard statements: %v", what, err)
		}
		return tr, replayed
	}
	sweep := ledger.TransferSpec{Reference: "single-write-" + ten.ID + "-sweep", Type: ledger.TypePosted, Postings: ledger.Move(platform, share, 1000)}
	first, _ := post("a sweep over two homes", sweep)
	if again, replayed := post("the sweep retried", sweep); !replayed || again.ID != first.ID {
		t.Fatalf("the retried sweep: %s replayed %v, want %s replayed", again.ID, replayed, first.ID)
	}
	post("a deposit", ledger.TransferSpec{Reference: "single-write-" + ten.ID + "-deposit", Type: ledger.TypePosted, Postings: ledger.Move(share, avail, 100)})
	hold, _ := post("a hold over two homes", ledger.TransferSpec{Reference: "single-write-" + ten.ID + "-hold", Type: ledger.TypePending,
		Postings: ledger.Move(share, platform, 50)})
	post("the hold's post", ledger.TransferSpec{Reference: "single-write-" + ten.ID + "-post", Type: ledger.TypePostPending,
		PendingID: hold.ID, Amount: 50, TargetHome: ten.ID})
	assertSingleWrites(t, ten.ID, share, avail, hold.ID)
}

// assertSingleWrites checks the four transfers, their eight postings, the share's and the
// available balance, and the hold's state (posted, resolved by its post).
func assertSingleWrites(t *testing.T, tenantID, share, avail, holdID string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var transfers, postings, sharePosted, availPosted int64
	if err := conn.QueryRow(ctx, `WITH t AS MATERIALIZED (SELECT id, home_tenant_id FROM ledger_transfers WHERE reference LIKE 'single-write-' || $1 || '-%')
		SELECT (SELECT count(*) FROM t),
		(SELECT count(*) FROM ledger_postings p WHERE (p.transfer_id, p.transfer_home_tenant_id) IN (SELECT id, home_tenant_id FROM t)),
		(SELECT posted FROM ledger_balances WHERE home_tenant_id = $1 AND account_id = $2),
		(SELECT posted FROM ledger_balances WHERE home_tenant_id = $1 AND account_id = $3)`, tenantID, share, avail).
		Scan(&transfers, &postings, &sharePosted, &availPosted); err != nil {
		t.Fatal(err)
	}
	if transfers != 4 || postings != 8 || sharePosted != 850 || availPosted != 100 {
		t.Fatalf("%d transfers, %d postings, share %d, available %d: want 4, 8, 850, 100", transfers, postings, sharePosted, availPosted)
	}
	var status, resolvedBy, post string
	if err := conn.QueryRow(ctx, `SELECT h.status, coalesce(h.resolved_by, ''), p.id FROM ledger_transfers h, ledger_transfers p
		WHERE h.id = $1 AND h.home_tenant_id = $2 AND p.reference = 'single-write-' || $2 || '-post' AND p.home_tenant_id = $2`, holdID, tenantID).
		Scan(&status, &resolvedBy, &post); err != nil {
		t.Fatal(err)
	}
	if status != string(ledger.StatusPosted) || resolvedBy != post {
		t.Fatalf("the hold: %s resolved by %q, want %s resolved by its post %s", status, resolvedBy, ledger.StatusPosted, post)
	}
}

// sweepMetadata marks a test's transfer over two homes as a share's sweep, which corridor
// check's single-home-transfers line allows (the suite's later checks read the whole database).
func sweepMetadata() map[string]string {
	return map[string]string{"source": "platform_share_sweep"}
}

// openSweepAccounts opens the tenant's share of the world account name, its available balance
// and the world account itself (the platform's home), on ordinary connections: opening
// accounts over two homes reads both (rarely: a tenant's first money).
func openSweepAccounts(ctx context.Context, t *testing.T, tenantID, name string) (share, avail, platform string) {
	t.Helper()
	db, err := postgres.Open(ctx, env().DatabaseURL, postgres.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	world := ledger.World(core.EnvTest, ledger.AssetUSDC, name)
	var accts []ledger.Account
	if err := postgres.NewStore(db).ForCitus().InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		accts, err = tx.Ledger().OpenAccounts(ctx, time.Now(), ledger.Share(world, tenantID),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantID), world)
		return err
	}); err != nil {
		t.Fatalf("opening the accounts: %v", err)
	}
	return accts[0].ID, accts[1].ID, accts[2].ID
}

package postgres_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
)

// TestChain_CommitTakesAFreeStripe: with every chain head of the environment held by another
// transaction except one lane of each transfer's home bucket, a transfer (alone, and a
// pipeline batch of them) commits without waiting for it, on the free lane of its home
// tenant's bucket; the chains verify.
func TestChain_CommitTakesAFreeStripe(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	// Lane 2 of each home's bucket stays free.
	free := map[string]int{}
	for _, a := range p.accounts[:2] {
		free[a.ID] = chainLane(chainBucket(t, p, a.TenantID), 2)
	}
	holder := holdHeads(t, p, "stripe NOT IN (?, ?)", free[p.accounts[0].ID], free[p.accounts[1].ID])
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxWait: -1})
	done := make(chan error, 2)
	go func() { done <- postIn(p.direct, move("free-direct", p.world.ID, p.accounts[0].ID, 3)) }()
	go func() { done <- postIn(s, move("free-batch", p.world.ID, p.accounts[1].ID, 4)) }()
	answered(t, done, 2, "a commit waited for a chain head another transaction held while one was free")
	stripes := []int{linkedStripe(t, p, "free-direct"), linkedStripe(t, p, "free-batch")}
	want := []int{free[p.accounts[0].ID], free[p.accounts[1].ID]}
	if stripes[0] != want[0] || stripes[1] != want[1] {
		t.Fatalf("links on stripes %v, want the free lanes of their homes' buckets %v", stripes, want)
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	p.verify(t)
}

// TestChain_BatchOfManyBucketsLinksEachOnAFreeStripe: one batch of six tenants' transfers
// (their homes in several buckets), with every stripe held by another transaction except one
// of each bucket, links each transfer on its home bucket's free stripe without waiting; the
// chains verify.
func TestChain_BatchOfManyBucketsLinksEachOnAFreeStripe(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 6)
	buckets := map[int]bool{}
	for _, a := range p.accounts {
		buckets[chainBucket(t, p, a.TenantID)] = true
	}
	if len(buckets) < 2 {
		t.Skip("six random tenants fell in one bucket") // about one run in 10^8
	}
	holder := holdHeads(t, p, "stripe % ? <> 2", postgres.ChainLanes)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: len(p.accounts), MaxWait: time.Hour, AlwaysWait: true})
	done := make(chan error, len(p.accounts))
	for i, a := range p.accounts {
		go func() { done <- postIn(s, move(fmt.Sprintf("buckets-%d", i), p.world.ID, a.ID, int64(i+1))) }()
	}
	answered(t, done, len(p.accounts), "a batch waited for a chain head another transaction held while its bucket had one free")
	if st := s.PipelineStats(); st.Batches != 1 || st.Units != int64(len(p.accounts)) {
		t.Fatalf("stats %+v: want the six transfers in one batch", st)
	}
	for i, a := range p.accounts {
		if stripe, want := linkedStripe(t, p, fmt.Sprintf("buckets-%d", i)), chainLane(chainBucket(t, p, a.TenantID), 2); stripe != want {
			t.Errorf("transfer %d on stripe %d, want its bucket's free stripe %d", i, stripe, want)
		}
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	p.verify(t)
}

// TestChain_TransactionKeepsItsStripe: a transaction that linked a bucket's transfers on one
// stripe links its later transfers of that bucket on the same stripe, in a call of one bucket
// or of several, though the stripe it preferred was held at first and has since been let go;
// a call of several buckets, one of whose four stripes are all held by another transaction,
// waits for one of them; every link's hash chains from the one before it.
func TestChain_TransactionKeepsItsStripe(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 0)
	ctx := context.Background()
	homes := []string{core.NewID(core.PrefixTenant)} // A, B, C: three buckets
	for len(homes) < 3 {
		h := core.NewID(core.PrefixTenant)
		fresh := true
		for _, o := range homes {
			fresh = fresh && chainBucket(t, p, h) != chainBucket(t, p, o)
		}
		if fresh {
			homes = append(homes, h)
		}
	}
	homeA, homeB, homeC := homes[0], homes[1], homes[2]
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	var rotation int
	if err := tx.QueryRowContext(ctx, "SELECT (txid_current() % ?)::int", postgres.ChainLanes).Scan(&rotation); err != nil {
		t.Fatal(err)
	}
	preferred := chainLane(chainBucket(t, p, homeA), rotation)
	holder := holdHeads(t, p, "stripe = ?", preferred)
	link := func(ids []string, homes []string) error {
		envs, canon := make([]string, len(ids)), make([][]byte, len(ids))
		for i, id := range ids {
			envs[i], canon[i] = "TEST", []byte("canonical "+id)
		}
		_, err := tx.ExecContext(ctx, `SELECT ledger_link_batch(?::text[], ?::text[], ?::text[], ?::bytea[])`,
			pgdialect.Array(envs), pgdialect.Array(homes), pgdialect.Array(ids), pgdialect.Array(canon))
		return err
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(link([]string{"trf_keep1", "trf_keep2"}, []string{homeA, homeA}))
	must(holder.Rollback())
	must(link([]string{"trf_keep3", "trf_keep4", "trf_keep5"}, []string{homeB, homeA, homeB}))
	must(link([]string{"trf_keep6"}, []string{homeA}))

	// Bucket C's four stripes held: a call for B and C waits until they are let go.
	bucketC := chainBucket(t, p, homeC)
	holder = holdHeads(t, p, "stripe BETWEEN ? AND ?", chainLane(bucketC, 0), chainLane(bucketC, postgres.ChainLanes-1))
	linked := make(chan error, 1)
	go func() { linked <- link([]string{"trf_keep7", "trf_keep8"}, []string{homeC, homeB}) }()
	for waiting := false; !waiting; {
		must(p.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE 'SELECT ledger_link_batch%')`).Scan(&waiting))
		select {
		case err := <-linked:
			t.Fatalf("linked (%v) while every stripe of its bucket was held", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	must(holder.Rollback())
	must(<-linked)

	// A fresh database: every stripe's first link chains from the empty hash.
	rows, err := tx.QueryContext(ctx, `SELECT c.transfer_id, c.stripe, c.position, c.hash,
		coalesce(lag(c.hash) OVER (PARTITION BY c.stripe ORDER BY c.position), '\x'::bytea) AS prev
		FROM ledger_chain c WHERE c.environment = 'TEST' ORDER BY c.transfer_id`)
	must(err)
	defer rows.Close()
	home := map[string]string{"trf_keep3": homeB, "trf_keep5": homeB, "trf_keep7": homeC, "trf_keep8": homeB}
	stripeOf := map[string]int{}
	for rows.Next() {
		var id string
		var stripe int
		var pos int64
		var hash, prev []byte
		must(rows.Scan(&id, &stripe, &pos, &hash, &prev))
		if want := sha256.Sum256(append(prev, []byte("canonical "+id)...)); !bytes.Equal(hash, want[:]) {
			t.Errorf("%s at %d/%d does not chain from the link before it", id, stripe, pos)
		}
		h, ok := home[id]
		if !ok {
			h = homeA
		}
		if s, ok := stripeOf[h]; ok && s != stripe {
			t.Errorf("%s on stripe %d, its transaction's earlier link of that bucket on %d", id, stripe, s)
		}
		stripeOf[h] = stripe
	}
	must(rows.Err())
	if len(stripeOf) != 3 || stripeOf[homeA] == preferred {
		t.Fatalf("stripes %v: want three, and bucket A's not the preferred stripe %d held at its first link", stripeOf, preferred)
	}
	if s := stripeOf[homeC]; s < chainLane(bucketC, 0) || s > chainLane(bucketC, postgres.ChainLanes-1) {
		t.Fatalf("bucket C's link on stripe %d, outside its bucket", s)
	}
}

// chainBucket is the hash chain's bucket of a home tenant.
func chainBucket(t *testing.T, p pipeDB, tenant string) int {
	t.Helper()
	var b int
	if err := p.db.QueryRowContext(context.Background(), "SELECT ledger_chain_bucket(?)", tenant).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// chainLane is stripe lane (0 to ChainLanes-1) of bucket b.
func chainLane(b, lane int) int { return postgres.ChainStripesBefore + postgres.ChainLanes*b + lane }

// linkedStripe is the stripe the transfer with that reference is linked on.
func linkedStripe(t *testing.T, p pipeDB, reference string) int {
	t.Helper()
	var s int
	if err := p.db.QueryRowContext(context.Background(), `SELECT c.stripe FROM ledger_chain c
		JOIN ledger_transfers t ON t.id = c.transfer_id WHERE t.reference = ?`, reference).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// answered waits for n answers on done, each within a minute, and fails the test with stuck
// when one does not come.
func answered(t *testing.T, done <-chan error, n int, stuck string) {
	t.Helper()
	for range n {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal(stuck)
		}
	}
}

// holdHeads holds the TEST chain heads whose stripe meets cond, args its parameters (holdRows).
func holdHeads(t *testing.T, p pipeDB, cond string, args ...any) bun.Tx {
	t.Helper()
	return holdRows(t, p, "SELECT 1 FROM ledger_chain_heads WHERE environment = 'TEST' AND "+cond+" FOR UPDATE", args...)
}

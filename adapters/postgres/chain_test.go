package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
)

// TestChain_CommitTakesAFreeStripe: with every chain head of the environment held by another
// transaction except one lane of each transfer's home bucket, a transfer (alone, and a
// pipeline batch of them) commits without waiting for it, on the free lane of its home
// tenant's bucket; the chains verify.
func TestChain_CommitTakesAFreeStripe(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	ctx := context.Background()
	holder, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback() }()
	// Lane 2 of each home's bucket stays free.
	free := map[string]int{}
	for _, a := range p.accounts[:2] {
		var s int
		if err := p.db.DB.QueryRowContext(ctx, `SELECT $1::int + $2::int * ledger_chain_bucket($3) + 2`,
			postgres.ChainStripesBefore, postgres.ChainLanes, a.TenantID).Scan(&s); err != nil {
			t.Fatal(err)
		}
		free[a.ID] = s
	}
	if _, err := holder.ExecContext(ctx, fmt.Sprintf("SELECT 1 FROM ledger_chain_heads WHERE environment = 'TEST' AND stripe NOT IN (%d, %d) FOR UPDATE",
		free[p.accounts[0].ID], free[p.accounts[1].ID])); err != nil {
		t.Fatal(err)
	}
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxWait: -1})
	done := make(chan error, 2)
	go func() { done <- postIn(p.direct, move("free-direct", p.world.ID, p.accounts[0].ID, 3)) }()
	go func() { done <- postIn(s, move("free-batch", p.world.ID, p.accounts[1].ID, 4)) }()
	for i := 0; i < 2; i++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("a commit waited for a chain head another transaction held while one was free")
		}
	}
	var stripes []int
	rows, err := p.db.QueryContext(ctx, `SELECT c.stripe FROM ledger_chain c JOIN ledger_transfers t ON t.id = c.transfer_id
		WHERE t.reference IN ('free-direct', 'free-batch') ORDER BY t.reference DESC`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s int
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		stripes = append(stripes, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []int{free[p.accounts[0].ID], free[p.accounts[1].ID]}
	if len(stripes) != 2 || stripes[0] != want[0] || stripes[1] != want[1] {
		t.Fatalf("links on stripes %v, want the free lanes of their homes' buckets %v", stripes, want)
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	p.verify(t)
}

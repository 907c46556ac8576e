package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
)

// TestChain_CommitTakesAFreeStripe: with fifteen of the environment's sixteen chain heads
// held by another transaction, a transfer (alone, and a pipeline batch of them) commits
// without waiting for it, on the one free stripe; the chains verify.
func TestChain_CommitTakesAFreeStripe(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 2)
	ctx := context.Background()
	holder, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback() }()
	if _, err := holder.ExecContext(ctx, "SELECT 1 FROM ledger_chain_heads WHERE environment = 'TEST' AND stripe <> 7 FOR UPDATE"); err != nil {
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
		WHERE t.reference IN ('free-direct', 'free-batch')`)
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
	if len(stripes) != 2 || stripes[0] != 7 || stripes[1] != 7 {
		t.Fatalf("links on stripes %v, want both on the free stripe 7", stripes)
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	p.verify(t)
}

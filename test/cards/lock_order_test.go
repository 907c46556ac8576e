package cards

import (
	"context"
	"testing"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

// TestCards_ReversalLocksTheHoldBeforeTheCard: a funding-account card's hold rows are locked
// before its card's row on the paths that post on an approval's hold, as a known card's
// authorization takes them (its claim locks the tenant's service balance, then its lock read the
// card; docs/ledger.md, "Lock order of the card paths"). A transaction standing in for such an
// authorization holds the tenant's service balance row; a reversal then waits for it, and while
// it waits the stand-in can still lock the card's row at once (NOWAIT), as the authorization's
// lock read does next: the reversal holds no card row, so the two cannot deadlock. When the
// reversal locked the card first (the order this test was written against), the NOWAIT fails.
// Once the stand-in ends, the reversal completes. The expiry pass and a capture lock the same
// way (cards.lockCardForHold).
func TestCards_ReversalLocksTheHoldBeforeTheCard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := wiring.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	srv := harness.NewServerOn(t, url, nil)
	// On Citus the rows live on workers, where the coordinator's pg_blocking_pids does not see
	// the reversal wait, and the ledger's rows are locked by the posting, after the card.
	if citus, err := postgres.IsCitus(ctx, srv.Service.Store.DB().DB); err != nil || citus {
		t.Skipf("the order is the posting's on Citus (citus %v, err %v)", citus, err)
	}
	ten := srv.NewTenant(t)
	hid := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)["cardholderId"].(string)
	id := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).Expect(t, 201).JSON(t)["cardId"].(string)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1.00"}).Expect(t, 201)
	a := authorize(t, ten.Root.With("Idempotency-Key", "lock-order-1"), id, "0.10", "5411")
	if a["status"] != "APPROVED" {
		t.Fatalf("authorization: %v", a)
	}

	db := srv.Service.Store.DB().DB
	claim, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = claim.Rollback() }()
	var pid, locked int
	if err := claim.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if err := claim.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT b.account_id FROM ledger_balances b
		JOIN ledger_accounts a ON a.id = b.account_id WHERE a.reference = 'tenant:' || $1 || ':available'
		FOR UPDATE OF b) l`, ten.ID).Scan(&locked); err != nil || locked != 1 {
		t.Fatalf("the tenant's service balance row: %d locked (%v)", locked, err)
	}

	done := make(chan map[string]any, 1)
	go func() {
		done <- ten.Root.Post("/v1/sandbox/card-authorizations/"+a["authorizationId"].(string)+"/reverse", nil).Expect(t, 200).JSON(t)
	}()
	harness.Eventually(t, "the reversal waits for the tenant's balance row", func() bool {
		var waiting int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, pid).Scan(&waiting)
		return err == nil && waiting > 0
	})
	if _, err := claim.ExecContext(ctx, `SELECT id FROM cards WHERE tenant_id = $1 AND id = $2 FOR UPDATE NOWAIT`, ten.ID, id); err != nil {
		t.Fatalf("the reversal waiting for the balance holds the card's row: %v", err)
	}
	if err := claim.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got["status"] != "REVERSED" {
		t.Errorf("the reversal that waited: %v; want REVERSED", got)
	}
	expectServiceBalance(t, ten.Root, "1000000", "0")
	harness.ExpectLedgerBalanced(t, url, ten)
}

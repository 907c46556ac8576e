package cards

import (
	"context"
	"testing"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

// TestCards_KnownCardLocksTheCardBeforeItsHold: every card path locks the card's row before its
// hold's ledger rows (docs/ledger.md, "Lock order"). A transaction standing in for the expiry
// pass locks a known funding-account card's row, as the pass does first; an authorization on
// that card then waits for the card. While it waits, the stand-in can still lock every ledger
// balance row of the tenant at once (NOWAIT), as the pass's void does next: the authorization
// holds none of them, so the two cannot deadlock. When the claim of the Idempotency-Key locked
// the tenant's service balance before the card's lock read (the order this test was written
// against), the NOWAIT lock fails. Once the stand-in ends, the authorization is approved.
func TestCards_KnownCardLocksTheCardBeforeItsHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := wiring.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	srv := harness.NewServerOn(t, url, nil)
	// On Citus the card's row and the balance rows live on workers, where the coordinator's
	// pg_blocking_pids does not see the authorization wait; the order there is the same (the
	// card's lock read locks the card, the hold's own locking read the balance rows after it).
	if citus, err := postgres.IsCitus(ctx, srv.Service.Store.DB().DB); err != nil || citus {
		t.Skipf("the wait is not visible on a Citus coordinator (citus %v, err %v)", citus, err)
	}
	ten := srv.NewTenant(t)
	hid := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)["cardholderId"].(string)
	id := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).Expect(t, 201).JSON(t)["cardId"].(string)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1.00"}).Expect(t, 201)
	if a := authorize(t, ten.Root.With("Idempotency-Key", "lock-order-1"), id, "0.10", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("the card's first authorization (it becomes known): %v", a)
	}

	db := srv.Service.Store.DB().DB
	expiry, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = expiry.Rollback() }()
	var pid int
	if err := expiry.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := expiry.ExecContext(ctx, `SELECT id FROM cards WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, ten.ID, id); err != nil {
		t.Fatal(err)
	}

	done := make(chan map[string]any, 1)
	go func() {
		done <- authorize(t, ten.Root.With("Idempotency-Key", "lock-order-2"), id, "0.10", "5411")
	}()
	harness.Eventually(t, "the authorization waits for the card's row", func() bool {
		var waiting int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, pid).Scan(&waiting)
		return err == nil && waiting > 0
	})
	rows, err := expiry.QueryContext(ctx, `SELECT account_id FROM ledger_balances WHERE home_tenant_id = $1
		ORDER BY account_id FOR UPDATE NOWAIT`, ten.ID)
	if err != nil {
		t.Fatalf("the authorization waiting for the card holds ledger rows of the tenant: %v", err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("the authorization waiting for the card holds ledger rows of the tenant: %v", err)
	}
	if err := rows.Close(); err != nil || n < 2 {
		t.Fatalf("locked %d balance rows of the tenant (%v); want its service balance and the card's authorized account", n, err)
	}
	if err := expiry.Rollback(); err != nil {
		t.Fatal(err)
	}
	if a := <-done; a["status"] != "APPROVED" {
		t.Errorf("the authorization that waited: %v; want APPROVED", a)
	}
	expectServiceBalance(t, ten.Root, "800000", "200000")
}

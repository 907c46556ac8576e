package citus

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestCitus_DepositOnOneWorker: a deposit's idempotency record and its ledger transfer (with
// the transfer's postings and the tenant's balance rows) are on the same worker, the tenant's:
// the ledger is distributed by its home with the tenant group, so a money POST writes one node.
// Each row is read directly in its table's shard on that worker, and every one of the tenant's
// ledger rows the coordinator sees is there.
func TestCitus_DepositOnOneWorker(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ten := env().NewTenant(t)
	key := "colocated-deposit-" + ten.ID
	ten.Root.With("Idempotency-Key", key).Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "3.25"}).Expect(t, 201)
	record := tenantPlacement(t, conn, "idempotency_keys", ten.ID)
	worker := workerConn(t, record)
	defer worker.Close(ctx)
	var records int
	shard := pgx.Identifier{fmt.Sprintf("idempotency_keys_%d", record.shard)}.Sanitize()
	if err := worker.QueryRow(ctx, `SELECT count(*) FROM `+shard+` WHERE tenant_id = $1 AND key = $2`, ten.ID, key).Scan(&records); err != nil {
		t.Fatal(err)
	}
	if records != 1 {
		t.Fatalf("the deposit's idempotency record: %d rows in shard %d on %s:%d, want 1", records, record.shard, record.host, record.port)
	}
	for _, table := range []string{"ledger_transfers", "ledger_postings", "ledger_balances", "ledger_accounts"} {
		p := tenantPlacement(t, conn, table, ten.ID)
		if p.host != record.host || p.port != record.port {
			t.Errorf("%s for the tenant is on %s:%d, its idempotency record on %s:%d", table, p.host, p.port, record.host, record.port)
			continue
		}
		var all, there int64
		if err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s WHERE home_tenant_id = $1`, table), ten.ID).Scan(&all); err != nil {
			t.Fatal(err)
		}
		local := pgx.Identifier{fmt.Sprintf("%s_%d", table, p.shard)}.Sanitize()
		if err := worker.QueryRow(ctx, `SELECT count(*) FROM `+local+` WHERE home_tenant_id = $1`, ten.ID).Scan(&there); err != nil {
			t.Fatalf("%s on %s:%d: %v", table, p.host, p.port, err)
		}
		if there == 0 || there != all {
			t.Errorf("%s: %d of the tenant's %d rows on its idempotency record's worker, want all and some", table, there, all)
		}
	}
}

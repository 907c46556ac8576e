package check

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/postgres"
)

// TestCheck_SingleHomeFromTheSplit: single-home-transfers looks at the transfers from the
// recorded split on. A deposit's transfer made to touch a second tenant's account is listed;
// with the split mark moved past it (an upgraded database whose transfer predates the split)
// it is not, and with the mark back it is again.
func TestCheck_SingleHomeFromTheSplit(t *testing.T) {
	ctx := context.Background()
	a, b := env().NewTenant(t), env().NewTenant(t)
	a.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "2"}).Expect(t, 201)
	b.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "2"}).Expect(t, 201)
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) }) // after the reverts below, which run first
	var transfer, other string
	if err := conn.QueryRow(ctx, `SELECT id FROM ledger_transfers WHERE home_tenant_id = $1 ORDER BY created_at LIMIT 1`, a.ID).
		Scan(&transfer); err != nil {
		t.Fatalf("tenant A's deposit transfer: %v", err)
	}
	if err := conn.QueryRow(ctx, `SELECT id FROM ledger_accounts WHERE home_tenant_id = $1 ORDER BY id LIMIT 1`, b.ID).
		Scan(&other); err != nil {
		t.Fatalf("an account of tenant B: %v", err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`UPDATE ledger_transfers SET posting_accounts = posting_accounts || $2::text, posting_amounts = posting_amounts || 1::bigint
		WHERE id = $1 AND home_tenant_id = $3`, transfer, other, a.ID)
	t.Cleanup(func() { // trim_array: a Citus coordinator crashed on the slice of a distributed row's array
		exec(`UPDATE ledger_transfers SET posting_accounts = trim_array(posting_accounts, 1),
			posting_amounts = trim_array(posting_amounts, 1) WHERE id = $1 AND home_tenant_id = $2`, transfer, a.ID)
	})
	var split string
	if err := conn.QueryRow(ctx, `SELECT split_at::text FROM ledger_home_split`).Scan(&split); err != nil {
		t.Fatalf("the split mark: %v", err)
	}
	listed := func() bool {
		t.Helper()
		crossing, err := postgres.MultiHomeTransfers(ctx, env().Service.Store.DB())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(strings.Join(crossing, "\n"), transfer)
	}
	if !listed() {
		t.Fatalf("a transfer after the split touching two homes is not listed")
	}
	exec(`UPDATE ledger_home_split SET split_at = (SELECT created_at FROM ledger_transfers WHERE id = $1) + interval '1 microsecond'`, transfer)
	t.Cleanup(func() { exec(`UPDATE ledger_home_split SET split_at = $1::timestamptz`, split) })
	if listed() {
		t.Fatalf("a transfer from before the split is listed")
	}
	exec(`UPDATE ledger_home_split SET split_at = $1::timestamptz`, split)
	if !listed() {
		t.Fatalf("with the mark back, the transfer is not listed again")
	}
}

package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestMigration_TenantInWalletAndTreasuryKeys: 000072 leads the keys of wallets, handles, drips,
// Safe payments, ramps and the treasury with the tenant (a bucket takes its account's), ties
// them and the keys to them from invoices and bills to the tenant, writes the lookup rows of
// existing wallets (the first wallet at an address in its environment) and handles, keeps an
// address and a handle one tenant's across tenants there, and its down migration gives the
// old keys back with the rows.
func TestMigration_TenantInWalletAndTreasuryKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(71); err != nil {
		t.Fatal(err)
	}
	// A wallet on chain n is created n seconds on, so the first wallet at an address is the chain-1 one.
	wallet := func(id, tenant string, chain int, address string) string {
		return fmt.Sprintf(`INSERT INTO wallets (id, tenant_id, environment, name, chain_id, address, owners, threshold, status,
			created_at) VALUES ('%s', '%s', 'TEST', 'w', %d, '%s', '[{"address":"0x1","role":"ADMIN_OWNER"}]', 1, 'DEPLOYED',
			now() + interval '%d second')`, id, tenant, chain, address, chain)
	}
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_a', 'A', 'a', 'usr_a', now()),
			('ten_b', 'B', 'b', 'usr_b', now())`,
		wallet("wal_1", "ten_a", 1, "0xAbC"), wallet("wal_2", "ten_a", 2, "0xabc"), wallet("wal_3", "ten_a", 1, "0xdef"),
		`INSERT INTO handles (environment, handle, tenant_id, wallet_id, created_at, updated_at)
			VALUES ('TEST', 'alice', 'ten_a', 'wal_1', now(), now())`,
		`INSERT INTO safe_payments (id, tenant_id, environment, source_wallet_id, safe_address, chain_id, destination_type,
			destination_address, destination_chain_id, asset, amount_base_units, status, safe_nonce, threshold, created_at, updated_at)
			VALUES ('pay_1', 'ten_a', 'TEST', 'wal_1', '0xAbC', 1, 'address', '0x9', 1, 'usdc', 5, 'CREATED', 0, 1, now(), now())`,
		`INSERT INTO treasury_accounts (id, tenant_id, environment, name, chain_id, threshold, created_at)
			VALUES ('tra_1', 'ten_a', 'TEST', 'ops', 1, 1, now())`,
		`INSERT INTO treasury_buckets (id, account_id, wallet_id, name, kind, target_bps, apy_bps, position)
			VALUES ('trb_1', 'tra_1', 'wal_1', 'op', 'OPERATING', 5000, 0, 0), ('trb_2', 'tra_1', 'wal_3', 'res', 'RESERVE', 5000, 0, 1)`,
		`INSERT INTO treasury_sweeps (id, account_id, tenant_id, environment, source_bucket_id, dest_bucket_id, amount_base_units,
			status, payment_id, created_at) VALUES ('swp_1', 'tra_1', 'ten_a', 'TEST', 'trb_1', 'trb_2', 5, 'PROPOSED', 'pay_1', now())`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := m.Migrate(72); err != nil {
		t.Fatal(err)
	}
	want := "handle:TEST:alice>ten_a wallet_address:TEST:0xabc>ten_a wallet_address:TEST:0xdef>ten_a"
	if got := strings.Join(lookupRows(ctx, t, db), " "); got != want {
		t.Errorf("lookups after 000072: %s\nwant %s", got, want)
	}
	for name, want := range map[string]string{
		"wallets_pkey": "PRIMARY KEY (tenant_id, id)", "handles_pkey": "PRIMARY KEY (tenant_id, environment, handle)",
		"safe_payments_pkey": "PRIMARY KEY (tenant_id, id)", "treasury_buckets_pkey": "PRIMARY KEY (tenant_id, id)",
		"treasury_sweeps_payment_id_fkey": "FOREIGN KEY (tenant_id, payment_id) REFERENCES safe_payments(tenant_id, id)",
		"bills_payer_payment_id_fkey":     "FOREIGN KEY (payer_tenant_id, payer_payment_id) REFERENCES safe_payments(tenant_id, id)",
		"cards_wallet_id_fkey":            "FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets(tenant_id, id)",
	} {
		var def string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1`, name).
			Scan(&def); err != nil || def != want {
			t.Errorf("%s: %q (err %v), want %q", name, def, err, want)
		}
	}
	var bucketTenants string
	if err := db.QueryRowContext(ctx, `SELECT string_agg(tenant_id, ',' ORDER BY id) FROM treasury_buckets`).Scan(&bucketTenants); err != nil ||
		bucketTenants != "ten_a,ten_a" {
		t.Errorf("bucket tenants %q (err %v), want their account's", bucketTenants, err)
	}
	for _, q := range []string{
		`INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ('TEST:0xabc', 'wallet_address', 'ten_b')`,
		`INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ('TEST:alice', 'handle', 'ten_b')`,
	} {
		if _, err := db.ExecContext(ctx, q); err == nil || !strings.Contains(err.Error(), "tenant_lookups_one_tenant") {
			t.Errorf("%s: err = %v, want the one-tenant index", q, err)
		}
	}
	if _, err := db.ExecContext(ctx, `UPDATE treasury_sweeps SET tenant_id = 'ten_b'`); err == nil {
		t.Error("a sweep moved to another tenant than its payment's and account's")
	}
	if err := m.Migrate(71); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM wallets) + (SELECT count(*) FROM handles)
		+ (SELECT count(*) FROM treasury_buckets) + (SELECT count(*) FROM tenant_lookups)`).Scan(&n); err != nil || n != 6 {
		t.Errorf("at 000071: %d rows (err %v), want 6 (3 wallets, 1 handle, 2 buckets, no lookups)", n, err)
	}
	var pk string
	if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'wallets_pkey'`).
		Scan(&pk); err != nil || pk != "PRIMARY KEY (id)" {
		t.Errorf("wallets_pkey at 000071: %q (err %v)", pk, err)
	}
}

package postgres_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestMigration_TenantInInvoiceCheckoutAndAliasKeys: 000070 and 000071 lead the keys of
// checkouts, refunds, invoices and phone aliases with the tenant and a bill's with its payer,
// write the lookup rows of existing rows (an invoice's and a checkout's id, a deposit address,
// a VERIFIED bill's nonce, a VERIFIED alias's phone; none for a FAILED bill or a pending alias),
// keep a signer's nonce and a verified phone unique across tenants there, and the down
// migrations give the old keys back with the rows.
func TestMigration_TenantInInvoiceCheckoutAndAliasKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(69); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_a', 'A', 'a', 'usr_a', now()),
			('ten_b', 'B', 'b', 'usr_b', now())`,
		`INSERT INTO checkouts (id, tenant_id, environment, chain_id, amount_base_units, currency, cryptocurrency,
			deposit_address, start_block, status, expires_at, watch_until, created_at, updated_at)
			VALUES ('chk_1', 'ten_a', 'TEST', 84532, 5, 'USD', 'USDC', '0xdep', 1, 'CREATED', now(), now(), now(), now())`,
		`INSERT INTO invoices (id, tenant_id, environment, amount_base_units, payer_address, payee_address, arbiter_address,
			chain_id, status, created_at, updated_at) VALUES ('inv_1', 'ten_a', 'TEST', 5, '0x1', '0x2', '0x3', 84532, 'DRAFT', now(), now())`,
		`INSERT INTO bills (id, environment, sender_tenant_id, payer_tenant_id, amount_base_units, payer_address, payee_address,
			chain_id, sender_address, signature, sig_nonce, sig_expires_at, doc_hash, domain_chain_id, domain_verifying_contract,
			verification_status, created_at) VALUES
			('bil_1', 'TEST', 'ten_a', 'ten_b', 5, '0x1', '0x2', 84532, '0xABC', 's', '7', now(), 'd', 84532, '0x4', 'VERIFIED', now()),
			('bil_2', 'TEST', 'ten_a', 'ten_b', 5, '0x1', '0x2', 84532, '0xABC', 's', '7', now(), 'd', 84532, '0x4', 'FAILED', now())`,
		`INSERT INTO phone_aliases (id, tenant_id, environment, phone_hash, phone_ciphertext, masked, status, code_expires_at,
			created_at) VALUES ('pha_1', 'ten_a', 'TEST', 'ph1', '\x00', 'm', 'VERIFIED', now(), now()),
			('pha_2', 'ten_b', 'TEST', 'ph1', '\x00', 'm', 'PENDING_VERIFICATION', now(), now())`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(71); err != nil {
		t.Fatal(err)
	}
	want := "bill_nonce:TEST:0xabc:7>ten_a checkout:chk_1>ten_a checkout_deposit:0xdep>ten_a invoice:inv_1>ten_a phone_alias:TEST:ph1>ten_a"
	if got := strings.Join(lookupRows(ctx, t, db), " "); got != want {
		t.Errorf("lookups after 000071: %s\nwant %s", got, want)
	}
	for name, want := range map[string]string{
		"checkouts_pkey": "PRIMARY KEY (tenant_id, id)", "checkout_refunds_pkey": "PRIMARY KEY (tenant_id, id)",
		"invoices_pkey": "PRIMARY KEY (tenant_id, id)", "bills_pkey": "PRIMARY KEY (payer_tenant_id, id)",
		"phone_aliases_pkey": "PRIMARY KEY (tenant_id, id)", "sms_messages_pkey": "PRIMARY KEY (tenant_id, id)",
		"checkout_refunds_checkout_id_fkey": "FOREIGN KEY (tenant_id, checkout_id) REFERENCES checkouts(tenant_id, id)",
	} {
		var def string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1`, name).
			Scan(&def); err != nil || def != want {
			t.Errorf("%s: %q (err %v), want %q", name, def, err, want)
		}
	}
	for _, q := range []string{
		`INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ('TEST:0xabc:7', 'bill_nonce', 'ten_b')`,
		`INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ('TEST:ph1', 'phone_alias', 'ten_b')`,
		`INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ('0xdep', 'checkout_deposit', 'ten_b')`,
	} {
		if _, err := db.ExecContext(ctx, q); err == nil || !strings.Contains(err.Error(), "tenant_lookups_one_tenant") {
			t.Errorf("%s: err = %v, want the one-tenant index", q, err)
		}
	}
	if err := m.Migrate(69); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM checkouts) + (SELECT count(*) FROM invoices)
		+ (SELECT count(*) FROM bills) + (SELECT count(*) FROM phone_aliases) + (SELECT count(*) FROM tenant_lookups)`).
		Scan(&n); err != nil || n != 6 {
		t.Errorf("at 000069: %d rows (err %v), want 6 (1 checkout, 1 invoice, 2 bills, 2 aliases, no lookups)", n, err)
	}
}

// lookupRows lists tenant_lookups as kind:key>tenant, in order.
func lookupRows(ctx context.Context, t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT kind || ':' || lookup_key || '>' || tenant_id FROM tenant_lookups ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

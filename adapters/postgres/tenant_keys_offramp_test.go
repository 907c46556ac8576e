package postgres_test

import (
	"context"
	"strings"
	"testing"
)

// TestMigration_TenantInOfframpKeys: 000073 keys the off-ramp family by the sender's tenant
// (the rows hanging off a payment or a claim gain it from their parent) and payout
// destinations by their owner, writes the lookup rows of existing payments, provider
// references, claims, escrow ids and claim links, keeps a provider's reference unique across
// tenants there, and the down migration gives the old keys back with the rows.
func TestMigration_TenantInOfframpKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(72); err != nil {
		t.Fatal(err)
	}
	onchain := "0x" + strings.Repeat("a", 64)
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_s', 'S', 's', 'usr_s', now()),
			('ten_r', 'R', 'r', 'usr_r', now())`,
		`INSERT INTO payout_destinations (id, tenant_id, environment, type, status, masked, allow_automatic_fallback, created_at)
			VALUES ('dst_1', 'ten_r', 'TEST', 'ONCHAIN_WALLET', 'ACTIVE', 'm', false, now())`,
		`INSERT INTO offramp_payments (id, environment, sender_tenant_id, recipient_tenant_id, recipient_phone_hash,
			recipient_phone_masked, source_chain_key, source_asset_id, source_amount_base_units, funding_mode, speed_preference,
			status, provider, provider_reference, created_at, updated_at) VALUES
			('ofp_1', 'TEST', 'ten_s', 'ten_r', 'ph', 'm', 'base', 'usdc', 100, 'INTERNAL_BALANCE', 'FASTEST', 'PROVIDER_SUBMITTED',
			 'mock', 'ref_1', now(), now())`,
		`INSERT INTO route_quotes (id, payment_id, set_version, position, destination_id, destination_type, provider,
			source_amount_base_units, source_asset_id, destination_amount_minor, destination_currency, provider_fee_minor,
			network_fee_minor, exchange_rate, estimated_delivery_seconds, requires_bridge, requires_conversion,
			requires_prefunding, status, deliver_base_units, fee_base_units, quote_expires_at, created_at) VALUES
			('rq_1', 'ofp_1', 1, 0, 'dst_1', 'ONCHAIN_WALLET', 'mock', 100, 'usdc', 100, 'USD', 0, 0, '1', 1, false, false, false,
			 'ACTIVE', 99, 1, now(), now())`,
		`INSERT INTO offramp_returns (payment_id, transfer_id, amount_base_units, created_at) VALUES ('ofp_1', 'trf_1', 99, now())`,
		`INSERT INTO offramp_hold_rechecks (payment_id, attempts, next_at) VALUES ('ofp_1', 1, now())`,
		`INSERT INTO offramp_review_approvals (payment_id, operator, reasons, approved_at, updated_at)
			VALUES ('ofp_1', 'op', '{}', now(), now())`,
		`INSERT INTO offramp_claims (id, onchain_id, environment, payment_id, sender_tenant_id, phone_hash, phone_masked,
			phone_ciphertext, amount_base_units, chain_id, chain_key, asset_id, metadata_hash, status, expires_at, created_at,
			updated_at) VALUES ('clm_1', '` + onchain + `', 'TEST', 'ofp_1', 'ten_s', 'ph', 'm', '\x01', 100, 84532, 'base', 'usdc',
			'` + onchain + `', 'OPEN', now(), now(), now())`,
		`INSERT INTO offramp_claim_links (token_hash, claim_id, environment, expires_at, created_at)
			VALUES ('tok_1', 'clm_1', 'TEST', now(), now())`,
		`INSERT INTO offramp_claim_challenges (id, claim_id, environment, code_hash, phone_hash, ip_hash, status,
			attempts_remaining, expires_at, created_at, updated_at) VALUES ('cch_1', 'clm_1', 'TEST', 'c', 'ph', 'ip', 'PENDING', 5,
			now(), now(), now())`,
		`INSERT INTO offramp_escrow_events (chain_id, tx_hash, log_index, claim_id, kind, recorded_at)
			VALUES (84532, '0xt', 0, 'clm_1', 'FUNDED', now())`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(73); err != nil {
		t.Fatal(err)
	}
	want := "claim_link:tok_1>ten_s claim_onchain:TEST:84532:" + onchain + ">ten_s offramp_claim:clm_1>ten_s " +
		"offramp_payment:ofp_1>ten_s offramp_provider_ref:mock:ref_1>ten_s"
	if got := strings.Join(lookupRows(ctx, t, db), " "); got != want {
		t.Errorf("lookups after 000073: %s\nwant %s", got, want)
	}
	for name, want := range map[string]string{
		"payout_destinations_pkey":               "PRIMARY KEY (tenant_id, id)",
		"offramp_payments_pkey":                  "PRIMARY KEY (sender_tenant_id, id)",
		"route_quotes_pkey":                      "PRIMARY KEY (tenant_id, id)",
		"offramp_returns_pkey":                   "PRIMARY KEY (tenant_id, payment_id)",
		"offramp_claims_pkey":                    "PRIMARY KEY (sender_tenant_id, id)",
		"offramp_claim_links_pkey":               "PRIMARY KEY (tenant_id, token_hash)",
		"offramp_escrow_events_pkey":             "PRIMARY KEY (tenant_id, chain_id, tx_hash, log_index)",
		"route_quotes_payment_id_fkey":           "FOREIGN KEY (tenant_id, payment_id) REFERENCES offramp_payments(sender_tenant_id, id)",
		"offramp_claim_challenges_claim_id_fkey": "FOREIGN KEY (tenant_id, claim_id) REFERENCES offramp_claims(sender_tenant_id, id)",
	} {
		var def string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1`, name).
			Scan(&def); err != nil || def != want {
			t.Errorf("%s: %q (err %v), want %q", name, def, err, want)
		}
	}
	var tenants string
	if err := db.QueryRowContext(ctx, `SELECT (SELECT tenant_id FROM route_quotes) || (SELECT tenant_id FROM offramp_returns)
		|| (SELECT tenant_id FROM offramp_hold_rechecks) || (SELECT tenant_id FROM offramp_review_approvals)
		|| (SELECT tenant_id FROM offramp_claim_links) || (SELECT tenant_id FROM offramp_claim_challenges)
		|| (SELECT tenant_id FROM offramp_escrow_events)`).Scan(&tenants); err != nil || tenants != strings.Repeat("ten_s", 7) {
		t.Errorf("backfilled tenants %q (err %v), want the sender's in each of 7 tables", tenants, err)
	}
	_, err := db.ExecContext(ctx, `INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ('mock:ref_1', 'offramp_provider_ref', 'ten_r')`)
	if err == nil || !strings.Contains(err.Error(), "tenant_lookups_one_tenant") {
		t.Errorf("a second tenant's provider reference: err = %v, want the one-tenant index", err)
	}
	if err := m.Migrate(72); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM route_quotes) + (SELECT count(*) FROM offramp_claim_links)
		+ (SELECT count(*) FROM offramp_escrow_events) + (SELECT count(*) FROM tenant_lookups)`).Scan(&n); err != nil || n != 3 {
		t.Errorf("at 000072: %d rows (err %v), want 3 (a quote, a link, an escrow event, no lookups)", n, err)
	}
}

package postgres_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/corridorhq/corridor/migrations"
	"github.com/corridorhq/corridor/test/testdb"
)

// migratorOn opens a fresh database and a migrator on it, for tests that stop at a version.
func migratorOn(ctx context.Context, t *testing.T) (*sql.DB, *migrate.Migrate) {
	t.Helper()
	db, err := sql.Open("pgx", testdb.NewDatabase(ctx, t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	driver, err := migratepgx.WithInstance(db, &migratepgx.Config{})
	if err != nil {
		t.Fatal(err)
	}
	source, err := iofs.New(migrations.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", source, "pgx5", driver)
	if err != nil {
		t.Fatal(err)
	}
	return db, m
}

// TestMigration_TenantInIdempotencyKeys migrates a database holding idempotency records from
// 000056 to 000057: each record's tenant_id is filled from its scope (the tenant of
// "tenant:{id}", the scope itself for a session without a tenant), the primary key leads with
// it, a tenant that disagrees with the scope is refused, and the down migration gives the old
// key back with the same records.
func TestMigration_TenantInIdempotencyKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(56); err != nil {
		t.Fatal(err)
	}
	for _, scope := range []string{"tenant:ten_a", "tenant:ten_b", "user:sub-1"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (scope, environment, key, fingerprint, status_code,
				body, content_type, created_at, expires_at)
			VALUES ($1, 'TEST', 'k', 'f', 201, '\x7b7d', 'application/json', now(), now() + interval '1 day')`, scope); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(57); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT scope, tenant_id FROM idempotency_keys`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var scope, tenant string
		if err := rows.Scan(&scope, &tenant); err != nil {
			t.Fatal(err)
		}
		got[scope] = tenant
	}
	rows.Close()
	want := map[string]string{"tenant:ten_a": "ten_a", "tenant:ten_b": "ten_b", "user:sub-1": "user:sub-1"}
	for scope, tenant := range want {
		if got[scope] != tenant {
			t.Errorf("scope %s: tenant_id %q, want %q", scope, got[scope], tenant)
		}
	}
	var pk string
	if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conname = 'idempotency_keys_pkey'`).Scan(&pk); err != nil {
		t.Fatal(err)
	}
	if pk != "PRIMARY KEY (tenant_id, scope, environment, key)" {
		t.Errorf("primary key %s", pk)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO idempotency_keys (tenant_id, scope, environment, key, fingerprint,
			status_code, body, content_type, created_at, expires_at)
		VALUES ('ten_b', 'tenant:ten_a', 'TEST', 'k2', 'f', 201, '\x', 'application/json', now(), now())`)
	if err == nil || !strings.Contains(err.Error(), "idempotency_keys_tenant_of_scope") {
		t.Errorf("a tenant other than the scope's: err = %v, want the check", err)
	}
	if err := m.Migrate(56); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM idempotency_claim('tenant:ten_a', 'TEST', 'k', now())
		WHERE stored`).Scan(&n); err != nil || n != 1 {
		t.Errorf("at 000056 the old claim finds %d stored records (err %v), want 1", n, err)
	}
}

// TestMigration_TenantInTwoFactorKeys: 000058 leads the primary keys of contacts, two-factor
// factors and challenges with the tenant (Citus needs the distribution column in them), keeps
// the rows, and its down migration gives the id-only keys back.
func TestMigration_TenantInTwoFactorKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(57); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO tenants (id, name, slug, owner_user_id, created_at)
		VALUES ('ten_a', 'A', 'a', 'usr_a', now())`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO contacts (id, tenant_id, environment, address, address_lower, label,
			chain_id, created_at) VALUES ('ct_1', 'ten_a', 'TEST', '0xAB', '0xab', 'x', 1, now())`); err != nil {
		t.Fatal(err)
	}
	keys := func() string {
		t.Helper()
		var got string
		if err := db.QueryRowContext(ctx, `SELECT string_agg(conrelid::regclass::text || ' ' || pg_get_constraintdef(oid), '; '
				ORDER BY conrelid::regclass::text)
			FROM pg_constraint WHERE contype = 'p'
			AND conrelid::regclass::text IN ('contacts', 'twofactor_factors', 'twofactor_challenges')`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := m.Migrate(58); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(), "contacts PRIMARY KEY (tenant_id, id); twofactor_challenges PRIMARY KEY (tenant_id, id); "+
		"twofactor_factors PRIMARY KEY (tenant_id, id)"; got != want {
		t.Errorf("at 000058: %s, want %s", got, want)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM contacts WHERE tenant_id = 'ten_a' AND id = 'ct_1'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the contact after 000058: %d rows, err %v", n, err)
	}
	if err := m.Migrate(57); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(), "contacts PRIMARY KEY (id); twofactor_challenges PRIMARY KEY (id); twofactor_factors PRIMARY KEY (id)"; got != want {
		t.Errorf("back at 000057: %s, want %s", got, want)
	}
}

// TestMigration_TenantInMemberAndKeyKeys: 000062 leads the keys of members and API keys with the
// tenant, ties a key to its creating key and member within the tenant, and fills tenant_lookups
// from the existing rows (a key's public id, an invite's token hash, an accepted member's user),
// where a public id stays unique across tenants; the down migration gives the old keys back.
func TestMigration_TenantInMemberAndKeyKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(61); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_a', 'A', 'a', 'usr_a', now())`,
		`INSERT INTO members (id, tenant_id, email, role, status, identity_user_id, invite_token_hash, invite_expires_at,
			created_at) VALUES ('mem_1', 'ten_a', 'x@example.com', 'ADMIN', 'ACTIVE', 'usr_x', 'hash_1', now(), now())`,
		`INSERT INTO api_keys (id, tenant_id, environment, name, pub_id, secret_hash, scopes, created_at,
			created_by_member_id) VALUES ('key_1', 'ten_a', 'TEST', 'k', 'pub_1', 's', '{}', now(), 'mem_1')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(62); err != nil {
		t.Fatal(err)
	}
	var lookups []string
	rows, err := db.QueryContext(ctx, `SELECT kind || ':' || lookup_key || '>' || tenant_id FROM tenant_lookups ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		lookups = append(lookups, s)
	}
	rows.Close()
	if got := strings.Join(lookups, " "); got != "api_key:pub_1>ten_a invite:hash_1>ten_a member_user:usr_x>ten_a" {
		t.Errorf("lookups after 000062: %s", got)
	}
	for name, want := range map[string]string{
		"members_pkey": "PRIMARY KEY (tenant_id, id)", "api_keys_pkey": "PRIMARY KEY (tenant_id, id)",
		"api_keys_created_by_member_id_fkey": "FOREIGN KEY (tenant_id, created_by_member_id) REFERENCES members(tenant_id, id)",
	} {
		var def string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1`, name).
			Scan(&def); err != nil || def != want {
			t.Errorf("%s: %q (err %v), want %q", name, def, err, want)
		}
	}
	_, err = db.ExecContext(ctx, `INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES ('pub_1', 'api_key', 'ten_b')`)
	if err == nil || !strings.Contains(err.Error(), "tenant_lookups_one_tenant") {
		t.Errorf("a second tenant for a public id: err = %v, want the unique index", err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO tenant_lookups (lookup_key, kind, tenant_id)
		VALUES ('usr_x', 'member_user', 'ten_b')`); err != nil {
		t.Errorf("a user in a second tenant: %v", err)
	}
	if err := m.Migrate(61); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM api_keys k JOIN members m ON m.id = k.created_by_member_id`).
		Scan(&n); err != nil || n != 1 {
		t.Errorf("at 000061: %d keys with their member (err %v), want 1", n, err)
	}
}

// TestMigration_TenantInWebhookKeys: 000063 gives each webhook attempt its delivery's tenant,
// leads the keys of events, endpoints, deliveries and attempts with the tenant, and its down
// migration gives the id keys back with the rows.
func TestMigration_TenantInWebhookKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(62); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_a', 'A', 'a', 'usr_a', now())`,
		`INSERT INTO events (id, tenant_id, environment, type, resource_id, data, created_at)
			VALUES ('evt_1', 'ten_a', 'TEST', 'card.frozen', 'crd_1', '{}', now())`,
		`INSERT INTO webhook_endpoints (id, tenant_id, environment, url, enabled, secret_sealed, created_at, updated_at)
			VALUES ('whe_1', 'ten_a', 'TEST', 'https://example.com', true, '\x01', now(), now())`,
		`INSERT INTO webhook_deliveries (id, tenant_id, environment, endpoint_id, event_id, event_type, status, attempts,
			created_at, updated_at) VALUES ('whd_1', 'ten_a', 'TEST', 'whe_1', 'evt_1', 'card.frozen', 'PENDING', 1, now(), now())`,
		`INSERT INTO webhook_attempts (delivery_id, number, at, status_code, duration_ms, succeeded)
			VALUES ('whd_1', 1, now(), 503, 5, false)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(63); err != nil {
		t.Fatal(err)
	}
	var tenantID string
	if err := db.QueryRowContext(ctx, `SELECT tenant_id FROM webhook_attempts WHERE delivery_id = 'whd_1'`).
		Scan(&tenantID); err != nil || tenantID != "ten_a" {
		t.Errorf("the attempt's tenant: %q (err %v), want ten_a", tenantID, err)
	}
	for name, want := range map[string]string{
		"events_pkey": "PRIMARY KEY (tenant_id, id)", "webhook_attempts_pkey": "PRIMARY KEY (tenant_id, delivery_id, number)",
		"webhook_attempts_delivery_id_fkey": "FOREIGN KEY (tenant_id, delivery_id) REFERENCES webhook_deliveries(tenant_id, id)",
	} {
		var def string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1`, name).
			Scan(&def); err != nil || def != want {
			t.Errorf("%s: %q (err %v), want %q", name, def, err, want)
		}
	}
	if err := m.Migrate(62); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id`).
		Scan(&n); err != nil || n != 1 {
		t.Errorf("at 000062: %d attempts with their delivery (err %v), want 1", n, err)
	}
}

// TestMigration_TenantInCardAndAgentKeys migrates a database holding a card with spend windows
// from 000067 to 000068: each window gains its card's tenant, the keys lead with the tenant and
// the references between the tables carry it, and the down migration gives the old keys back
// with the same rows.
func TestMigration_TenantInCardAndAgentKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(67); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_a', 'A', 'a', 'usr_a', now())`,
		`INSERT INTO cardholders (id, tenant_id, environment, name, email, created_at)
			VALUES ('chd_1', 'ten_a', 'TEST', 'A', 'aexample.com', now())`,
		`INSERT INTO cards (id, tenant_id, environment, funding, cardholder_id, issuer, issuer_card_id, last4, status,
			blocked_mcc, created_at, updated_at)
			VALUES ('crd_1', 'ten_a', 'TEST', 'FUNDING_ACCOUNT', 'chd_1', 'sandbox', 'ic_1', '4242', 'active', '[]', now(), now())`,
		`INSERT INTO card_spend_windows (card_id, window_key, spent_base_units) VALUES ('crd_1', '2026-12-06', 500)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(68); err != nil {
		t.Fatal(err)
	}
	var tenantID string
	if err := db.QueryRowContext(ctx, `SELECT tenant_id FROM card_spend_windows WHERE card_id = 'crd_1'`).
		Scan(&tenantID); err != nil || tenantID != "ten_a" {
		t.Errorf("the window's tenant: %q (err %v), want ten_a", tenantID, err)
	}
	for name, want := range map[string]string{
		"cards_pkey": "PRIMARY KEY (tenant_id, id)", "agents_pkey": "PRIMARY KEY (tenant_id, id)",
		"card_spend_windows_pkey":          "PRIMARY KEY (tenant_id, card_id, window_key)",
		"agent_card_spend_pkey":            "PRIMARY KEY (tenant_id, authorization_id)",
		"card_authorizations_card_id_fkey": "FOREIGN KEY (tenant_id, card_id) REFERENCES cards(tenant_id, id)",
		"api_keys_agent_id_fkey":           "FOREIGN KEY (tenant_id, agent_id) REFERENCES agents(tenant_id, id)",
		"cards_issuer_issuer_card_id_key":  "UNIQUE (tenant_id, issuer, issuer_card_id)",
	} {
		var def string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1`, name).
			Scan(&def); err != nil || def != want {
			t.Errorf("%s: %q (err %v), want %q", name, def, err, want)
		}
	}
	// A window of a card another tenant owns is refused by the composite key.
	if _, err := db.ExecContext(ctx, `INSERT INTO card_spend_windows (tenant_id, card_id, window_key, spent_base_units)
		VALUES ('ten_b', 'crd_1', '2026-12-07', 1)`); err == nil {
		t.Error("a window naming another tenant's card was accepted")
	}
	if err := m.Migrate(67); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM card_spend_windows w JOIN cards c ON c.id = w.card_id`).
		Scan(&n); err != nil || n != 1 {
		t.Errorf("at 000067: %d windows with their card (err %v), want 1", n, err)
	}
}

// TestMigration_TenantInPolicyKeys migrates a database holding a policy with a version from
// 000068 to 000069: the version gains its policy's tenant, the keys lead with the tenant, the
// keys between the tables (the policy's active version among them) carry it, and the down
// migration gives the old keys back with the same rows.
func TestMigration_TenantInPolicyKeys(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(68); err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("a", 64)
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_a', 'A', 'a', 'usr_a', now())`,
		// One statement: the policy and the version it points at refer to each other.
		`WITH p AS (INSERT INTO policies (id, tenant_id, environment, name, status, active_version_id, active_version, created_at)
			VALUES ('pol_1', 'ten_a', 'TEST', 'P', 'ACTIVE', 'pov_1', 1, now()))
		INSERT INTO policy_versions (id, policy_id, version, sha256, ir, document, created_at)
			VALUES ('pov_1', 'pol_1', 1, '` + sha + `', '{}', '{}', now())`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(69); err != nil {
		t.Fatal(err)
	}
	var tenantID string
	if err := db.QueryRowContext(ctx, `SELECT tenant_id FROM policy_versions WHERE id = 'pov_1'`).
		Scan(&tenantID); err != nil || tenantID != "ten_a" {
		t.Errorf("the version's tenant: %q (err %v), want ten_a", tenantID, err)
	}
	for name, want := range map[string]string{
		"policies_pkey": "PRIMARY KEY (tenant_id, id)", "policy_versions_pkey": "PRIMARY KEY (tenant_id, id)",
		"policy_versions_policy_version_key": "UNIQUE (tenant_id, policy_id, version)",
		"policies_active_version_fkey": "FOREIGN KEY (tenant_id, active_version_id) REFERENCES policy_versions(tenant_id, id)" +
			" DEFERRABLE INITIALLY DEFERRED",
		"policy_decisions_version_id_fkey": "FOREIGN KEY (tenant_id, version_id) REFERENCES policy_versions(tenant_id, id)",
	} {
		var def string
		if err := db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1`, name).
			Scan(&def); err != nil || def != want {
			t.Errorf("%s: %q (err %v), want %q", name, def, err, want)
		}
	}
	if err := m.Migrate(68); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM policies p JOIN policy_versions v ON v.id = p.active_version_id`).
		Scan(&n); err != nil || n != 1 {
		t.Errorf("at 000068: %d policies with their active version (err %v), want 1", n, err)
	}
}

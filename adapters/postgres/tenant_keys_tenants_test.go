package postgres_test

import (
	"context"
	"testing"
)

// TestMigration_TenantSlugAndOwnerLookups: 000078 gives every existing tenant its slug's and
// its owner's lookup rows (what keeps them unique and finds a session's owned tenant once
// tenants is distributed by id), and its down migration removes exactly those rows.
func TestMigration_TenantSlugAndOwnerLookups(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(77); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO tenants (id, name, slug, owner_user_id, created_at)
		VALUES ('ten_a', 'A', 'acme', 'usr_a', now()), ('ten_b', 'B', 'bolt', 'usr_b', now())`); err != nil {
		t.Fatal(err)
	}
	rows := func() string {
		t.Helper()
		var got string
		if err := db.QueryRowContext(ctx, `SELECT coalesce(string_agg(kind || ' ' || lookup_key || ' ' || tenant_id, '; '
			ORDER BY kind, lookup_key), '') FROM tenant_lookups WHERE kind LIKE 'tenant_%'`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := m.Migrate(78); err != nil {
		t.Fatal(err)
	}
	want := "tenant_owner usr_a ten_a; tenant_owner usr_b ten_b; tenant_slug acme ten_a; tenant_slug bolt ten_b"
	if got := rows(); got != want {
		t.Errorf("at 000078: %q, want %q", got, want)
	}
	if err := m.Migrate(77); err != nil {
		t.Fatal(err)
	}
	if got := rows(); got != "" {
		t.Errorf("back at 000075: %q, want no tenant lookup rows", got)
	}
}

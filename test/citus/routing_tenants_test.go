package citus

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// TestCitus_TenantRowsRouteToOneShard: tenants is distributed by its id, so creating a tenant,
// reading it and resolving a session's owned tenant each touch one shard per statement (run on
// connections that refuse a multi-shard statement); a slug and an owner stay unique across
// tenants through their lookup rows (a second tenant with a taken slug answers "slug taken",
// leaving the unit usable; a second tenant of the same owner is refused); and the tenant
// tables' keys to tenants are back where Citus can hold them (a row naming no tenant is
// refused), not where the key names another tenant column than the distribution one.
func TestCitus_TenantRowsRouteToOneShard(t *testing.T) {
	ctx := context.Background()
	store := singleShardStore(t)
	suffix := strings.ToLower(core.RandomToken(6))
	owner := "usr_route" + suffix
	first := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "route-" + suffix, Name: "Route",
		OwnerUserID: owner, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Tenants().CreateTenant(ctx, first) }); err != nil {
		t.Fatalf("create a tenant: %v", err)
	}
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		taken := first
		taken.ID, taken.OwnerUserID = core.NewID(core.PrefixTenant), "usr_other"+suffix
		if err := tx.Tenants().CreateTenant(ctx, taken); !errors.Is(err, ports.ErrSlugTaken) {
			t.Errorf("a taken slug: %v, want slug taken", err)
		}
		got, err := tx.Tenants().FindTenant(ctx, first.ID)
		if err == nil && got.Slug != first.Slug {
			t.Errorf("tenant by id: %+v, want %+v", got, first)
		}
		return err
	})
	if err != nil {
		t.Fatalf("the unit after a taken slug: %v", err)
	}
	err = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		got, member, err := tx.Tenants().FindTenantForUser(ctx, owner)
		if err == nil && (got.ID != first.ID || member != nil) {
			t.Errorf("owner's tenant: %+v member %v, want %s as its owner", got, member, first.ID)
		}
		return err
	})
	if err != nil {
		t.Fatalf("a session's owned tenant: %v", err)
	}
	second := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "route-two-" + suffix, Name: "Route 2",
		OwnerUserID: owner, CreatedAt: first.CreatedAt}
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Tenants().CreateTenant(ctx, second) }); err == nil {
		t.Fatalf("a second tenant of owner %s was created", owner)
	}
	expectTenantKeys(t)
}

// expectTenantKeys: the keys from co-located tenant tables to tenants are back on Citus (a row
// of no tenant refused); the keys Citus cannot hold (a bill's sender, a payment's recipient:
// another tenant's shard) are not.
func expectTenantKeys(t *testing.T) {
	t.Helper()
	db := env().Service.Store.DB().DB
	ctx := context.Background()
	for key, want := range map[string]bool{"api_keys_tenant_id_fkey": true, "relayer_tx_counts_tenant_id_fkey": true,
		"offramp_payments_sender_tenant_id_fkey": true, "bills_payer_tenant_id_fkey": true,
		"bills_sender_tenant_id_fkey": false, "offramp_payments_recipient_tenant_id_fkey": false} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_constraint WHERE conname = $1 AND contype = 'f'`, key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (n == 1) != want {
			t.Errorf("foreign key %s present: %v, want %v", key, n == 1, want)
		}
	}
	_, err := db.ExecContext(ctx, `INSERT INTO relayer_tx_counts (tenant_id, environment, day, count) VALUES ('ten_nobody', 'TEST', current_date, 1)`)
	if err == nil || !strings.Contains(err.Error(), "foreign key") {
		t.Fatalf("a relayer count of no tenant: %v, want a foreign key violation", err)
	}
}

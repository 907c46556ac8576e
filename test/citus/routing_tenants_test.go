package citus

import (
	"context"
	"errors"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// TestCitus_TenantRowsRouteToOneShard: tenants is distributed by its id, so creating a tenant,
// reading it and resolving a session's owned tenant each touch one shard per statement (run on
// connections that refuse a multi-shard statement); a slug and an owner stay unique across
// tenants through their lookup rows (a second tenant with a taken slug answers "slug taken",
// leaving the unit usable; a second tenant of the same owner is refused); and every foreign key
// of the schema holds on Citus, the tenant tables' keys to tenants among them (a row naming no
// tenant is refused), but the four Citus cannot hold (keysCitusCannotHold).
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

// keysCitusCannotHold are the schema's foreign keys that Citus cannot hold: each names a tenant
// other than its table's distribution column (a bill's sender, an off-ramp payment's or claim's
// recipient: another shard group), or is held by a table staying on the coordinator for good
// (the phone-alias code budgets) against a distributed one.
var keysCitusCannotHold = []string{"bills_sender_tenant_id_fkey", "offramp_claims_recipient_tenant_id_fkey",
	"offramp_payments_recipient_tenant_id_fkey", "phone_alias_attempts_tenant_id_fkey"}

// expectTenantKeys: every foreign key of the committed schema holds on Citus but those it
// cannot hold, the keys to tenants among them; and one is enforced (a row of no tenant refused).
func expectTenantKeys(t *testing.T) {
	t.Helper()
	schema, err := os.ReadFile("../../migrations/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	db := env().Service.Store.DB().DB
	ctx := context.Background()
	var present []string
	rows, err := db.QueryContext(ctx, `SELECT conname FROM pg_constraint WHERE contype = 'f'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		present = append(present, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, m := range regexp.MustCompile(`ADD CONSTRAINT (\S+) FOREIGN KEY`).FindAllStringSubmatch(string(schema), -1) {
		if !slices.Contains(present, m[1]) {
			missing = append(missing, m[1])
		}
	}
	if sort.Strings(missing); !slices.Equal(missing, keysCitusCannotHold) {
		t.Errorf("foreign keys of the schema missing on Citus: %v, want only %v", missing, keysCitusCannotHold)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO relayer_tx_counts (tenant_id, environment, day, count) VALUES ('ten_nobody', 'TEST', current_date, 1)`)
	if err == nil || !strings.Contains(err.Error(), "foreign key") {
		t.Fatalf("a relayer count of no tenant: %v, want a foreign key violation", err)
	}
}

// TestCitus_OperatorFindsTenantsOnEveryShard: with tenants distributed, the operator's tenant
// search still finds a tenant by id (its shard), by slug and by a member's email (reads over
// every shard, at operator pace), for tenants whose shard groups live on either worker.
func TestCitus_OperatorFindsTenantsOnEveryShard(t *testing.T) {
	operator := env().Client(t).With("X-Operator-Token", harness.OperatorToken)
	for range 3 {
		ten := env().NewTenant(t)
		slug := ten.Root.Get("/v1/tenants/current").Expect(t, 200).JSON(t)["slug"].(string)
		email := "ops-" + strings.ToLower(ten.ID) + "@example.com"
		ten.Session.Post("/v1/tenants/members", map[string]any{"email": email}).Expect(t, 201)
		for q, matchedBy := range map[string]string{ten.ID: "id", slug: "slug", email: "email"} {
			got := operator.Get("/v1/admin/tenants?q="+url.QueryEscape(q)).Expect(t, 200).JSON(t)
			list, _ := got["tenants"].([]any)
			if len(list) != 1 {
				t.Fatalf("q=%s: %v, want %s alone", q, got, ten.ID)
			}
			if m := list[0].(map[string]any); m["id"] != ten.ID || m["matchedBy"] != matchedBy {
				t.Fatalf("q=%s: %v, want %s matched by %s", q, m, ten.ID, matchedBy)
			}
		}
	}
}

package citus

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/migrations"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestCitus_TenantsOfAnExistingDatabaseDistribute: a database migrated before tenants had lookup
// rows (as a single-node one is, its tables plain), holding a tenant and a row keyed to it, is
// migrated and distributed on Citus as `corridor migrate` does: tenants is distributed by id
// with its rows, the migration's lookup rows find the owner's tenant and keep its slug taken,
// the tenant table's key to tenants holds on the shards, and corridor check passes.
func TestCitus_TenantsOfAnExistingDatabaseDistribute(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	m := migratorFor(t, raw)
	if err := m.Migrate(77); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`INSERT INTO tenants (id, name, slug, owner_user_id, created_at)
		VALUES ('ten_before', 'Before', 'before-acme', 'usr_before', now())`,
		`INSERT INTO relayer_tx_counts (tenant_id, environment, day, count) VALUES ('ten_before', 'TEST', current_date, 3)`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		t.Fatal(err)
	}
	if citus, err := postgres.Distribute(ctx, url); err != nil || !citus {
		t.Fatalf("distribute: citus %v, err %v", citus, err)
	}
	var column string
	if err := raw.QueryRowContext(ctx, `SELECT column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition
		WHERE logicalrelid = 'tenants'::regclass`).Scan(&column); err != nil || column != "id" {
		t.Fatalf("tenants distributed by %q (err %v), want id", column, err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := postgres.NewStore(db)
	err = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		got, _, err := tx.Tenants().FindTenantForUser(ctx, "usr_before")
		if err == nil && got.ID != "ten_before" {
			t.Errorf("the owner's tenant after distribution: %+v, want ten_before", got)
		}
		return err
	})
	if err != nil {
		t.Fatalf("the owner's tenant after distribution: %v", err)
	}
	taken := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "before-acme", Name: "Again", OwnerUserID: "usr_again", CreatedAt: time.Now()}
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Tenants().CreateTenant(ctx, taken) }); !errors.Is(err, ports.ErrSlugTaken) {
		t.Fatalf("a slug taken before distribution: %v, want slug taken", err)
	}
	_, err = raw.ExecContext(ctx, `INSERT INTO relayer_tx_counts (tenant_id, environment, day, count) VALUES ('ten_nobody', 'TEST', current_date, 1)`)
	if err == nil || !strings.Contains(err.Error(), "foreign key") {
		t.Fatalf("a relayer count of no tenant after distribution: %v, want a foreign key violation", err)
	}
	rep, err := postgres.CheckInvariants(ctx, store.DB(), nil)
	if err != nil || !rep.OK() {
		t.Fatalf("corridor check after distribution: %v %+v", err, rep.Checks)
	}
}

// migratorFor is a migrator on db that can stop at a version.
func migratorFor(t *testing.T, db *sql.DB) *migrate.Migrate {
	t.Helper()
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
	return m
}

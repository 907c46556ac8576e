package postgres_test

import (
	"context"
	"database/sql"
	"io/fs"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/migrations"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestLedgerAccounts_ReadByIDInTheHomeTheirLookupRowNames: opening an account writes its
// ledger_account_homes row with its home; a read by id the account cache cannot answer (the
// cache's fill, Balances, the commit pipeline's load) reads the account's rows in the home that
// row names, so an account whose lookup row names another home is not found there.
func TestLedgerAccounts_ReadByIDInTheHomeTheirLookupRowNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPipeDB(t, 2)
	a, b := p.accounts[0], p.accounts[1]
	for _, acc := range []ledger.Account{p.world, a, b} {
		var home string
		err := p.db.QueryRowContext(ctx, `SELECT home_tenant_id FROM ledger_account_homes WHERE account_id = ?`, acc.ID).Scan(&home)
		if err != nil || home != acc.Home() {
			t.Fatalf("lookup row of %s: home %q, %v; want %q", acc.Reference, home, err, acc.Home())
		}
	}

	balances := func(ids ...string) map[string]ledger.Balance {
		t.Helper()
		postgres.ForgetAccounts(ids...)
		var out map[string]ledger.Balance
		if err := p.direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) (err error) {
			out, err = tx.Ledger().Balances(ctx, ids)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := balances(a.ID, b.ID); len(got) != 2 {
		t.Fatalf("Balances from an empty cache: %+v, want both accounts", got)
	}

	// Through the commit pipeline, from an empty cache: the batch loads the accounts the same way.
	postgres.ForgetAccounts(p.world.ID, a.ID)
	pipe := p.pipeline(t, postgres.PipelineOptions{Lanes: 1})
	if err := pipe.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, _, err := tx.Ledger().Post(ctx, time.Now(), move("homes-fund", p.world.ID, a.ID, 7))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := balances(a.ID); got[a.ID].Posted != 7 {
		t.Fatalf("after the pipeline's transfer: %+v", got)
	}

	if _, err := p.db.ExecContext(ctx, `UPDATE ledger_account_homes SET home_tenant_id = 'ten_elsewhere' WHERE account_id = ?`, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := balances(a.ID, b.ID); len(got) != 1 || got[a.ID].Posted != 7 {
		t.Fatalf("Balances with b's lookup row naming another home: %+v, want a alone", got)
	}
}

// TestLedgerAccountHomes_MigrationBackfillsExistingAccounts: on a database upgraded with
// accounts opened before the table existed, the migration that creates ledger_account_homes
// gives every existing account its row, with its home ("" for a platform account proper).
func TestLedgerAccountHomes_MigrationBackfillsExistingAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	up, err := fs.Glob(migrations.FS, "*_ledger_account_homes.up.sql")
	if err != nil || len(up) != 1 {
		t.Fatalf("the migration creating ledger_account_homes: %v %v", up, err)
	}
	migration, err := fs.ReadFile(migrations.FS, up[0])
	if err != nil {
		t.Fatal(err)
	}
	// The state before it: no table, accounts opened.
	_, err = db.ExecContext(ctx, `DROP TABLE ledger_account_homes;
		INSERT INTO ledger_accounts (id, environment, asset, tenant_id, kind, reference, non_negative, created_at, home_tenant_id)
		VALUES ('acc_old_tenant', 'TEST', 'USDC', 'ten_old', 'tenant_available', 'tenant:ten_old:available', true, now(), 'ten_old'),
		       ('acc_old_platform', 'TEST', 'USDC', NULL, 'platform_fees', 'platform:fees', false, now(), '')`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, string(migration)); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT account_id, home_tenant_id FROM ledger_account_homes`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, home string
		if err := rows.Scan(&id, &home); err != nil {
			t.Fatal(err)
		}
		got[id] = home
	}
	if len(got) != 2 || got["acc_old_tenant"] != "ten_old" || got["acc_old_platform"] != "" {
		t.Fatalf("backfilled homes %v (%v), want acc_old_tenant in ten_old and acc_old_platform in \"\"", got, rows.Err())
	}
}

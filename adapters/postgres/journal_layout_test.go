package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/corridorhq/corridor/migrations"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestMigration_JournalLayout migrates a database holding transfers up to 000050 and back to
// 000049: the up migration fills each transfer's posting arrays from its postings in account-id
// order and rekeys the postings by (account_id, created_at, sequence) without foreign keys; the
// down migration brings back the primary key, the account index and both foreign keys, with
// the same posting rows.
func TestMigration_JournalLayout(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	if err := m.Migrate(49); err != nil {
		t.Fatal(err)
	}

	// Three transfers, their postings inserted out of account order.
	for _, id := range []string{"acc_c", "acc_a", "acc_b", "acc_d"} {
		exec(`INSERT INTO ledger_accounts (id, environment, asset, kind, reference, non_negative, created_at)
			VALUES ($1, 'TEST', 'USDC', 'test', $1, false, now())`, id)
	}
	transfers := map[string][][2]any{
		"trf_1": {{"acc_c", 5}, {"acc_a", -5}},
		"trf_2": {{"acc_d", 3}, {"acc_b", -1}, {"acc_a", -2}},
		"trf_3": {{"acc_b", -7}, {"acc_c", 7}},
	}
	for _, id := range []string{"trf_1", "trf_2", "trf_3"} {
		var sequence int64
		if err := db.QueryRowContext(ctx, `INSERT INTO ledger_transfers (id, environment, reference, type, asset, amount,
				created_at, status, canonical, chain_linked)
			VALUES ($1, 'TEST', $1, 'POSTED', 'USDC', 0, now(), 'POSTED', ''::bytea, true) RETURNING sequence`, id).Scan(&sequence); err != nil {
			t.Fatal(err)
		}
		for _, p := range transfers[id] {
			exec(`INSERT INTO ledger_postings (transfer_id, account_id, sequence, created_at, amount, posted_delta,
					pending_debits_delta, pending_credits_delta, posted_after, pending_debits_after, pending_credits_after)
				VALUES ($1, $2, $3, now(), $4, $4, 0, 0, $4, 0, 0)`, id, p[0], sequence, p[1])
		}
	}
	postingsAt49 := dumpPostings(ctx, t, db)

	if err := m.Migrate(50); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"trf_1": "{acc_a,acc_c} {-5,5}",
		"trf_2": "{acc_a,acc_b,acc_d} {-2,-1,3}",
		"trf_3": "{acc_b,acc_c} {-7,7}",
	}
	for id, w := range want {
		var got string
		if err := db.QueryRowContext(ctx, `SELECT posting_accounts::text || ' ' || posting_amounts::text FROM ledger_transfers WHERE id = $1`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("%s: arrays %s, want %s", id, got, w)
		}
	}
	if got := constraintsOf(ctx, t, db, "ledger_postings"); !slices.Equal(got, []string{
		"PRIMARY KEY (account_id, created_at, sequence)"}) {
		t.Errorf("at 000050 ledger_postings has %q", got)
	}
	if got := indexesOf(ctx, t, db); !slices.Equal(got, []string{"ledger_postings_pkey"}) {
		t.Errorf("at 000050 ledger_postings has indexes %q", got)
	}
	if got := dumpPostings(ctx, t, db); got != postingsAt49 {
		t.Errorf("postings changed by the up migration:\n%s\nwant\n%s", got, postingsAt49)
	}
	// The arrays' CHECK refuses a zero leg, a single leg and arrays of different lengths.
	for _, arrays := range []string{"'{acc_a,acc_b}', '{0,0}'", "'{acc_a}', '{1}'", "'{acc_a,acc_b}', '{1,-1,0}'"} {
		_, err := db.ExecContext(ctx, `INSERT INTO ledger_transfers (id, environment, reference, type, asset, amount,
				created_at, status, canonical, chain_linked, posting_accounts, posting_amounts)
			VALUES ('trf_bad', 'TEST', 'bad', 'POSTED', 'USDC', 0, now(), 'POSTED', ''::bytea, true, `+arrays+`)`)
		if err == nil || !strings.Contains(err.Error(), "ledger_transfers_postings_check") {
			t.Errorf("arrays %s: err = %v, want the postings check", arrays, err)
		}
	}

	if err := m.Migrate(49); err != nil {
		t.Fatal(err)
	}
	if got := constraintsOf(ctx, t, db, "ledger_postings"); !slices.Equal(got, []string{
		"FOREIGN KEY (account_id) REFERENCES ledger_accounts(id)",
		"FOREIGN KEY (transfer_id) REFERENCES ledger_transfers(id)",
		"PRIMARY KEY (transfer_id, account_id)"}) {
		t.Errorf("at 000049 again ledger_postings has %q", got)
	}
	if got := indexesOf(ctx, t, db); !slices.Equal(got, []string{"ledger_postings_account_idx", "ledger_postings_pkey"}) {
		t.Errorf("at 000049 again ledger_postings has indexes %q", got)
	}
	var arrays int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_name = 'ledger_transfers' AND column_name LIKE 'posting_%'`).Scan(&arrays); err != nil || arrays != 0 {
		t.Errorf("at 000049 again ledger_transfers has %d posting columns (%v)", arrays, err)
	}
	if got := dumpPostings(ctx, t, db); got != postingsAt49 {
		t.Errorf("postings after down migration:\n%s\nwant\n%s", got, postingsAt49)
	}
}

// dumpPostings renders every posting row, in a fixed order.
func dumpPostings(ctx context.Context, t *testing.T, db *sql.DB) string {
	t.Helper()
	out := queryStrings(ctx, t, db, `SELECT p::text FROM ledger_postings p ORDER BY transfer_id, account_id`)
	if len(out) != 7 {
		t.Fatalf("%d posting rows, want 7", len(out))
	}
	return strings.Join(out, "\n")
}

// constraintsOf lists a table's primary key, unique and foreign key constraints, sorted.
func constraintsOf(ctx context.Context, t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	return queryStrings(ctx, t, db, `SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'f') ORDER BY 1`, table)
}

// indexesOf lists ledger_postings' indexes.
func indexesOf(ctx context.Context, t *testing.T, db *sql.DB) []string {
	t.Helper()
	return queryStrings(ctx, t, db, `SELECT indexname::text FROM pg_indexes WHERE tablename = $1 ORDER BY 1`, "ledger_postings")
}

func queryStrings(ctx context.Context, t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
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
	if err := rows.Err(); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", query, err))
	}
	return out
}

package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// TestLedgerKeys_CarryTheHome: every key of the ledger's tables includes home_tenant_id (what
// Citus needs to distribute them by it); a balance row cannot leave its account's home; money
// between two tenants and its reversal, whose home is the other tenant's, are written with each
// posting in its account's home, singly and through the commit pipeline; a reference taken in
// another home is still a LEDGER_REFERENCE_CONFLICT; and corridor check's
// ledger-keys-across-homes line is ok on the result.
func TestLedgerKeys_CarryTheHome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPipeDB(t, 2)
	a, b := p.accounts[0], p.accounts[1]

	rows, err := p.db.QueryContext(ctx, `SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
		WHERE contype IN ('p', 'f') AND conrelid::regclass::text IN ('ledger_accounts', 'ledger_balances', 'ledger_postings', 'ledger_transfers')`)
	if err != nil {
		t.Fatal(err)
	}
	keys := 0
	for rows.Next() {
		var table, name, def string
		if err := rows.Scan(&table, &name, &def); err != nil {
			t.Fatal(err)
		}
		keys++
		if !strings.Contains(def, "home_tenant_id") {
			t.Errorf("%s's key %s does not include the home: %s", table, name, def)
		}
	}
	if err := rows.Err(); err != nil || keys < 6 {
		t.Fatalf("%d keys (%v): want the 4 primary keys and 2 foreign keys", keys, err)
	}

	_, err = p.db.ExecContext(ctx, `UPDATE ledger_balances SET home_tenant_id = 'ten_elsewhere' WHERE account_id = ?`, a.ID)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23503" {
		t.Fatalf("a balance moved out of its account's home: %v, want a foreign key violation", err)
	}

	var forward ledger.Transfer
	err = p.direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if _, _, err := tx.Ledger().Post(ctx, time.Now(), move("keys-fund", p.world.ID, a.ID, 50)); err != nil {
			return err
		}
		forward, _, err = tx.Ledger().Post(ctx, time.Now(), move("keys-across", a.ID, b.ID, 20))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := postIn(p.direct, ledger.TransferSpec{Reference: "keys-reverse", Type: ledger.TypeReversal,
		Environment: core.EnvTest, ReversedID: forward.ID}); err != nil {
		t.Fatalf("reversing money between two tenants: %v", err)
	}
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1})
	if err := postIn(s, move("keys-batched", a.ID, b.ID, 7)); err != nil {
		t.Fatal(err)
	}
	err = postIn(p.direct, move("keys-across", p.world.ID, b.ID, 20))
	if !errors.Is(err, core.ErrReferenceConflict) {
		t.Fatalf("a reference taken in another home: %v, want LEDGER_REFERENCE_CONFLICT", err)
	}

	homes := map[string]string{}
	hrows, err := p.db.QueryContext(ctx, `SELECT reference, home_tenant_id FROM ledger_transfers WHERE reference LIKE 'keys-%'`)
	if err != nil {
		t.Fatal(err)
	}
	for hrows.Next() {
		var ref, home string
		if err := hrows.Scan(&ref, &home); err != nil {
			t.Fatal(err)
		}
		homes[ref] = home
	}
	want := map[string]string{"keys-fund": a.TenantID, "keys-across": a.TenantID, "keys-reverse": b.TenantID, "keys-batched": a.TenantID}
	for ref, home := range want {
		if homes[ref] != home {
			t.Errorf("transfer %s lives in home %q, want %q (all: %v)", ref, homes[ref], home, homes)
		}
	}
	check := checkNamed(t, p, "ledger-keys-across-homes")
	if !check.OK() {
		t.Fatalf("ledger-keys-across-homes: %v", check.Problems)
	}
	if got := p.balance(t, b.ID).Posted; got != 7 {
		t.Fatalf("b holds %d, want 7", got)
	}
	p.verify(t)
}

func checkNamed(t *testing.T, p pipeDB, name string) postgres.InvariantCheck {
	t.Helper()
	rep, err := postgres.CheckInvariants(context.Background(), p.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %s", name)
	return postgres.InvariantCheck{}
}

// TestLedgerKeys_PerHomeReferenceKeys: the per-home reference keys Distribute gives the
// ledger on Citus keep their names and hold within a home (a replay in the same home is
// answered from its record), while a reference taken in another home is recorded there, which
// corridor check's ledger-keys-across-homes line reports (the global key refused it before).
// Every posting names its transfer's home, a posting on another tenant's account included.
func TestLedgerKeys_PerHomeReferenceKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPipeDB(t, 2)
	a, b := p.accounts[0], p.accounts[1]
	for _, table := range []string{"ledger_accounts", "ledger_transfers"} {
		if err := postgres.SwapToPerHomeKeys(ctx, p.db.DB, table); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"ledger_accounts_reference_key":  "UNIQUE (environment, asset, reference, home_tenant_id)",
		"ledger_transfers_reference_key": "UNIQUE (environment, reference, home_tenant_id)",
	} {
		var def string
		if err := p.db.QueryRowContext(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = ?`, name).Scan(&def); err != nil || def != want {
			t.Fatalf("%s: %q (%v), want %q", name, def, err, want)
		}
	}
	if err := postIn(p.direct, move("perhome-fund", p.world.ID, a.ID, 50)); err != nil {
		t.Fatal(err)
	}
	if err := postIn(p.direct, move("perhome-across", a.ID, b.ID, 20)); err != nil {
		t.Fatal(err)
	}
	var replayed bool
	if err := p.direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) (err error) {
		_, replayed, err = tx.Ledger().Post(ctx, time.Now(), move("perhome-across", a.ID, b.ID, 20))
		return err
	}); err != nil || !replayed {
		t.Fatalf("a replay in the same home: replayed %v, %v", replayed, err)
	}
	var otherHome int
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM ledger_postings p JOIN ledger_transfers t ON t.id = p.transfer_id
		WHERE t.reference = 'perhome-across' AND p.account_id = ? AND p.home_tenant_id = ? AND p.transfer_home_tenant_id = ?`,
		b.ID, b.TenantID, a.TenantID).Scan(&otherHome); err != nil || otherHome != 1 {
		t.Fatalf("b's posting of a's transfer names its transfer's home: %d rows, %v", otherHome, err)
	}
	if c := checkNamed(t, p, "ledger-keys-across-homes"); !c.OK() {
		t.Fatalf("before a reference is taken in two homes: %v", c.Problems)
	}
	if err := postIn(p.direct, move("perhome-out", a.ID, p.world.ID, 5)); err != nil {
		t.Fatal(err)
	}
	if err := postIn(p.direct, move("perhome-out", b.ID, p.world.ID, 5)); err != nil {
		t.Fatalf("a reference taken in another home, under per-home keys: %v, want it recorded there", err)
	}
	c := checkNamed(t, p, "ledger-keys-across-homes")
	if c.OK() || !strings.Contains(strings.Join(c.Problems, "\n"), "transfer reference TEST perhome-out is in 2 homes") {
		t.Fatalf("ledger-keys-across-homes: %v, want the reference in two homes reported", c.Problems)
	}
}

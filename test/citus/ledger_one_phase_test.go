package citus

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// onePhaseProbe creates, in a schema of its own (outside corridor check's plan), a function
// asking Citus whether the calling transaction will commit with two-phase commit, and a
// distributed table for the control.
func onePhaseProbe(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`CREATE SCHEMA onephase_probe`,
		`CREATE FUNCTION onephase_probe.should_use_2pc() RETURNS bool LANGUAGE C STRICT
			AS 'citus', 'coordinated_transaction_should_use_2PC'`,
		`CREATE TABLE onephase_probe.dist (k text, id bigint)`,
		`SELECT create_distributed_table('onephase_probe.dist', 'k')`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, env().DatabaseURL)
		if err == nil {
			_, err = c.Exec(ctx, `DROP SCHEMA onephase_probe CASCADE`)
			c.Close(ctx)
		}
		if err != nil {
			t.Errorf("dropping the probe: %v", err)
		}
	})
}

// twoPhaseSoFar runs write in a unit of work alone on store and reports whether Citus had, by
// the write's end, decided to commit the unit with two-phase commit (the store's own mark for a
// unit that wrote the coordinator travels with the COMMIT, after this question).
func twoPhaseSoFar(t *testing.T, ctx context.Context, store *postgres.Store, write func(ctx context.Context, tx ports.Tx) error) bool {
	t.Helper()
	var twoPhase bool
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := write(ctx, tx); err != nil {
			return err
		}
		raw, _ := postgres.TxFromContext(ctx)
		return raw.QueryRowContext(ctx, `SELECT onephase_probe.should_use_2pc()`).Scan(&twoPhase)
	}); err != nil {
		t.Fatal(err)
	}
	return twoPhase
}

// TestCitus_LedgerWriteCommitsInOnePhase: a tenant's transfer written on Citus (a deposit from
// its share of the sandbox pool into its available balance: one home) leaves Citus with no
// reason for two-phase commit: every statement of the write went to the tenant's shard as a
// router statement. Its postings' insert was an INSERT ... SELECT from unnest, which Citus runs
// by pulling the rows to the coordinator and COPYing them into the shard, and that COPY made
// every unit commit with two-phase commit (a PREPARE on the worker and a pg_dist_transaction
// row on the coordinator per transfer). The control: such an insert into a distributed table,
// in the same kind of unit, does ask for two-phase commit, so the probe can see it.
func TestCitus_LedgerWriteCommitsInOnePhase(t *testing.T) {
	onePhaseProbe(t)
	ten := env().NewTenant(t)
	ctx, cancel := context.WithTimeout(ports.WithAffinity(context.Background(), ten.ID), time.Minute)
	defer cancel()
	db, err := postgres.Open(ctx, env().DatabaseURL, postgres.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := postgres.NewStore(db).ForCitus()
	var accts []ledger.Account
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		accts, err = tx.Ledger().OpenAccounts(ctx, time.Now(),
			ledger.Share(ledger.PlatformSandboxPool(core.EnvTest, ledger.AssetUSDC), ten.ID),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, ten.ID))
		return err
	}); err != nil {
		t.Fatalf("opening the accounts: %v", err)
	}
	control := twoPhaseSoFar(t, ctx, store, func(ctx context.Context, _ ports.Tx) error {
		raw, _ := postgres.TxFromContext(ctx)
		_, err := raw.ExecContext(ctx, `INSERT INTO onephase_probe.dist (k, id) SELECT ?, x FROM unnest(ARRAY[1, 2]) AS x`, ten.ID)
		return err
	})
	if !control {
		t.Fatal("the control (an INSERT ... SELECT from unnest) did not ask for two-phase commit: the probe proves nothing")
	}
	for i := range 8 { // past PostgreSQL's five custom plans of a prepared statement
		spec := ledger.TransferSpec{Reference: "one-phase-" + ten.ID + "-" + string(rune('a'+i)), Type: ledger.TypePosted,
			Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(accts[0].ID, accts[1].ID, 1)}
		if twoPhaseSoFar(t, ctx, store, func(ctx context.Context, tx ports.Tx) error {
			_, _, err := tx.Ledger().Post(ctx, time.Now(), spec)
			return err
		}) {
			t.Fatalf("transfer %d: its write asked Citus for two-phase commit", i)
		}
	}
	var posted int64
	if err := queryOne(ctx, env().DatabaseURL, `SELECT posted FROM ledger_balances WHERE home_tenant_id = $1 AND account_id = $2`,
		&posted, ten.ID, accts[1].ID); err != nil || posted != 8 {
		t.Fatalf("available %d (err %v), want 8", posted, err)
	}
}

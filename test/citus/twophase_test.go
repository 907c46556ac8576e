package citus

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/ports"
)

// twoPhaseProbe creates, in a schema of its own (outside corridor check's plan), a plain
// coordinator table whose rows record, at COMMIT, whether Citus will commit their transaction
// with two-phase commit (a deferred trigger runs before Citus's pre-commit step and asks
// Citus's coordinated_transaction_should_use_2PC), and a distributed table beside it.
func twoPhaseProbe(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`CREATE SCHEMA twopc_probe`,
		`CREATE FUNCTION twopc_probe.should_use_2pc() RETURNS bool LANGUAGE C STRICT
			AS 'citus', 'coordinated_transaction_should_use_2PC'`,
		`CREATE TABLE twopc_probe.local (id bigint PRIMARY KEY, two_phase bool)`,
		`CREATE FUNCTION twopc_probe.record() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
			UPDATE twopc_probe.local SET two_phase = twopc_probe.should_use_2pc() WHERE id = NEW.id;
			RETURN NULL; END $$`,
		`CREATE CONSTRAINT TRIGGER record AFTER INSERT ON twopc_probe.local
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION twopc_probe.record()`,
		`CREATE TABLE twopc_probe.dist (k text, id bigint)`,
		`SELECT create_distributed_table('twopc_probe.dist', 'k')`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, env().DatabaseURL)
		if err == nil {
			_, err = c.Exec(ctx, `DROP SCHEMA twopc_probe CASCADE`)
			c.Close(ctx)
		}
		if err != nil {
			t.Errorf("dropping the probe: %v", err)
		}
	})
}

// spanningUnit writes the probe's coordinator table and a worker's shard in one unit of work
// and reports whether Citus committed it with two-phase commit.
func spanningUnit(t *testing.T, ctx context.Context, store *postgres.Store, id int64) bool {
	t.Helper()
	err := store.InTx(ctx, func(ctx context.Context, _ ports.Tx) error {
		tx, _ := postgres.TxFromContext(ctx)
		if _, err := tx.ExecContext(ctx, `INSERT INTO twopc_probe.local (id) VALUES (?)`, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO twopc_probe.dist (k, id) VALUES (?, ?)`, "tenant-of-unit", id)
		return err
	})
	if err != nil {
		t.Fatalf("unit %d: %v", id, err)
	}
	var twoPhase *bool
	if err := queryOne(ctx, env().DatabaseURL, `SELECT two_phase FROM twopc_probe.local WHERE id = $1`, &twoPhase, id); err != nil {
		t.Fatal(err)
	}
	if twoPhase == nil {
		t.Fatalf("unit %d: the probe's trigger did not run", id)
	}
	return *twoPhase
}

// TestCitus_SpanningUnitCommitsTwoPhase: a unit of work that writes a plain table on the
// coordinator (as River's job inserts and, until it is distributed, the ledger do) and a
// worker's shard commits with two-phase commit through a store on Citus (ForCitus), alone and
// in a batch of the commit pipeline, so a coordinator that dies between the worker's commit
// and its own can no longer keep one half (docs/reliability.md, "Citus"). The control, a store
// that does not know it is on Citus, commits the same unit with one-phase commit: the defect.
func TestCitus_SpanningUnitCommitsTwoPhase(t *testing.T) {
	twoPhaseProbe(t)
	db, err := postgres.Open(context.Background(), env().DatabaseURL, postgres.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	plain := postgres.NewStore(db)
	citus := plain.ForCitus()
	piped := citus.WithPipeline(postgres.PipelineOptions{Lanes: 2})
	t.Cleanup(piped.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tenantCtx := ports.WithAffinity(ctx, "ten_probe")
	if spanningUnit(t, ctx, plain, 1) {
		t.Error("the control committed with two-phase commit: the probe proves nothing")
	}
	if !spanningUnit(t, ctx, citus, 2) {
		t.Error("a unit alone on a Citus store committed with one-phase commit")
	}
	if !spanningUnit(t, tenantCtx, piped, 3) {
		t.Error("a unit in a pipeline batch on a Citus store committed with one-phase commit")
	}
	if !spanningUnit(t, ctx, piped, 4) {
		t.Error("a unit without a tenant (run alone) on a Citus store committed with one-phase commit")
	}
}

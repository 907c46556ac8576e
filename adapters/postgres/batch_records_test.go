package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// TestPipeline_RecordsTravelWithTheBatchWrite: inside a batch, a unit's idempotency record is
// not sent on its own. A later unit of the same batch finds no row in the table yet (the
// records wait for the batch's write), yet its Claim and Find of an earlier unit's key replay
// that unit's record, so a twin never takes the key again. A unit that fails after saving
// leaves no record (the next unit takes its key), and once the batch commits the kept units'
// records are in the table with their effects.
func TestPipeline_RecordsTravelWithTheBatchWrite(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 3)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 4, MaxWait: time.Hour, AlwaysWait: true})
	now := time.Now().UTC().Truncate(time.Microsecond)
	const scope = "tenant:records"
	record := func(key, print string) ports.IdempotencyRecord {
		return ports.IdempotencyRecord{Scope: scope, Environment: core.EnvTest, Key: key, Fingerprint: print,
			StatusCode: 201, Body: []byte(`{"key":"` + key + `"}`), ContentType: "application/json", CreatedAt: now,
			ExpiresAt: now.Add(time.Hour)}
	}
	// claimAndSave is what kernel.Idempotent does for a first run: claim, apply, save.
	claimAndSave := func(ctx context.Context, tx ports.Tx, key, ref string, i int) error {
		_, found, claimed, err := tx.Idempotency().Claim(ctx, scope, core.EnvTest, key, now)
		if err != nil || found || !claimed {
			return errors.Join(err, fmt.Errorf("claim of %s: found %v, claimed %v", key, found, claimed))
		}
		if _, _, err := tx.Ledger().Post(ctx, now, move(ref, p.world.ID, p.accounts[i].ID, 5)); err != nil {
			return err
		}
		return tx.Idempotency().Save(ctx, record(key, "print-"+key))
	}
	var inTable int
	var twin, found ports.IdempotencyRecord
	var twinFound, twinClaimed, findFound, failedTaken bool
	errFailed := errors.New("the unit fails after saving")
	errs := submitInOrder(s,
		func(ctx context.Context, tx ports.Tx) error {
			return claimAndSave(ctx, tx, "first", "records-first", 0)
		},
		func(ctx context.Context, tx ports.Tx) error {
			if err := claimAndSave(ctx, tx, "failed", "records-failed", 1); err != nil {
				return err
			}
			return errFailed
		},
		func(ctx context.Context, tx ports.Tx) error {
			var err error
			if twin, twinFound, twinClaimed, err = tx.Idempotency().Claim(ctx, scope, core.EnvTest, "first", now); err != nil {
				return err
			}
			if found, findFound, err = tx.Idempotency().Find(ctx, scope, core.EnvTest, "first", now); err != nil {
				return err
			}
			btx, _ := postgres.TxFromContext(ctx)
			return btx.QueryRowContext(ctx, "SELECT count(*) FROM idempotency_keys WHERE scope = ?", scope).Scan(&inTable)
		},
		func(ctx context.Context, tx ports.Tx) error {
			_, _, claimed, err := tx.Idempotency().Claim(ctx, scope, core.EnvTest, "failed", now)
			failedTaken = claimed
			return err
		})
	if errs[0] != nil || !errors.Is(errs[1], errFailed) || errs[2] != nil || errs[3] != nil {
		t.Fatalf("units answered %v", errs)
	}
	if inTable != 0 {
		t.Errorf("a later unit of the batch saw %d records in the table, want 0: the records wait for the batch's write", inTable)
	}
	if !twinFound || twinClaimed || twin.Fingerprint != "print-first" || string(twin.Body) != `{"key":"first"}` {
		t.Errorf("the twin's claim: found %v, claimed %v, record %+v; want the first unit's record replayed", twinFound, twinClaimed, twin)
	}
	if !findFound || found.Fingerprint != "print-first" || found.StatusCode != 201 {
		t.Errorf("Find in the batch: found %v, record %+v; want the first unit's record", findFound, found)
	}
	if !failedTaken {
		t.Error("the key of a unit that failed after saving was not free for the next unit")
	}
	if st := s.PipelineStats(); st.Batches != 1 {
		t.Errorf("%d batches, want the four units in one", st.Batches)
	}
	var keys []string
	rows, err := p.db.QueryContext(context.Background(), "SELECT key FROM idempotency_keys WHERE scope = ? ORDER BY key", scope)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if fmt.Sprint(keys) != "[first]" {
		t.Errorf("committed records %v, want [first]: the kept unit's only", keys)
	}
	if p.transfers(t, "records-first") != 1 || p.transfers(t, "records-failed") != 0 {
		t.Errorf("transfers: first %d (want 1), failed %d (want 0)", p.transfers(t, "records-first"), p.transfers(t, "records-failed"))
	}
	p.verify(t)
}

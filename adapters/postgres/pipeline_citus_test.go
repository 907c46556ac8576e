package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/ports"
)

// batchesOf submits four units of two tenants together through s and returns each unit's
// transaction id (units of one batch share it).
func batchesOf(t *testing.T, s *postgres.Store, keys []string) []int64 {
	t.Helper()
	ids := make([]int64, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ports.WithAffinity(context.Background(), key), time.Minute)
			defer cancel()
			err := s.InTx(ctx, func(ctx context.Context, _ ports.Tx) error {
				tx, _ := postgres.TxFromContext(ctx)
				return tx.QueryRowContext(ctx, `SELECT txid_current()`).Scan(&ids[i])
			})
			if err != nil {
				t.Errorf("unit %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	return ids
}

// mixed reports whether two units of different tenants shared a transaction.
func mixed(keys []string, ids []int64) bool {
	for i := range keys {
		for j := range keys {
			if keys[i] != keys[j] && ids[i] == ids[j] {
				return true
			}
		}
	}
	return false
}

// TestPipeline_OnCitusABatchHoldsOneTenant: on Citus (ForCitus) a batch of the commit pipeline
// holds the units of one tenant only, so its transaction touches one shard group and a worker
// that stops answering holds up no other worker's tenant (docs/reliability.md, "Citus"); the
// control, the same units on a store that does not know it is on Citus, share one batch. It
// runs on plain PostgreSQL: mark_two_phase_commit() is a plain function there.
func TestPipeline_OnCitusABatchHoldsOneTenant(t *testing.T) {
	p := newPipeDB(t, 0)
	keys := []string{"ten_a", "ten_b", "ten_a", "ten_b"}
	// The control's batch waits (up to a minute) until all four joined: one batch of four.
	control := p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxBatch: 4, MaxWait: time.Minute, AlwaysWait: true})
	if ids := batchesOf(t, control, keys); !mixed(keys, ids) {
		t.Fatalf("control: transactions %v, want the two tenants in one batch", ids)
	}
	// MaxWait long enough for the four to meet in one lane, short of the units' deadline: a
	// batch of one tenant waits out MaxWait while the other tenant's units, handed back, run
	// alone (they still count as in flight), so a minute here would spend the units' minute.
	onCitus := p.direct.ForCitus().WithPipeline(postgres.PipelineOptions{Lanes: 1, MaxBatch: 4, MaxWait: 200 * time.Millisecond})
	t.Cleanup(onCitus.Close)
	for round := range 5 {
		if ids := batchesOf(t, onCitus, keys); mixed(keys, ids) {
			t.Fatalf("round %d: transactions %v: a batch held units of two tenants", round, ids)
		}
	}
}

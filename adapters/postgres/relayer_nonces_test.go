package postgres_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestRelayerNonces_TwoReplicas: two adapters over one database and one chain, sharing the
// relayer key as two replicas of the service would, send concurrently; every send succeeds at
// its first nonce and no nonce is signed twice.
func TestRelayerNonces_TwoReplicas(t *testing.T) {
	// Without the shared lock the replicas sign colliding nonces and sends stall: the deadline
	// turns that into a failure.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, second, _ := twoReplicas(ctx, t, 10, chain.SimulatedOptions{})

	const perReplica = 15
	var mu sync.Mutex
	var hashes []common.Hash
	var wg sync.WaitGroup
	for _, replica := range []*chain.Adapter{first, second, first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perReplica {
				key, _ := crypto.GenerateKey()
				hash, err := replica.SendETH(ctx, crypto.PubkeyToAddress(key.PublicKey), big.NewInt(1))
				if err != nil {
					t.Errorf("send: %v", err)
					return
				}
				mu.Lock()
				hashes = append(hashes, hash)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	nonces := map[uint64]common.Hash{}
	for _, h := range hashes {
		tx, err := first.TransactionNonce(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if other, taken := nonces[tx]; taken {
			t.Fatalf("nonce %d signed twice: %s and %s", tx, other.Hex(), h.Hex())
		}
		nonces[tx] = h
	}
	if len(nonces) != 4*perReplica {
		t.Fatalf("%d transactions, want %d", len(nonces), 4*perReplica)
	}
}

// twoReplicas migrates a fresh database and returns two adapters over one simulated chain and
// one relayer key, as two replicas of the service would hold, sharing that database's nonce
// lock; the database is returned for what else a test wants from it.
func twoReplicas(ctx context.Context, t *testing.T, maxConns int, opts chain.SimulatedOptions) (first, second *chain.Adapter, db *bun.DB) {
	t.Helper()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: maxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	first, err = chain.NewSimulated(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Close() })
	second, err = first.NewReplica(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keeper := postgres.NewRelayerNonces(db)
	first.UseNonceKeeper(keeper)
	second.UseNonceKeeper(keeper)
	return first, second, db
}

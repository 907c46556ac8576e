package postgres_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/ports"
)

// TestRelayerTransactions_AnotherReplicaBumps: one replica sends, the transaction stays in the
// pool; the other replica's bump pass finds it in relayer_transactions and replaces it; once
// mined, the sender's receipt of its own (replaced) hash is the replacement's success.
func TestRelayerTransactions_AnotherReplicaBumps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, second, db := twoReplicas(ctx, t, 5, chain.SimulatedOptions{ManualMining: true})
	txlog := postgres.NewRelayerTransactions(db)
	first.UseTxLog(txlog)
	second.UseTxLog(txlog)
	original, err := first.SendETH(ctx, common.HexToAddress("0x00000000000000000000000000000000000000c1"), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := first.TransactionNonce(ctx, original)
	if err != nil {
		t.Fatal(err)
	}
	ceiling := new(big.Int).Mul(big.NewInt(1000), big.NewInt(1_000_000_000))
	later := func() time.Time { return time.Now().Add(5 * time.Minute) }
	report, err := second.BumpStuck(ctx, chain.BumpOptions{After: 2 * time.Minute, MaxFeeCap: ceiling, Now: later})
	if err != nil || report.Bumped != 1 {
		t.Fatalf("bump by the other replica: %+v, %v", report, err)
	}
	siblings, err := txlog.Siblings(ctx, first.ChainID(), original)
	if err != nil || len(siblings) != 2 || siblings[0] != original {
		t.Fatalf("recorded hashes of the nonce: %v, %v", siblings, err)
	}
	if n, err := first.TransactionNonce(ctx, siblings[1]); err != nil || n != nonce {
		t.Fatalf("the replacement's nonce: %d, %v; want %d", n, err, nonce)
	}
	if _, err := first.MineSimulated(); err != nil {
		t.Fatal(err)
	}
	receipt, err := first.Receipt(ctx, original)
	if err != nil || receipt.Status != ports.TxSucceeded || receipt.TxHash != siblings[1] {
		t.Fatalf("receipt of the replaced hash: %+v, %v", receipt, err)
	}
	report, err = second.BumpStuck(ctx, chain.BumpOptions{After: 2 * time.Minute, MaxFeeCap: ceiling, Now: later})
	if err != nil || report.Settled != 1 {
		t.Fatalf("settling: %+v, %v", report, err)
	}
	if left, err := txlog.Unsettled(ctx, first.ChainID(), first.RelayerAddress().Hex(), 10); err != nil || len(left) != 0 {
		t.Fatalf("unsettled after mining: %v, %v", left, err)
	}
	// The next send takes the next nonce.
	next, err := first.SendETH(ctx, common.HexToAddress("0x00000000000000000000000000000000000000c2"), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := first.TransactionNonce(ctx, next); err != nil || n != nonce+1 {
		t.Fatalf("next nonce: %d, %v", n, err)
	}
}

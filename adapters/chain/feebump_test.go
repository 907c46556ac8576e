package chain

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/ports"
)

// newManualChain is a simulated chain that leaves sent transactions pending until mined.
func newManualChain(t *testing.T) *Adapter {
	t.Helper()
	a, err := NewSimulated(context.Background(), SimulatedOptions{ManualMining: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func TestFeeBump_StuckTransactionIsReplacedAndItsCallerSeesSuccess(t *testing.T) {
	ctx := context.Background()
	a := newManualChain(t)
	original, err := a.SendETH(ctx, common.HexToAddress("0x00000000000000000000000000000000000000b1"), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	first, pending, err := a.client.TransactionByHash(ctx, original)
	if err != nil || !pending {
		t.Fatalf("the original is not pending: %v, %v", pending, err)
	}
	// Not yet stuck: a pass with a long wait sends nothing.
	later := func() time.Time { return time.Now().Add(time.Minute) }
	ceiling := new(big.Int).Mul(first.GasFeeCap(), big.NewInt(10))
	report, err := a.BumpStuck(ctx, BumpOptions{After: time.Hour, MaxFeeCap: ceiling, Now: later})
	if err != nil || report.Bumped != 0 {
		t.Fatalf("bumped before the wait: %+v, %v", report, err)
	}
	var logs bytes.Buffer
	report, err = a.BumpStuck(ctx, BumpOptions{After: 30 * time.Second, MaxFeeCap: ceiling, Now: later,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil || report.Bumped != 1 {
		t.Fatalf("bump: %+v, %v", report, err)
	}
	siblings, err := a.relay.txLog.Siblings(ctx, a.chainID, original)
	if err != nil || len(siblings) != 2 {
		t.Fatalf("recorded hashes of the nonce: %v, %v", siblings, err)
	}
	replacement := siblings[0]
	if replacement == original {
		replacement = siblings[1]
	}
	second, pending, err := a.client.TransactionByHash(ctx, replacement)
	if err != nil || !pending {
		t.Fatalf("the replacement is not in the pool: %v, %v", pending, err)
	}
	if second.Nonce() != first.Nonce() || !bytes.Equal(second.Data(), first.Data()) || second.To() == nil || *second.To() != *first.To() ||
		second.Value().Cmp(first.Value()) != 0 {
		t.Fatalf("the replacement is not the same payload and nonce")
	}
	for name, pair := range map[string][2]*big.Int{"fee cap": {first.GasFeeCap(), second.GasFeeCap()}, "tip": {first.GasTipCap(), second.GasTipCap()}} {
		minimum := new(big.Int).Div(new(big.Int).Mul(pair[0], big.NewInt(120)), big.NewInt(100))
		if pair[1].Cmp(minimum) < 0 {
			t.Errorf("%s raised from %s to %s, want at least +20%%", name, pair[0], pair[1])
		}
	}
	if !strings.Contains(logs.String(), "fee-bumped") {
		t.Errorf("the bump is not logged: %s", logs.String())
	}
	if _, err := a.MineSimulated(); err != nil {
		t.Fatal(err)
	}
	receipt, err := a.Receipt(ctx, original)
	if err != nil || receipt.Status != ports.TxSucceeded || receipt.TxHash != replacement {
		t.Fatalf("the original's caller sees %+v, %v; want success of the replacement", receipt, err)
	}
	report, err = a.BumpStuck(ctx, BumpOptions{After: 30 * time.Second, MaxFeeCap: ceiling, Now: later})
	if err != nil || report.Settled != 1 || report.Bumped != 0 {
		t.Fatalf("a mined nonce is not settled: %+v, %v", report, err)
	}
	// Still answered after the nonce is settled.
	if receipt, err := a.Receipt(ctx, original); err != nil || receipt.Status != ports.TxSucceeded {
		t.Fatalf("after settling: %+v, %v", receipt, err)
	}
}

func TestFeeBump_TheCeilingIsNeverPassed(t *testing.T) {
	ctx := context.Background()
	a := newManualChain(t)
	original, err := a.SendETH(ctx, common.HexToAddress("0x00000000000000000000000000000000000000b2"), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	first, _, err := a.client.TransactionByHash(ctx, original)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	// The ceiling admits the original's fee cap but not +20% of it.
	report, err := a.BumpStuck(ctx, BumpOptions{MaxFeeCap: first.GasFeeCap(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil || report.Bumped != 0 || report.Capped != 1 {
		t.Fatalf("bump past the ceiling: %+v, %v", report, err)
	}
	if !strings.Contains(logs.String(), "RELAYER_MAX_FEE_GWEI") {
		t.Errorf("the refusal is not logged: %q", logs.String())
	}
	siblings, err := a.relay.txLog.Siblings(ctx, a.chainID, original)
	if err != nil || len(siblings) != 1 {
		t.Fatalf("a replacement was recorded: %v, %v", siblings, err)
	}
	if _, err := a.MineSimulated(); err != nil {
		t.Fatal(err)
	}
	if receipt, err := a.Receipt(ctx, original); err != nil || receipt.Status != ports.TxSucceeded {
		t.Fatalf("the original: %+v, %v", receipt, err)
	}
}

func TestRaised_AtLeastTwentyPercentAndOne(t *testing.T) {
	for in, want := range map[int64]int64{0: 1, 1: 2, 5: 6, 100: 120, 101: 122} {
		if got := raised(big.NewInt(in)); got.Int64() != want {
			t.Errorf("raised(%d) = %s, want %d", in, got, want)
		}
	}
}

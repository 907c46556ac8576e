package mirror

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

func TestUSDCBaseUnits(t *testing.T) {
	huge := new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(1))
	for _, tc := range []struct {
		name string
		in   *big.Int
		want int64
		err  error
	}{
		{"zero", big.NewInt(0), 0, nil},
		{"one USDC", big.NewInt(1_000_000), 1_000_000, nil},
		{"max int64", big.NewInt(math.MaxInt64), math.MaxInt64, nil},
		{"above int64 overflows", huge, 0, core.ErrAmountOverflow},
		{"negative is refused", big.NewInt(-1), 0, core.ErrValidation},
		{"nil is refused", nil, 0, core.ErrValidation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := USDCBaseUnits(tc.in)
			if got != tc.want || (tc.err == nil) != (err == nil) || (tc.err != nil && !errors.Is(err, tc.err)) {
				t.Fatalf("USDCBaseUnits(%v) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestMergeLogs_ChainOrderEachOnce(t *testing.T) {
	tx1, tx2 := common.HexToHash("0x01"), common.HexToHash("0x02")
	a := []ports.TransferLog{{TxHash: tx2, LogIndex: 3, BlockNumber: 9}, {TxHash: tx1, LogIndex: 1, BlockNumber: 7}}
	b := []ports.TransferLog{{TxHash: tx1, LogIndex: 1, BlockNumber: 7}, {TxHash: tx1, LogIndex: 0, BlockNumber: 7}}
	got := mergeLogs(a, b)
	want := []struct {
		block uint64
		index uint
	}{{7, 0}, {7, 1}, {9, 3}}
	if len(got) != len(want) {
		t.Fatalf("merged %d logs, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].BlockNumber != w.block || got[i].LogIndex != w.index {
			t.Fatalf("log %d = block %d index %d, want block %d index %d", i, got[i].BlockNumber, got[i].LogIndex, w.block, w.index)
		}
	}
}

func TestChainLogReference(t *testing.T) {
	hash := common.HexToHash("0xab")
	want := "chain:84532:0x00000000000000000000000000000000000000000000000000000000000000ab:12"
	if got := ChainLogReference(84532, hash, 12); got != want {
		t.Fatalf("reference %q, want %q", got, want)
	}
	if ledger.ChainRail(8453) != "chain:8453" {
		t.Fatalf("rail %q", ledger.ChainRail(8453))
	}
}

func TestNotFetched(t *testing.T) {
	current := []ports.ChainWallet{{ID: "wal_a"}, {ID: "wal_b"}, {ID: "wal_c"}}
	missing := notFetched(current, []ports.ChainWallet{{ID: "wal_b"}})
	if len(missing) != 2 || missing[0].ID != "wal_a" || missing[1].ID != "wal_c" {
		t.Fatalf("missing %+v", missing)
	}
}

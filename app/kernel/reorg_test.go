package kernel

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/ports"
)

// hashChain answers BlockHash from a fixed list of canonical hashes (index = block number).
type hashChain struct {
	ports.Chain
	hashes []common.Hash
}

func (c hashChain) ChainID() int64 { return 84532 }

func (c hashChain) BlockHash(_ context.Context, n uint64) (common.Hash, bool, error) {
	if n >= uint64(len(c.hashes)) {
		return common.Hash{}, false, nil
	}
	return c.hashes[n], true, nil
}

func blockHash(b byte) common.Hash { return common.Hash{31: b} }

func recorded(numbers ...uint64) []ports.IndexedBlock {
	out := make([]ports.IndexedBlock, len(numbers))
	for i, n := range numbers {
		out[i] = ports.IndexedBlock{Number: n, Hash: blockHash(byte(n)).Hex()}
	}
	return out
}

func TestForkPoint(t *testing.T) {
	canonical := []common.Hash{blockHash(0), blockHash(1), blockHash(2), blockHash(3), blockHash(4), blockHash(5)}
	forked := append(append([]common.Hash{}, canonical[:3]...), common.Hash{31: 0xf3}, common.Hash{31: 0xf4})
	for _, tc := range []struct {
		name        string
		chain       []common.Hash
		recent      []ports.IndexedBlock
		wantFork    uint64
		wantReorged bool
		wantErr     bool
	}{
		{"nothing recorded", canonical, nil, 0, false, false},
		{"newest still on the chain", canonical, recorded(5, 3, 1), 0, false, false},
		{"blocks above 2 replaced", forked, recorded(5, 4, 3, 2, 1), 3, true, false},
		{"newest beyond a shorter chain", canonical[:3], recorded(5, 2), 3, true, false},
		{"no recorded block on the chain", []common.Hash{common.Hash{31: 0xee}}, recorded(5, 3), 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fork, reorged, err := ForkPoint(context.Background(), hashChain{hashes: tc.chain}, ports.IndexerLedgerMirror, tc.recent)
			var deep ErrReorgTooDeep
			if tc.wantErr != (err != nil) || (tc.wantErr && !errors.As(err, &deep)) {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if fork != tc.wantFork || reorged != tc.wantReorged {
				t.Fatalf("fork %d reorged %v, want %d %v", fork, reorged, tc.wantFork, tc.wantReorged)
			}
		})
	}
}

func TestRangeBlockHashes_RefusesALogFromAnotherChain(t *testing.T) {
	c := hashChain{hashes: []common.Hash{blockHash(0), blockHash(1), blockHash(2)}}
	got, err := RangeBlockHashes(context.Background(), c, 2, map[uint64]common.Hash{1: blockHash(1)})
	if err != nil || got[2] != blockHash(2).Hex() || got[1] != blockHash(1).Hex() {
		t.Fatalf("hashes %v, %v", got, err)
	}
	if _, err := RangeBlockHashes(context.Background(), c, 2, map[uint64]common.Hash{1: {31: 0x99}}); err == nil {
		t.Fatal("a log from a block no longer on the chain was accepted")
	}
	if _, err := RangeBlockHashes(context.Background(), c, 5, nil); err == nil {
		t.Fatal("a range ending beyond the head was accepted")
	}
}

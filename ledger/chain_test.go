package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

// fixedTransfer has fixed ids so its encoding can be pinned.
func fixedTransfer() Transfer {
	return Transfer{
		ID: "trf_0000000000000000000000000a", Reference: "offramp:ofp_1:lock", Type: TypePending,
		Environment: core.EnvTest, Asset: AssetUSDC, Amount: 0,
		ExpiresAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
		CreatedAt: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC),
		Postings: []Posting{
			{AccountID: "acc_0000000000000000000000000b", Amount: 1_500_000},
			{AccountID: "acc_0000000000000000000000000a", Amount: -1_500_000},
		},
		Metadata: map[string]string{"paymentId": "ofp_1", "kind": "lock"},
	}
}

// TestCanonicalBytes_Layout re-encodes by hand, from the documented layout, so the code cannot
// drift from its documentation.
func TestCanonicalBytes_Layout(t *testing.T) {
	tr := fixedTransfer()
	var want []byte
	str := func(s string) { want = binary.BigEndian.AppendUint32(want, uint32(len(s))); want = append(want, s...) }
	i64 := func(v int64) { want = binary.BigEndian.AppendUint64(want, uint64(v)) }
	str("corridor.ledger.transfer.v1")
	for _, s := range []string{tr.ID, tr.Reference, "PENDING", "TEST", "USDC", "", ""} {
		str(s)
	}
	i64(0)
	want = append(want, 1)
	i64(tr.ExpiresAt.UnixMicro())
	want = append(want, 1)
	i64(tr.CreatedAt.UnixMicro())
	want = binary.BigEndian.AppendUint32(want, 2)
	str("acc_0000000000000000000000000a")
	i64(-1_500_000)
	str("acc_0000000000000000000000000b")
	i64(1_500_000)
	want = binary.BigEndian.AppendUint32(want, 2)
	str("kind")
	str("lock")
	str("paymentId")
	str("ofp_1")
	if got := CanonicalBytes(tr); !bytes.Equal(got, want) {
		t.Fatalf("canonical bytes\n got %x\nwant %x", got, want)
	}
}

func TestCanonicalBytes(t *testing.T) {
	base := CanonicalBytes(fixedTransfer())
	t.Run("posting order does not matter", func(t *testing.T) {
		tr := fixedTransfer()
		tr.Postings[0], tr.Postings[1] = tr.Postings[1], tr.Postings[0]
		if !bytes.Equal(CanonicalBytes(tr), base) {
			t.Fatal("reordered postings encode differently")
		}
	})
	t.Run("the time zone does not matter", func(t *testing.T) {
		tr := fixedTransfer()
		tr.CreatedAt = tr.CreatedAt.In(time.FixedZone("X", 3600))
		if !bytes.Equal(CanonicalBytes(tr), base) {
			t.Fatal("a time zone changes the encoding")
		}
	})
	t.Run("shifting bytes between fields changes the encoding", func(t *testing.T) {
		a, b := fixedTransfer(), fixedTransfer()
		a.PendingID, a.ReversedID = "ab", ""
		b.PendingID, b.ReversedID = "a", "b"
		if bytes.Equal(CanonicalBytes(a), CanonicalBytes(b)) {
			t.Fatal("length prefixes do not separate fields")
		}
	})
	t.Run("no expiry differs from any expiry", func(t *testing.T) {
		a := fixedTransfer()
		a.ExpiresAt = time.Time{}
		if bytes.Equal(CanonicalBytes(a), base) {
			t.Fatal("zero expiry encodes like a real one")
		}
	})
}

func TestChainHash(t *testing.T) {
	tr := fixedTransfer()
	want := sha256.Sum256(append([]byte("prev"), CanonicalBytes(tr)...))
	if got := ChainHash([]byte("prev"), tr); !bytes.Equal(got, want[:]) {
		t.Fatalf("ChainHash = %x, want sha256(prev || canonical) = %x", got, want)
	}
	// Pinned so that a change of layout is a deliberate, visible decision (a new version).
	if got := hex.EncodeToString(ChainHash(nil, tr)); got != pinnedGenesisHash {
		t.Fatalf("genesis hash of the fixed transfer = %s, want %s", got, pinnedGenesisHash)
	}
}

func TestVerifyChain(t *testing.T) {
	entries := sampleChain(t, 5)
	t.Run("an intact chain verifies", func(t *testing.T) {
		if i, ok := VerifyChain(nil, entries); !ok || i != -1 {
			t.Fatalf("VerifyChain = %d, %v", i, ok)
		}
	})
	t.Run("a window verifies from its previous hash", func(t *testing.T) {
		if i, ok := VerifyChain(entries[1].Hash, entries[2:]); !ok {
			t.Fatalf("window broken at %d", i)
		}
	})
	t.Run("a tampered transfer is named", func(t *testing.T) {
		tampered := append([]ChainEntry(nil), entries...)
		tampered[3].Transfer.Reference += "x"
		if i, ok := VerifyChain(nil, tampered); ok || i != 3 {
			t.Fatalf("VerifyChain = %d, %v, want 3, false", i, ok)
		}
	})
	t.Run("a rehashed tampered transfer breaks the next link", func(t *testing.T) {
		tampered := append([]ChainEntry(nil), entries...)
		tampered[3].Transfer.Reference += "x"
		tampered[3].Hash = ChainHash(tampered[2].Hash, tampered[3].Transfer)
		if i, ok := VerifyChain(nil, tampered); ok || i != 4 {
			t.Fatalf("VerifyChain = %d, %v, want 4, false", i, ok)
		}
	})
	t.Run("a removed transfer is named", func(t *testing.T) {
		removed := append(append([]ChainEntry(nil), entries[:2]...), entries[3:]...)
		if i, ok := VerifyChain(nil, removed); ok || i != 2 {
			t.Fatalf("VerifyChain = %d, %v, want 2, false", i, ok)
		}
	})
}

// sampleChain records n funding transfers in a Book and returns its chain.
func sampleChain(t testing.TB, n int) []ChainEntry {
	t.Helper()
	book := NewBook()
	world := mustOpen(t, book, World(core.EnvTest, AssetUSDC, "bank"))
	alice := mustOpen(t, book, TenantAvailable(core.EnvTest, AssetUSDC, "ten_alice"))
	for i := 0; i < n; i++ {
		spec := postedSpec("fund:"+string(rune('a'+i)), Move(world.ID, alice.ID, int64(i+1))...)
		if _, _, err := book.Post(spec, newTransferID(), t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	return book.Chain()
}

func mustOpen(t testing.TB, book *Book, spec AccountSpec) Account {
	t.Helper()
	a, err := book.OpenAccount(core.NewID(core.PrefixAccount), spec, t0)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// pinnedGenesisHash is sha256 of the documented layout of fixedTransfer(), computed
// independently (in Python) from the layout, so the Go encoder and the documentation agree.
const pinnedGenesisHash = "5e6f4c6cd3a3f1d92e423e01a9ac64e4393a50d9cfa097160d48d85d5f60e95c"

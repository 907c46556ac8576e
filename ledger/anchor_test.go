package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func testHeads(n int) []ChainHead {
	heads := make([]ChainHead, n)
	for i := range heads {
		sum := sha256.Sum256([]byte{byte(i)})
		heads[i] = ChainHead{Environment: "TEST", Stripe: i, Position: int64(i * 3), Hash: sum[:]}
		if i == 0 {
			heads[i].Hash, heads[i].Position = nil, 0
		}
	}
	return heads
}

// TestAnchorLeaf_Layout pins the leaf encoding byte by byte: the auditor's recipe in the docs
// hashes exactly these bytes.
func TestAnchorLeaf_Layout(t *testing.T) {
	head := bytes.Repeat([]byte{0xab}, 32)
	want := []byte{0x00}
	want = append(want, "corridor.anchor.v1"...)
	want = append(want, 4, 'L', 'I', 'V', 'E', 0x00, 0x0f, 0, 0, 0, 0, 0, 0, 0x01, 0x02)
	want = append(want, head...)
	sum := sha256.Sum256(want)
	if got := AnchorLeaf(ChainHead{Environment: "LIVE", Stripe: 15, Position: 258, Hash: head}); !bytes.Equal(got, sum[:]) {
		t.Fatalf("leaf %x, want %x", got, sum)
	}
	empty := AnchorLeaf(ChainHead{Environment: "LIVE", Stripe: 15})
	zero := AnchorLeaf(ChainHead{Environment: "LIVE", Stripe: 15, Hash: make([]byte, 32)})
	if !bytes.Equal(empty, zero) {
		t.Fatal("an empty chain's head is not 32 zero bytes")
	}
}

// TestAnchorProof_EveryLeaf: for trees of 1 to 33 leaves, every leaf's path reaches the root,
// and a changed head, a changed sibling or another leaf's position does not.
func TestAnchorProof_EveryLeaf(t *testing.T) {
	for n := 1; n <= 33; n++ {
		heads := testHeads(n)
		root := AnchorRoot(heads)
		for i := range heads {
			r, path := AnchorProof(heads, i)
			if !bytes.Equal(r, root) {
				t.Fatalf("n=%d: proof root differs", n)
			}
			if !VerifyAnchorProof(AnchorLeaf(heads[i]), path, root) {
				t.Fatalf("n=%d leaf %d: path does not verify", n, i)
			}
			changed := heads[i]
			changed.Position++
			if VerifyAnchorProof(AnchorLeaf(changed), path, root) {
				t.Fatalf("n=%d leaf %d: a changed head verifies", n, i)
			}
			if len(path) > 0 {
				bad := append([]ProofStep(nil), path...)
				bad[0] = ProofStep{Left: bad[0].Left, Sibling: anchorNode(bad[0].Sibling, bad[0].Sibling)}
				if VerifyAnchorProof(AnchorLeaf(heads[i]), bad, root) {
					t.Fatalf("n=%d leaf %d: a changed sibling verifies", n, i)
				}
			}
		}
	}
}

// TestAnchorRoot_Shape pins the tree for three leaves: (l0·l1)·l2, the odd leaf carried up.
func TestAnchorRoot_Shape(t *testing.T) {
	heads := testHeads(3)
	l := [3][]byte{AnchorLeaf(heads[0]), AnchorLeaf(heads[1]), AnchorLeaf(heads[2])}
	want := anchorNode(anchorNode(l[0], l[1]), l[2])
	if got := AnchorRoot(heads); !bytes.Equal(got, want) {
		t.Fatalf("root %x, want %x", got, want)
	}
	if got := AnchorRoot(heads[:1]); !bytes.Equal(got, l[0]) {
		t.Fatal("a single leaf is not its own root")
	}
	node := sha256.Sum256(append(append([]byte{1}, l[0]...), l[1]...))
	if !bytes.Equal(anchorNode(l[0], l[1]), node[:]) {
		t.Fatal("node hashing is not sha256(0x01 || left || right)")
	}
}

// TestAnchorPayload_RoundTrip: the payload is the tag then the root; nothing else parses.
func TestAnchorPayload_RoundTrip(t *testing.T) {
	root := AnchorRoot(testHeads(5))
	p := AnchorPayload(root)
	if hex.EncodeToString(p[:len(AnchorVersion)]) != hex.EncodeToString([]byte("corridor.anchor.v1")) {
		t.Fatalf("payload %x", p)
	}
	got, ok := ParseAnchorPayload(p)
	if !ok || !bytes.Equal(got, root) {
		t.Fatal("payload does not parse back")
	}
	if _, ok := ParseAnchorPayload(p[1:]); ok {
		t.Fatal("a truncated payload parses")
	}
}

// TestSortHeads orders by environment, then stripe.
func TestSortHeads(t *testing.T) {
	heads := []ChainHead{{Environment: "TEST", Stripe: 1}, {Environment: "LIVE", Stripe: 2}, {Environment: "TEST", Stripe: 0}, {Environment: "LIVE", Stripe: 0}}
	SortHeads(heads)
	got := ""
	for _, h := range heads {
		got += h.Environment + string(rune('0'+h.Stripe)) + " "
	}
	if got != "LIVE0 LIVE2 TEST0 TEST1 " {
		t.Fatalf("order %q", got)
	}
}

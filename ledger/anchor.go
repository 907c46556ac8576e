package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
)

// An anchor commits to the heads of every hash chain of the ledger at one moment with a single
// Merkle root, which is written on chain where nobody with database access can change it. The
// hashing below is the whole contract an auditor needs (docs/ledger.md shows it in Python), so
// it is spelled out byte by byte and never changes for the same version tag.
const (
	// AnchorVersion opens every leaf and the on-chain payload, so another layout cannot collide.
	AnchorVersion = "corridor.anchor.v1"
	anchorLeafTag = 0x00 // leaf hashes and node hashes are domain-separated by their first byte
	anchorNodeTag = 0x01
)

// ChainHead is the head of one hash chain (one stripe of one environment) at Position: the hash
// of the chain's Position-th transfer, or empty when the chain has none yet.
type ChainHead struct {
	Environment string
	Stripe      int
	Position    int64
	Hash        []byte
}

// AnchorLeaf is a chain head's leaf in an anchor's Merkle tree:
//
//	sha256(0x00 || "corridor.anchor.v1" || u8(len(environment)) || environment ||
//	       u16(stripe) || u64(position) || head)
//
// with big-endian integers and head the 32-byte chain hash (32 zero bytes for an empty chain).
// The environment and stripe name the chain, so a head cannot be moved to another chain's slot.
func AnchorLeaf(h ChainHead) []byte {
	if len(h.Environment) > 255 || h.Stripe < 0 || h.Stripe > 0xffff || h.Position < 0 {
		panic(fmt.Sprintf("ledger: chain head %s/%d at %d cannot be anchored", h.Environment, h.Stripe, h.Position))
	}
	head := h.Hash
	if len(head) == 0 {
		head = make([]byte, sha256.Size)
	}
	if len(head) != sha256.Size {
		panic(fmt.Sprintf("ledger: chain head %s/%d has a %d-byte hash", h.Environment, h.Stripe, len(head)))
	}
	var b bytes.Buffer
	b.WriteByte(anchorLeafTag)
	b.WriteString(AnchorVersion)
	b.WriteByte(byte(len(h.Environment))) //nolint:gosec // checked at most 255 above
	b.WriteString(h.Environment)
	b.Write(binary.BigEndian.AppendUint16(nil, uint16(h.Stripe)))
	b.Write(binary.BigEndian.AppendUint64(nil, uint64(h.Position)))
	b.Write(head)
	sum := sha256.Sum256(b.Bytes())
	return sum[:]
}

// anchorNode joins two subtrees: sha256(0x01 || left || right).
func anchorNode(left, right []byte) []byte {
	h := sha256.New()
	h.Write([]byte{anchorNodeTag})
	h.Write(left)
	h.Write(right)
	return h.Sum(nil)
}

// SortHeads puts heads in leaf order: by environment, then stripe. Every anchor lists its heads
// in this order, so the same heads always give the same root.
func SortHeads(heads []ChainHead) {
	sort.Slice(heads, func(i, j int) bool {
		if heads[i].Environment != heads[j].Environment {
			return heads[i].Environment < heads[j].Environment
		}
		return heads[i].Stripe < heads[j].Stripe
	})
}

// ProofStep is one level of a Merkle path: the sibling hash and whether it sits on the left.
type ProofStep struct {
	Left    bool
	Sibling []byte
}

// AnchorRoot is the Merkle root over the leaves of heads (in the order given; see SortHeads).
// Each level pairs neighbours left to right with anchorNode; an odd last node is carried up
// unchanged. A single leaf is its own root.
func AnchorRoot(heads []ChainHead) []byte {
	root, _ := anchorTree(heads, -1)
	return root
}

// AnchorProof is the root and the Merkle path from heads[index]'s leaf to it.
func AnchorProof(heads []ChainHead, index int) (root []byte, path []ProofStep) {
	if index < 0 || index >= len(heads) {
		panic(fmt.Sprintf("ledger: proof of leaf %d of %d", index, len(heads)))
	}
	return anchorTree(heads, index)
}

func anchorTree(heads []ChainHead, index int) ([]byte, []ProofStep) {
	if len(heads) == 0 {
		panic("ledger: an anchor needs at least one chain head")
	}
	level := make([][]byte, len(heads))
	for i, h := range heads {
		level[i] = AnchorLeaf(h)
	}
	var path []ProofStep
	for len(level) > 1 {
		next := make([][]byte, 0, (len(level)+1)/2)
		for i := 0; i < len(level); i += 2 {
			if i+1 == len(level) {
				next = append(next, level[i])
				continue
			}
			switch index {
			case i:
				path = append(path, ProofStep{Left: false, Sibling: level[i+1]})
			case i + 1:
				path = append(path, ProofStep{Left: true, Sibling: level[i]})
			}
			next = append(next, anchorNode(level[i], level[i+1]))
		}
		index /= 2
		level = next
	}
	return level[0], path
}

// VerifyAnchorProof folds path over leaf and reports whether it reaches root.
func VerifyAnchorProof(leaf []byte, path []ProofStep, root []byte) bool {
	acc := leaf
	for _, s := range path {
		if s.Left {
			acc = anchorNode(s.Sibling, acc)
		} else {
			acc = anchorNode(acc, s.Sibling)
		}
	}
	return bytes.Equal(acc, root)
}

// AnchorPayload is the data of the anchor's transaction: the ASCII version tag followed by the
// 32-byte root, so the root can be read from any block explorer's "input data".
func AnchorPayload(root []byte) []byte {
	if len(root) != sha256.Size {
		panic(fmt.Sprintf("ledger: an anchor root has %d bytes", len(root)))
	}
	return append([]byte(AnchorVersion), root...)
}

// ParseAnchorPayload returns the root a transaction's data carries, if it is an anchor payload.
func ParseAnchorPayload(data []byte) ([]byte, bool) {
	if len(data) != len(AnchorVersion)+sha256.Size || !bytes.HasPrefix(data, []byte(AnchorVersion)) {
		return nil, false
	}
	return data[len(AnchorVersion):], true
}

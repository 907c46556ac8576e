package anchors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
)

// This file is the auditor: it checks an exported anchor proof with nothing of Corridor's but
// the JSON, following docs/ledger.md ("Checking an anchor without Corridor") step by step, and
// reads the transaction from the chain's node. It deliberately imports no project package: the
// canonical encoding, the chain hash, the leaf, the Merkle path and the payload are written
// again here from the documentation.

type auditProof struct {
	Version          string       `json:"version"`
	AnchorID         int64        `json:"anchorId"`
	Root             string       `json:"root"`
	ChainEnvironment string       `json:"chainEnvironment"`
	ChainID          int64        `json:"chainId"`
	TxHash           string       `json:"txHash"`
	BlockNumber      uint64       `json:"blockNumber"`
	Chains           []auditChain `json:"chains"`
}

type auditChain struct {
	Environment   string `json:"environment"`
	Stripe        int    `json:"stripe"`
	Position      int64  `json:"position"`
	Head          string `json:"head"`
	FromPosition  int64  `json:"fromPosition"`
	FirstSequence int64  `json:"firstSequence"`
	LastSequence  int64  `json:"lastSequence"`
	PreviousHead  string `json:"previousHead"`
	Path          []struct {
		Side    string `json:"side"`
		Sibling string `json:"sibling"`
	} `json:"path"`
	Transfers []auditTransfer `json:"transfers"`
}

type auditTransfer struct {
	Position           int64  `json:"position"`
	Sequence           int64  `json:"sequence"`
	ID                 string `json:"id"`
	Reference          string `json:"reference"`
	Type               string `json:"type"`
	Environment        string `json:"environment"`
	Asset              string `json:"asset"`
	PendingID          string `json:"pendingId"`
	ReversedID         string `json:"reversedId"`
	Amount             int64  `json:"amount"`
	ExpiresAtUnixMicro int64  `json:"expiresAtUnixMicro"`
	CreatedAtUnixMicro int64  `json:"createdAtUnixMicro"`
	Postings           []struct {
		AccountID string `json:"accountId"`
		Amount    int64  `json:"amount"`
	} `json:"postings"`
	Metadata map[string]string `json:"metadata"`
}

// canonical is the documented encoding of a transfer.
func canonical(t auditTransfer) []byte {
	var b bytes.Buffer
	str := func(s string) { b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(s)))); b.WriteString(s) }
	i64 := func(v int64) { b.Write(binary.BigEndian.AppendUint64(nil, uint64(v))) }
	when := func(micros int64) {
		if micros == 0 {
			b.WriteByte(0)
			return
		}
		b.WriteByte(1)
		i64(micros)
	}
	str("corridor.ledger.transfer.v1")
	for _, s := range []string{t.ID, t.Reference, t.Type, t.Environment, t.Asset, t.PendingID, t.ReversedID} {
		str(s)
	}
	i64(t.Amount)
	when(t.ExpiresAtUnixMicro)
	when(t.CreatedAtUnixMicro)
	postings := append(t.Postings[:0:0], t.Postings...)
	sort.Slice(postings, func(i, j int) bool { return postings[i].AccountID < postings[j].AccountID })
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(postings))))
	for _, p := range postings {
		str(p.AccountID)
		i64(p.Amount)
	}
	keys := make([]string, 0, len(t.Metadata))
	for k := range t.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(keys))))
	for _, k := range keys {
		str(k)
		str(t.Metadata[k])
	}
	return b.Bytes()
}

func sum(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// auditChainHead recomputes one chain's head from the previous head and the exported rows.
func auditChainHead(c auditChain) ([]byte, error) {
	head := unhex(c.PreviousHead)
	next := c.FromPosition
	for _, t := range c.Transfers {
		if t.Position != next {
			return nil, fmt.Errorf("chain %s/%d: row at position %d, expected %d", c.Environment, c.Stripe, t.Position, next)
		}
		head = sum(head, canonical(t))
		next++
	}
	if next != c.Position+1 {
		return nil, fmt.Errorf("chain %s/%d: rows end at %d, the head is at %d", c.Environment, c.Stripe, next-1, c.Position)
	}
	if !bytes.Equal(head, unhex(c.Head)) {
		return nil, fmt.Errorf("chain %s/%d: recomputed head %x, the proof says %s", c.Environment, c.Stripe, head, c.Head)
	}
	return head, nil
}

// auditLeaf is the documented leaf of a chain head.
func auditLeaf(c auditChain, head []byte) []byte {
	if len(head) == 0 {
		head = make([]byte, 32)
	}
	var b bytes.Buffer
	b.WriteByte(0)
	b.WriteString("corridor.anchor.v1")
	b.WriteByte(byte(len(c.Environment)))
	b.WriteString(c.Environment)
	b.Write(binary.BigEndian.AppendUint16(nil, uint16(c.Stripe)))
	b.Write(binary.BigEndian.AppendUint64(nil, uint64(c.Position)))
	b.Write(head)
	return sum(b.Bytes())
}

// audit checks every chain of the proof up to the root and the root against the transaction
// that rpcURL's node holds.
func audit(ctx context.Context, p auditProof, rpcURL string) error {
	root := unhex(p.Root)
	for _, c := range p.Chains {
		head, err := auditChainHead(c)
		if err != nil {
			return err
		}
		acc := auditLeaf(c, head)
		for _, s := range c.Path {
			if s.Side == "left" {
				acc = sum([]byte{1}, unhex(s.Sibling), acc)
			} else {
				acc = sum([]byte{1}, acc, unhex(s.Sibling))
			}
		}
		if !bytes.Equal(acc, root) {
			return fmt.Errorf("chain %s/%d: the Merkle path ends at %x, not the root %s", c.Environment, c.Stripe, acc, p.Root)
		}
	}
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return err
	}
	defer client.Close()
	tx, pending, err := client.TransactionByHash(ctx, common.HexToHash(p.TxHash))
	if err != nil || pending {
		return fmt.Errorf("transaction %s: pending %v, %v", p.TxHash, pending, err)
	}
	if want := append([]byte("corridor.anchor.v1"), root...); !bytes.Equal(tx.Data(), want) {
		return fmt.Errorf("transaction %s carries %x, want %x", p.TxHash, tx.Data(), want)
	}
	receipt, err := client.TransactionReceipt(ctx, common.HexToHash(p.TxHash))
	if err != nil {
		return err
	}
	if receipt.Status != 1 || receipt.BlockNumber.Uint64() != p.BlockNumber {
		return fmt.Errorf("transaction %s: status %d in block %d, the proof says block %d", p.TxHash, receipt.Status, receipt.BlockNumber, p.BlockNumber)
	}
	return nil
}

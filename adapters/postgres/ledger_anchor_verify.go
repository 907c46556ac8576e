package postgres

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"
	"sort"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/ledger"
)

// AnchorTxReader reads an anchor's transaction from the chain that carries it: its data and the
// block it was mined in (an error when it is not mined, failed or unknown).
type AnchorTxReader func(ctx context.Context, chainEnvironment string, chainID int64, txHash string) (data []byte, block uint64, err error)

// AnchorVerification is what `corridor ledger verify --anchors` found.
type AnchorVerification struct {
	Anchors  int          // mined anchors checked
	Last     LedgerAnchor // the newest mined anchor (zero when none)
	Problems []string     // what the journal or the chain contradicts
	// Unread names the anchors whose transaction could not be read (no node configured for
	// its environment, a node that failed): their roots are checked against the journal, not
	// against the chain. Nothing is known to be wrong with them; nothing is proven either.
	Unread []string
}

// OK reports anchors whose roots all follow from the journal and match the chain.
func (v AnchorVerification) OK() bool { return len(v.Problems) == 0 && len(v.Unread) == 0 }

// maxAnchorsVerified bounds one run; an hourly anchor makes this more than a century.
const maxAnchorsVerified = 1_000_000

// VerifyAnchors recomputes, in one read-only snapshot, every mined anchor's chain heads from
// the journal's transfers alone (ledger.ChainHash over each transfer's columns and postings, in
// chain order, never trusting a stored hash), the Merkle root over them, and checks that root
// against the one recorded and the one carried by the anchor's transaction on chain (read, with
// its block, through read). Any change to a transfer an anchor covers, or to the chain rows in
// front of it, changes a recomputed head and fails the anchor, even when whoever made it also
// rewrote every stored hash.
func VerifyAnchors(ctx context.Context, db *bun.DB, read AnchorTxReader) (AnchorVerification, error) {
	var out AnchorVerification
	tx, err := db.DB.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return out, err
	}
	defer func() { _ = tx.Rollback() }()
	anchors, err := queryAnchors(ctx, tx, `WHERE mined_at IS NOT NULL ORDER BY id LIMIT $1`, maxAnchorsVerified)
	if err != nil || len(anchors) == 0 {
		return out, err
	}
	recomputed, err := recomputeAnchoredHeads(ctx, tx, anchors)
	if err != nil {
		return out, err
	}
	for _, a := range anchors {
		problems, unread := checkAnchor(ctx, a, recomputed, read)
		out.Problems = append(out.Problems, problems...)
		if unread != "" {
			out.Unread = append(out.Unread, unread)
		}
	}
	out.Anchors, out.Last = len(anchors), anchors[len(anchors)-1]
	return out, nil
}

// positionKey names one chain position an anchor covers.
type positionKey struct {
	chain    string
	position int64
}

// recomputeAnchoredHeads walks every anchored chain from its first transfer up to the highest
// position any anchor covers, and returns the recomputed head at each anchored position. A
// position the journal no longer reaches (a transfer deleted) is absent.
func recomputeAnchoredHeads(ctx context.Context, tx *sql.Tx, anchors []LedgerAnchor) (map[positionKey][]byte, error) {
	type chainID struct {
		env    string
		stripe int
	}
	wanted := map[chainID]map[int64]bool{}
	var order []chainID
	for _, a := range anchors {
		for _, h := range a.Heads {
			k := chainID{h.Environment, h.Stripe}
			if wanted[k] == nil {
				wanted[k] = map[int64]bool{}
				order = append(order, k)
			}
			wanted[k][h.Position] = true
		}
	}
	out := map[positionKey][]byte{}
	for _, k := range order {
		if err := recomputeChain(ctx, tx, k.env, k.stripe, wanted[k], out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// recomputeChain hashes one chain's transfers in position order. The n-th transfer found is
// position n, whatever its stored position says, so a deleted or renumbered link shifts every
// later head instead of hiding.
func recomputeChain(ctx context.Context, tx *sql.Tx, env string, stripe int, wanted map[int64]bool, out map[positionKey][]byte) error {
	var highest int64
	for p := range wanted {
		highest = max(highest, p)
	}
	k := chainKey(env, stripe)
	out[positionKey{k, 0}] = nil
	var prev []byte
	var n, after int64
	v := &verifier{q: tx}
	// The walk is bounded by the anchors, not by the head: no position limit.
	head := chainHead{env: env, stripe: stripe, position: math.MaxInt64}
	if err := tx.QueryRowContext(ctx, `SELECT ledger_chain_stripe_key($1::smallint)`, stripe).Scan(&head.key); err != nil {
		return err
	}
	for n < highest {
		batch, err := v.stripeBatch(ctx, head, after)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			break
		}
		for _, e := range batch {
			after = e.position
			if e.missing { // a link without its transfer: the transfers after it shift down
				continue
			}
			n++
			prev = ledger.ChainHash(prev, e.stored.Transfer)
			if wanted[n] {
				out[positionKey{k, n}] = prev
			}
			if n == highest {
				break
			}
		}
	}
	return nil
}

// checkAnchor compares one anchor with the recomputed heads and with its transaction.
func checkAnchor(ctx context.Context, a LedgerAnchor, recomputed map[positionKey][]byte, read AnchorTxReader) (problems []string, unread string) {
	leaves := make([]ledger.ChainHead, len(a.Heads))
	for i, h := range a.Heads {
		got, ok := recomputed[positionKey{chainKey(h.Environment, h.Stripe), h.Position}]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("anchor %d: chain %s stripe %d no longer reaches position %d: transfers it covered are missing",
				a.ID, h.Environment, h.Stripe, h.Position))
		case !equalHex(h.Head, got):
			problems = append(problems, fmt.Sprintf("anchor %d: chain %s stripe %d: the head at position %d recomputed from the journal differs from the anchored head "+
				"(a transfer among positions 1..%d, sequences up to %d, was changed)", a.ID, h.Environment, h.Stripe, h.Position, h.Position, h.LastSequence))
		}
		leaves[i] = ledger.ChainHead{Environment: h.Environment, Stripe: h.Stripe, Position: h.Position, Hash: got}
	}
	root := ledger.AnchorRoot(leaves)
	if !bytes.Equal(root, a.Root) {
		problems = append(problems, fmt.Sprintf("anchor %d: the Merkle root recomputed from the journal (%x) differs from the recorded root (%x)", a.ID, root, a.Root))
	}
	data, block, err := read(ctx, a.ChainEnvironment, a.ChainID, a.TxHash)
	if err != nil {
		return problems, fmt.Sprintf("anchor %d: transaction %s on chain %d: %v", a.ID, a.TxHash, a.ChainID, err)
	}
	onChain, ok := ledger.ParseAnchorPayload(data)
	switch {
	case !ok:
		problems = append(problems, fmt.Sprintf("anchor %d: transaction %s carries no anchor payload", a.ID, a.TxHash))
	case !bytes.Equal(onChain, root):
		problems = append(problems, fmt.Sprintf("anchor %d: transaction %s carries root %x, the journal gives %x", a.ID, a.TxHash, onChain, root))
	}
	if block != a.BlockNumber {
		problems = append(problems, fmt.Sprintf("anchor %d: transaction %s is in block %d, the record says %d", a.ID, a.TxHash, block, a.BlockNumber))
	}
	return problems, ""
}

// AnchorProofExport is an anchor with everything an auditor needs to check one range of the
// journal against the chain without Corridor: for each chain, the transfers the anchor added
// (their content as the canonical encoding reads it), the head they start from, the head's leaf
// and its Merkle path to the root, and the transaction that carries the root.
type AnchorProofExport struct {
	Version          string             `json:"version"`
	AnchorID         int64              `json:"anchorId"`
	Root             string             `json:"root"`
	ChainEnvironment string             `json:"chainEnvironment"`
	ChainID          int64              `json:"chainId"`
	TxHash           string             `json:"txHash"`
	BlockNumber      uint64             `json:"blockNumber"`
	Payload          string             `json:"payload"`
	Chains           []ChainProofExport `json:"chains"`
}

// ChainProofExport is one chain's part of an AnchorProofExport.
type ChainProofExport struct {
	AnchorHead
	PreviousHead string                `json:"previousHead"` // the head at FromPosition-1 (the previous anchor's); empty at the start
	Leaf         string                `json:"leaf"`
	Path         []ProofStepExport     `json:"path"`
	Transfers    []ProofTransferExport `json:"transfers"`
}

// ProofStepExport is one Merkle step: hash the sibling on its side of the running hash.
type ProofStepExport struct {
	Side    string `json:"side"` // "left" or "right"
	Sibling string `json:"sibling"`
}

// ProofTransferExport is one transfer with every field the canonical encoding covers. Times
// are Unix microseconds (0 for none); postings are in account-id order.
type ProofTransferExport struct {
	Position           int64             `json:"position"`
	Sequence           int64             `json:"sequence"`
	ID                 string            `json:"id"`
	Reference          string            `json:"reference"`
	Type               string            `json:"type"`
	Environment        string            `json:"environment"`
	Asset              string            `json:"asset"`
	PendingID          string            `json:"pendingId"`
	ReversedID         string            `json:"reversedId"`
	Amount             int64             `json:"amount"`
	ExpiresAtUnixMicro int64             `json:"expiresAtUnixMicro"`
	CreatedAtUnixMicro int64             `json:"createdAtUnixMicro"`
	Postings           []ProofPosting    `json:"postings"`
	Metadata           map[string]string `json:"metadata"`
}

// ProofPosting is one posting of a ProofTransferExport.
type ProofPosting struct {
	AccountID string `json:"accountId"`
	Amount    int64  `json:"amount"`
}

// ExportAnchorProof builds the proof of a mined anchor from the journal.
func (s *LedgerAnchors) ExportAnchorProof(ctx context.Context, id int64) (AnchorProofExport, error) {
	a, found, err := s.Get(ctx, id)
	if err != nil {
		return AnchorProofExport{}, err
	}
	if !found || !a.Mined() {
		return AnchorProofExport{}, fmt.Errorf("anchor %d is not recorded as mined", id)
	}
	out := AnchorProofExport{Version: ledger.AnchorVersion, AnchorID: a.ID, Root: hex.EncodeToString(a.Root),
		ChainEnvironment: a.ChainEnvironment, ChainID: a.ChainID, TxHash: a.TxHash, BlockNumber: a.BlockNumber,
		Payload: hex.EncodeToString(a.Payload)}
	leaves := make([]ledger.ChainHead, len(a.Heads))
	for i, h := range a.Heads {
		if leaves[i], err = anchorChainHead(h); err != nil {
			return out, err
		}
	}
	previous, err := s.previousHeads(ctx, a.ID)
	if err != nil {
		return out, err
	}
	for i, h := range a.Heads {
		_, path := ledger.AnchorProof(leaves, i)
		c := ChainProofExport{AnchorHead: h, PreviousHead: previous[chainKey(h.Environment, h.Stripe)],
			Leaf: hex.EncodeToString(ledger.AnchorLeaf(leaves[i]))}
		for _, step := range path {
			side := "right"
			if step.Left {
				side = "left"
			}
			c.Path = append(c.Path, ProofStepExport{Side: side, Sibling: hex.EncodeToString(step.Sibling)})
		}
		if c.Transfers, err = s.proofTransfers(ctx, h); err != nil {
			return out, err
		}
		out.Chains = append(out.Chains, c)
	}
	return out, nil
}

// previousHeads are the heads of the anchor before id, by chain.
func (s *LedgerAnchors) previousHeads(ctx context.Context, id int64) (map[string]string, error) {
	before, err := queryAnchors(ctx, s.db.DB, `WHERE id < $1 ORDER BY id DESC LIMIT 1`, id)
	out := map[string]string{}
	if err != nil || len(before) == 0 {
		return out, err
	}
	for _, h := range before[0].Heads {
		out[chainKey(h.Environment, h.Stripe)] = h.Head
	}
	return out, nil
}

// maxProofTransfers bounds one chain's part of a proof; an anchor interval keeps it far lower.
const maxProofTransfers = 1_000_000

func (s *LedgerAnchors) proofTransfers(ctx context.Context, h AnchorHead) ([]ProofTransferExport, error) {
	if h.Position < h.FromPosition {
		return []ProofTransferExport{}, nil
	}
	// The links first (materialized), as in the anchor's own read: Citus joins the chain,
	// distributed by its bucket key, to the transfers only through such a result.
	rows, err := s.db.DB.QueryContext(ctx, `WITH c AS MATERIALIZED (SELECT transfer_id, position FROM ledger_chain
    WHERE environment = $1 AND stripe = $2 AND position >= $3 AND position <= $4 ORDER BY position LIMIT $5)
SELECT `+transferColumns+`, c.position FROM c JOIN ledger_transfers t ON t.id = c.transfer_id ORDER BY c.position`,
		h.Environment, h.Stripe, h.FromPosition, h.Position, maxProofTransfers)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ProofTransferExport{}
	for rows.Next() {
		var position int64
		stored, sequence, err := scanTransfer(extraScanner{rows, []any{&position}})
		if err != nil {
			return nil, err
		}
		out = append(out, proofTransfer(stored.Transfer, position, sequence))
	}
	return out, rows.Err()
}

func proofTransfer(t ledger.Transfer, position, sequence int64) ProofTransferExport {
	p := ProofTransferExport{Position: position, Sequence: sequence, ID: t.ID, Reference: t.Reference, Type: string(t.Type),
		Environment: string(t.Environment), Asset: t.Asset, PendingID: t.PendingID, ReversedID: t.ReversedID,
		Amount: t.Amount, CreatedAtUnixMicro: t.CreatedAt.UnixMicro(), Metadata: map[string]string{}}
	if !t.ExpiresAt.IsZero() {
		p.ExpiresAtUnixMicro = t.ExpiresAt.UnixMicro()
	}
	for _, posting := range t.Postings {
		p.Postings = append(p.Postings, ProofPosting{AccountID: posting.AccountID, Amount: posting.Amount})
	}
	sort.Slice(p.Postings, func(i, j int) bool { return p.Postings[i].AccountID < p.Postings[j].AccountID })
	for k, v := range t.Metadata {
		p.Metadata[k] = v
	}
	return p
}

// Package anchors runs the ledger anchor pass: it writes the Merkle root of the ledger's
// hash-chain heads on chain through the relayer, so a rewrite of the journal by whoever can
// write the database is provable. Each step is recorded before the next, so a pass cut short
// anywhere is finished by the next one.
package anchors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// MineWait bounds how long one pass waits for the anchor's transaction to be mined before
// leaving it to the next pass (the fee-bump pass replaces it meanwhile if it is stuck).
const MineWait = 90 * time.Second

// receiptPoll is how often a pass asks for the receipt while the transaction is pending.
const receiptPoll = 250 * time.Millisecond

// Service is the anchor pass over one chain: the one that carries the anchors.
type Service struct {
	anchors  ports.LedgerAnchorStore
	chain    ports.AnchorChain
	chainEnv core.Environment
	interval time.Duration
	log      *slog.Logger
}

// New returns the pass that anchors on chain, the chain of environment chainEnv. interval paces
// the periodic job; a negative one schedules none (Pass still runs when called).
func New(anchors ports.LedgerAnchorStore, chain ports.AnchorChain, chainEnv core.Environment, interval time.Duration, log *slog.Logger) *Service {
	return &Service{anchors: anchors, chain: chain, chainEnv: chainEnv, interval: interval, log: log}
}

// Pass runs the anchor's steps, each recorded before the next, so a pass cut short anywhere
// is finished by the next one: take the open anchor or record a new one over the current
// heads; send its transaction unless one is recorded (or, after a crash between the send and
// its record, found in the relayer's log by its payload); wait for it to be mined and record
// the transaction and block. It returns the anchor it closed, if any: the zero anchor when no
// transfer was linked since the last one.
func (s *Service) Pass(ctx context.Context) (ports.LedgerAnchor, error) {
	a, ok, err := s.anchors.Open(ctx)
	if err != nil {
		return a, err
	}
	if !ok {
		if a, ok, err = s.anchors.Prepare(ctx, time.Now().UTC(), string(s.chainEnv), s.chain.ChainID()); err != nil || !ok {
			return ports.LedgerAnchor{}, err
		}
	}
	if a.ChainID != s.chain.ChainID() {
		return a, fmt.Errorf("ledger anchor %d is for chain %d, this relayer sends on %d", a.ID, a.ChainID, s.chain.ChainID())
	}
	if a.TxHash == "" {
		if a.TxHash, err = s.send(ctx, a); err != nil {
			return a, err
		}
	}
	waitCtx, cancel := context.WithTimeout(ctx, MineWait)
	defer cancel()
	receipt, err := s.waitMined(waitCtx, common.HexToHash(a.TxHash))
	if err != nil {
		return a, err
	}
	if receipt.Status == ports.TxFailed {
		// A zero-value self-transfer fails only if it ran out of gas: send it again next pass.
		return a, errors.Join(fmt.Errorf("ledger anchor %d: transaction %s failed: %s", a.ID, a.TxHash, receipt.FailureReason),
			s.anchors.ForgetSent(ctx, a.ID))
	}
	a.TxHash, a.BlockNumber, a.MinedAt = lowerHex(receipt.TxHash), receipt.BlockNumber, time.Now().UTC()
	if err := s.anchors.RecordMined(ctx, a.ID, a.TxHash, a.BlockNumber, a.MinedAt); err != nil {
		return a, err
	}
	s.log.InfoContext(ctx, "ledger anchored", "anchor", a.ID, "root", fmt.Sprintf("%x", a.Root), "tx", a.TxHash, "block", a.BlockNumber)
	return a, nil
}

// send sends the anchor's transaction unless the relayer's log already holds one with its
// payload that did not fail, and records the hash either way.
func (s *Service) send(ctx context.Context, a ports.LedgerAnchor) (string, error) {
	hash, found, err := s.anchors.SentPayload(ctx, a.ChainID, a.Payload)
	if err != nil {
		return "", err
	}
	if found {
		// A logged transaction that failed on chain is why the anchor was sent again.
		receipt, err := s.chain.Receipt(ctx, common.HexToHash(hash))
		if err != nil {
			return "", err
		}
		found = receipt.Status != ports.TxFailed
	}
	if !found {
		sent, err := s.chain.SendAnchor(ctx, a.ID, a.Payload)
		if err != nil {
			return "", fmt.Errorf("ledger anchor %d: %w", a.ID, err)
		}
		hash = lowerHex(sent)
	}
	return hash, s.anchors.RecordSent(ctx, a.ID, hash)
}

// waitMined polls the receipt until the transaction (or a fee-bumped replacement) is mined.
func (s *Service) waitMined(ctx context.Context, hash common.Hash) (ports.Receipt, error) {
	for {
		receipt, err := s.chain.Receipt(ctx, hash)
		if err != nil || receipt.Status != ports.TxPending {
			return receipt, err
		}
		select {
		case <-ctx.Done():
			return receipt, fmt.Errorf("ledger anchor: transaction %s not mined yet: %w", hash.Hex(), ctx.Err())
		case <-time.After(receiptPoll):
		}
	}
}

// lowerHex writes a hash as the anchor records keep it: 0x and lower-case hex.
func lowerHex(h common.Hash) string { return "0x" + fmt.Sprintf("%x", h.Bytes()) }

package fake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/corridorhq/corridor/ports"
)

// LedgerAnchors keeps ledger anchors in memory as adapters/postgres does: at most one open,
// each step a write of its own. It has no ledger, so it is told when a transfer is linked
// (Advance) and when the relayer sent a transaction (LogSent); Prepare anchors only after an
// Advance, as the real store anchors only when a chain head moved.
type LedgerAnchors struct {
	mu       sync.Mutex
	rows     []ports.LedgerAnchor
	linked   int64                // transfers linked so far (the fake's one chain head)
	anchored int64                // linked as of the newest anchor
	sent     map[sentKey][]string // relayer log, oldest first
}

type sentKey struct {
	chainID int64
	payload string
}

var _ ports.LedgerAnchorStore = (*LedgerAnchors)(nil)

// NewLedgerAnchors returns an empty anchor store.
func NewLedgerAnchors() *LedgerAnchors { return &LedgerAnchors{sent: map[sentKey][]string{}} }

// Advance records that a transfer was linked into the ledger, so the next Prepare anchors.
func (s *LedgerAnchors) Advance() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.linked++
}

// LogSent records a relayer transaction sent with payload on chainID, as the relayer's log.
func (s *LedgerAnchors) LogSent(chainID int64, payload []byte, txHash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sentKey{chainID, string(payload)}
	s.sent[k] = append(s.sent[k], txHash)
}

// Open returns the anchor not yet mined, if any.
func (s *LedgerAnchors) Open(context.Context) (ports.LedgerAnchor, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.open(); i >= 0 {
		return s.rows[i], true, nil
	}
	return ports.LedgerAnchor{}, false, nil
}

func (s *LedgerAnchors) open() int {
	for i := range s.rows {
		if !s.rows[i].Mined() {
			return i
		}
	}
	return -1
}

// Prepare records a new anchor over the one head when a transfer was linked since the last
// anchor and none is open.
func (s *LedgerAnchors) Prepare(_ context.Context, now time.Time, env string, chainID int64) (ports.LedgerAnchor, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.linked == s.anchored || s.open() >= 0 {
		return ports.LedgerAnchor{}, false, nil
	}
	head := ports.AnchorHead{Environment: env, Position: s.linked, FromPosition: s.anchored + 1,
		FirstSequence: s.anchored + 1, LastSequence: s.linked}
	sum := sha256.Sum256(strconv.AppendInt(nil, s.linked, 10))
	head.Head = hex.EncodeToString(sum[:])
	root := sha256.Sum256(sum[:])
	a := ports.LedgerAnchor{ID: int64(len(s.rows) + 1), CreatedAt: now, Root: root[:], Heads: []ports.AnchorHead{head},
		ChainEnvironment: env, ChainID: chainID, Payload: append([]byte("anchor:"), root[:]...)}
	s.rows = append(s.rows, a)
	s.anchored = s.linked
	return a, true, nil
}

// update changes the anchor id if it is still open; a mined anchor is not changed.
func (s *LedgerAnchors) update(id int64, f func(*ports.LedgerAnchor)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.rows {
		if s.rows[i].ID == id && !s.rows[i].Mined() {
			f(&s.rows[i])
		}
	}
}

// RecordSent stores the transaction that carries an open anchor.
func (s *LedgerAnchors) RecordSent(_ context.Context, id int64, txHash string) error {
	s.update(id, func(a *ports.LedgerAnchor) { a.TxHash = txHash })
	return nil
}

// ForgetSent clears an open anchor's transaction.
func (s *LedgerAnchors) ForgetSent(_ context.Context, id int64) error {
	s.update(id, func(a *ports.LedgerAnchor) { a.TxHash = "" })
	return nil
}

// RecordMined closes an open anchor with the mined transaction and its block.
func (s *LedgerAnchors) RecordMined(_ context.Context, id int64, txHash string, block uint64, now time.Time) error {
	s.update(id, func(a *ports.LedgerAnchor) { a.TxHash, a.BlockNumber, a.MinedAt = txHash, block, now.UTC() })
	return nil
}

// SentPayload finds the newest logged transaction sent with payload on chainID.
func (s *LedgerAnchors) SentPayload(_ context.Context, chainID int64, payload []byte) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	log := s.sent[sentKey{chainID, string(payload)}]
	if len(log) == 0 {
		return "", false, nil
	}
	return log[len(log)-1], true, nil
}

// Anchors returns every anchor recorded, oldest first, for tests to inspect.
func (s *LedgerAnchors) Anchors() []ports.LedgerAnchor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ports.LedgerAnchor(nil), s.rows...)
}

package anchors_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/anchors"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

const testChainID = 31337

// store keeps anchor rows in memory as the Postgres store does: at most one open, each step a
// write of its own. newHeads says whether a transfer was linked since the last anchor.
type store struct {
	rows     []ports.LedgerAnchor
	newHeads bool
	sentLog  map[string]string // payload → relayer transaction hash
	prepared int
}

func (s *store) Open(context.Context) (ports.LedgerAnchor, bool, error) {
	for _, a := range s.rows {
		if !a.Mined() {
			return a, true, nil
		}
	}
	return ports.LedgerAnchor{}, false, nil
}

func (s *store) Prepare(_ context.Context, now time.Time, env string, chainID int64) (ports.LedgerAnchor, bool, error) {
	if !s.newHeads {
		return ports.LedgerAnchor{}, false, nil
	}
	s.newHeads = false
	s.prepared++
	a := ports.LedgerAnchor{ID: int64(len(s.rows) + 1), CreatedAt: now, Root: []byte{byte(len(s.rows) + 1)},
		ChainEnvironment: env, ChainID: chainID, Payload: []byte("anchor-" + string(rune('0'+len(s.rows)+1)))}
	s.rows = append(s.rows, a)
	return a, true, nil
}

func (s *store) update(id int64, f func(*ports.LedgerAnchor)) {
	for i := range s.rows {
		if s.rows[i].ID == id && !s.rows[i].Mined() {
			f(&s.rows[i])
		}
	}
}

func (s *store) RecordSent(_ context.Context, id int64, hash string) error {
	s.update(id, func(a *ports.LedgerAnchor) { a.TxHash = hash })
	return nil
}

func (s *store) ForgetSent(_ context.Context, id int64) error {
	s.update(id, func(a *ports.LedgerAnchor) { a.TxHash = "" })
	return nil
}

func (s *store) RecordMined(_ context.Context, id int64, hash string, block uint64, now time.Time) error {
	s.update(id, func(a *ports.LedgerAnchor) { a.TxHash, a.BlockNumber, a.MinedAt = hash, block, now })
	return nil
}

func (s *store) SentPayload(_ context.Context, _ int64, payload []byte) (string, bool, error) {
	h, ok := s.sentLog[string(payload)]
	return h, ok, nil
}

// chain answers receipts from a table; a hash it has no entry for is pending. sendErr fails
// the next send; every send is logged in the store's relayer log, as the relayer does.
type chain struct {
	store    *store
	sent     []common.Hash
	sendErr  error
	receipts map[common.Hash]ports.Receipt
	pending  map[common.Hash]int // receipts still pending before the one in receipts
}

func (c *chain) ChainID() int64 { return testChainID }

func (c *chain) SendAnchor(_ context.Context, id int64, payload []byte) (common.Hash, error) {
	if err := c.sendErr; err != nil {
		c.sendErr = nil
		return common.Hash{}, err
	}
	hash := common.BigToHash(big.NewInt(int64(len(c.sent))*1000 + id))
	c.sent = append(c.sent, hash)
	c.store.sentLog[string(payload)] = hash.Hex()
	return hash, nil
}

func (c *chain) Receipt(_ context.Context, hash common.Hash) (ports.Receipt, error) {
	if c.pending[hash] > 0 {
		c.pending[hash]--
		return ports.Receipt{TxHash: hash, Status: ports.TxPending}, nil
	}
	if r, ok := c.receipts[hash]; ok {
		return r, nil
	}
	return ports.Receipt{TxHash: hash, Status: ports.TxSucceeded, BlockNumber: 7}, nil
}

func newPass(t *testing.T) (*anchors.Service, *store, *chain) {
	t.Helper()
	s := &store{newHeads: true, sentLog: map[string]string{}}
	c := &chain{store: s, receipts: map[common.Hash]ports.Receipt{}, pending: map[common.Hash]int{}}
	return anchors.New(s, c, core.EnvTest, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil))), s, c
}

// With no open anchor the pass records one over the heads, sends it, waits through a pending
// receipt and records the mined transaction and block.
func TestPass_NoOpenAnchor_SendsOneAndRecordsIt(t *testing.T) {
	pass, s, c := newPass(t)
	c.pending[common.BigToHash(common.Big1)] = 2 // first send: id 1, hash 1
	a, err := pass.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.sent) != 1 || s.prepared != 1 {
		t.Fatalf("sent %d, prepared %d: want one of each", len(c.sent), s.prepared)
	}
	want := "0x" + strings.TrimPrefix(c.sent[0].Hex(), "0x")
	if a.ID != 1 || a.TxHash != want || a.BlockNumber != 7 || !a.Mined() {
		t.Fatalf("closed anchor %+v: want id 1, tx %s, block 7, mined", a, want)
	}
	if row := s.rows[0]; row.TxHash != want || row.BlockNumber != 7 || !row.Mined() || row.ChainEnvironment != "TEST" || row.ChainID != testChainID {
		t.Fatalf("recorded row %+v", row)
	}
}

// A pass with no transfer linked since the last anchor anchors nothing and sends nothing.
func TestPass_NothingNew_AnchorsNothing(t *testing.T) {
	pass, s, c := newPass(t)
	s.newHeads = false
	a, err := pass.Pass(context.Background())
	if err != nil || a.ID != 0 || len(c.sent) != 0 || len(s.rows) != 0 {
		t.Fatalf("anchor %+v, err %v, sent %d, rows %d: want nothing", a, err, len(c.sent), len(s.rows))
	}
}

// An anchor left open with its transaction recorded is finished from its mined receipt
// (a fee-bumped replacement's hash is the one recorded), with no new send.
func TestPass_OpenAnchorWithMinedReceipt_RecordsIt(t *testing.T) {
	pass, s, c := newPass(t)
	s.newHeads = false
	sent, replaced := common.HexToHash("0xAB"), common.HexToHash("0xCD")
	s.rows = []ports.LedgerAnchor{{ID: 4, ChainID: testChainID, Payload: []byte("p"), TxHash: sent.Hex()}}
	c.receipts[sent] = ports.Receipt{TxHash: replaced, Status: ports.TxSucceeded, BlockNumber: 12}
	a, err := pass.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := "0x" + strings.ToLower(strings.TrimPrefix(replaced.Hex(), "0x"))
	if len(c.sent) != 0 || a.TxHash != want || s.rows[0].TxHash != want || s.rows[0].BlockNumber != 12 || !s.rows[0].Mined() {
		t.Fatalf("sent %d, anchor %+v, row %+v: want the replacement recorded, nothing sent", len(c.sent), a, s.rows[0])
	}
}

// A send that fails leaves the anchor open with no transaction; the next pass sends it and
// records it, without preparing a second anchor.
func TestPass_SendFailure_LeavesItForTheNextPass(t *testing.T) {
	pass, s, c := newPass(t)
	c.sendErr = errors.New("node unreachable")
	if _, err := pass.Pass(context.Background()); err == nil || !strings.Contains(err.Error(), "node unreachable") {
		t.Fatalf("err %v: want the send's failure", err)
	}
	if open := s.rows[0]; open.TxHash != "" || open.Mined() {
		t.Fatalf("after a failed send the row is %+v: want open, no transaction", open)
	}
	a, err := pass.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.prepared != 1 || len(c.sent) != 1 || a.ID != 1 || !s.rows[0].Mined() {
		t.Fatalf("prepared %d, sent %d, anchor %+v: want the same anchor sent once and mined", s.prepared, len(c.sent), a)
	}
}

// A transaction that failed on chain is forgotten; the next pass sends the anchor again (the
// failed one in the relayer's log is not taken for it).
func TestPass_FailedOnChain_SentAgainNextPass(t *testing.T) {
	pass, s, c := newPass(t)
	first := common.BigToHash(common.Big1)
	c.receipts[first] = ports.Receipt{TxHash: first, Status: ports.TxFailed, FailureReason: "out of gas"}
	if _, err := pass.Pass(context.Background()); err == nil || !strings.Contains(err.Error(), "out of gas") {
		t.Fatalf("err %v: want the failed transaction", err)
	}
	if s.rows[0].TxHash != "" {
		t.Fatalf("the failed transaction is still recorded: %+v", s.rows[0])
	}
	if _, err := pass.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(c.sent) != 2 || !s.rows[0].Mined() || s.rows[0].TxHash == first.Hex() {
		t.Fatalf("sent %d, row %+v: want a second send, mined", len(c.sent), s.rows[0])
	}
}

// After a crash between the send and its record, the pass finds the transaction in the
// relayer's log by its payload and records it instead of sending again.
func TestPass_SentButNotRecorded_FoundByPayload(t *testing.T) {
	pass, s, c := newPass(t)
	s.newHeads = false
	s.rows = []ports.LedgerAnchor{{ID: 2, ChainID: testChainID, Payload: []byte("p")}}
	s.sentLog["p"] = "0x00000000000000000000000000000000000000000000000000000000000000EF"
	a, err := pass.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.sent) != 0 || a.TxHash != "0x00000000000000000000000000000000000000000000000000000000000000ef" || !s.rows[0].Mined() {
		t.Fatalf("sent %d, anchor %+v: want the logged transaction recorded, nothing sent", len(c.sent), a)
	}
}

// An open anchor for another chain is refused, untouched.
func TestPass_AnchorForAnotherChain_Refused(t *testing.T) {
	pass, s, c := newPass(t)
	s.rows = []ports.LedgerAnchor{{ID: 3, ChainID: 1, Payload: []byte("p")}}
	if _, err := pass.Pass(context.Background()); err == nil || !strings.Contains(err.Error(), "is for chain 1") {
		t.Fatalf("err %v: want the chain mismatch", err)
	}
	if len(c.sent) != 0 || s.rows[0].TxHash != "" || s.prepared != 0 {
		t.Fatalf("sent %d, row %+v: want nothing done", len(c.sent), s.rows[0])
	}
}

// The job keeps its kind and runs on start and every interval; a negative interval schedules none.
func TestJobs_KindAndSchedule(t *testing.T) {
	if kind := (anchors.LedgerAnchorArgs{}).Kind(); kind != "ledger.anchor" {
		t.Fatalf("kind %q", kind)
	}
	pass, _, _ := newPass(t)
	if n := len(pass.PeriodicJobs()); n != 1 {
		t.Fatalf("%d periodic jobs: want 1", n)
	}
	s := &store{sentLog: map[string]string{}}
	off := anchors.New(s, &chain{store: s}, core.EnvTest, -1, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n := len(off.PeriodicJobs()); n != 0 {
		t.Fatalf("%d periodic jobs with a negative interval: want none", n)
	}
}

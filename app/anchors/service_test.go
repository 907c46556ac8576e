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
	"github.com/corridorhq/corridor/ports/fake"
)

const testChainID = 31337

// chain answers receipts from a table; a hash it has no entry for is pending. sendErr fails
// the next send; every send is logged in the store's relayer log, as the relayer does.
type chain struct {
	store    *fake.LedgerAnchors
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
	c.store.LogSent(testChainID, payload, hash.Hex())
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

// newPass returns a pass over a fake store told of one linked transfer, so it has something
// to anchor; tests that want nothing new use newIdlePass.
func newPass(t *testing.T) (*anchors.Service, *fake.LedgerAnchors, *chain) {
	t.Helper()
	pass, s, c := newIdlePass(t)
	s.Advance()
	return pass, s, c
}

func newIdlePass(t *testing.T) (*anchors.Service, *fake.LedgerAnchors, *chain) {
	t.Helper()
	s := fake.NewLedgerAnchors()
	c := &chain{store: s, receipts: map[common.Hash]ports.Receipt{}, pending: map[common.Hash]int{}}
	return anchors.New(s, c, core.EnvTest, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil))), s, c
}

// seed leaves an open anchor for chainID in s, as an earlier pass cut short would.
func seed(t *testing.T, s *fake.LedgerAnchors, chainID int64) ports.LedgerAnchor {
	t.Helper()
	s.Advance()
	a, ok, err := s.Prepare(context.Background(), time.Now(), "TEST", chainID)
	if err != nil || !ok {
		t.Fatalf("seeding an anchor: %v, %v", ok, err)
	}
	return a
}

// only returns the one anchor s holds, failing on any other count.
func only(t *testing.T, s *fake.LedgerAnchors) ports.LedgerAnchor {
	t.Helper()
	rows := s.Anchors()
	if len(rows) != 1 {
		t.Fatalf("%d anchors recorded: want one", len(rows))
	}
	return rows[0]
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
	row := only(t, s)
	if len(c.sent) != 1 {
		t.Fatalf("sent %d: want one", len(c.sent))
	}
	want := "0x" + strings.TrimPrefix(c.sent[0].Hex(), "0x")
	if a.ID != 1 || a.TxHash != want || a.BlockNumber != 7 || !a.Mined() {
		t.Fatalf("closed anchor %+v: want id 1, tx %s, block 7, mined", a, want)
	}
	if row.TxHash != want || row.BlockNumber != 7 || !row.Mined() || row.ChainEnvironment != "TEST" || row.ChainID != testChainID {
		t.Fatalf("recorded row %+v", row)
	}
}

// A pass with no transfer linked since the last anchor anchors nothing and sends nothing.
func TestPass_NothingNew_AnchorsNothing(t *testing.T) {
	pass, s, c := newIdlePass(t)
	a, err := pass.Pass(context.Background())
	if err != nil || a.ID != 0 || len(c.sent) != 0 || len(s.Anchors()) != 0 {
		t.Fatalf("anchor %+v, err %v, sent %d, rows %d: want nothing", a, err, len(c.sent), len(s.Anchors()))
	}
}

// An anchor left open with its transaction recorded is finished from its mined receipt
// (a fee-bumped replacement's hash is the one recorded), with no new send.
func TestPass_OpenAnchorWithMinedReceipt_RecordsIt(t *testing.T) {
	pass, s, c := newIdlePass(t)
	sent, replaced := common.HexToHash("0xAB"), common.HexToHash("0xCD")
	open := seed(t, s, testChainID)
	if err := s.RecordSent(context.Background(), open.ID, sent.Hex()); err != nil {
		t.Fatal(err)
	}
	c.receipts[sent] = ports.Receipt{TxHash: replaced, Status: ports.TxSucceeded, BlockNumber: 12}
	a, err := pass.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := "0x" + strings.ToLower(strings.TrimPrefix(replaced.Hex(), "0x"))
	row := only(t, s)
	if len(c.sent) != 0 || a.TxHash != want || row.TxHash != want || row.BlockNumber != 12 || !row.Mined() {
		t.Fatalf("sent %d, anchor %+v, row %+v: want the replacement recorded, nothing sent", len(c.sent), a, row)
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
	if open := only(t, s); open.TxHash != "" || open.Mined() {
		t.Fatalf("after a failed send the row is %+v: want open, no transaction", open)
	}
	s.Advance() // a transfer linked meanwhile does not make a second anchor while one is open
	a, err := pass.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if row := only(t, s); len(c.sent) != 1 || a.ID != 1 || !row.Mined() {
		t.Fatalf("sent %d, anchor %+v: want the same anchor sent once and mined", len(c.sent), a)
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
	if row := only(t, s); row.TxHash != "" {
		t.Fatalf("the failed transaction is still recorded: %+v", row)
	}
	if _, err := pass.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if row := only(t, s); len(c.sent) != 2 || !row.Mined() || row.TxHash == first.Hex() {
		t.Fatalf("sent %d, row %+v: want a second send, mined", len(c.sent), row)
	}
}

// After a crash between the send and its record, the pass finds the transaction in the
// relayer's log by its payload and records it instead of sending again.
func TestPass_SentButNotRecorded_FoundByPayload(t *testing.T) {
	pass, s, c := newIdlePass(t)
	open := seed(t, s, testChainID)
	s.LogSent(testChainID, open.Payload, "0x00000000000000000000000000000000000000000000000000000000000000EF")
	a, err := pass.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.sent) != 0 || a.TxHash != "0x00000000000000000000000000000000000000000000000000000000000000ef" || !only(t, s).Mined() {
		t.Fatalf("sent %d, anchor %+v: want the logged transaction recorded, nothing sent", len(c.sent), a)
	}
}

// An open anchor for another chain is refused, untouched.
func TestPass_AnchorForAnotherChain_Refused(t *testing.T) {
	pass, s, c := newIdlePass(t)
	seed(t, s, 1)
	s.Advance()
	if _, err := pass.Pass(context.Background()); err == nil || !strings.Contains(err.Error(), "is for chain 1") {
		t.Fatalf("err %v: want the chain mismatch", err)
	}
	if row := only(t, s); len(c.sent) != 0 || row.TxHash != "" || row.Mined() {
		t.Fatalf("sent %d, row %+v: want nothing done", len(c.sent), row)
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
	s := fake.NewLedgerAnchors()
	off := anchors.New(s, &chain{store: s}, core.EnvTest, -1, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n := len(off.PeriodicJobs()); n != 0 {
		t.Fatalf("%d periodic jobs with a negative interval: want none", n)
	}
}

package portstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/corridorhq/corridor/ports"
)

// AnchorWorld is a ledger anchor store with the hooks its suite drives it through: the store
// anchors the ledger's chain heads and reads the relayer's log, which the suite cannot reach
// through the port, so each implementation says how a transfer is linked and a send logged.
type AnchorWorld struct {
	Store ports.LedgerAnchorStore
	// Advance links a new transfer into the ledger, so the next Prepare has something to anchor.
	Advance func(t *testing.T)
	// LogSent records a relayer transaction sent with payload on chainID. Calls are newest last.
	LogSent func(t *testing.T, chainID int64, payload []byte, txHash string)
}

const anchorChainID = 31337

// LedgerAnchorStore runs the ledger anchor store's contract. newWorld may return the same
// store every time (one database): each case first closes whatever earlier cases left open.
func LedgerAnchorStore(t *testing.T, newWorld func(t *testing.T) AnchorWorld) {
	t.Run("NothingNewAnchorsNothing", func(t *testing.T) { anchorNothingNew(t, newWorld(t)) })
	t.Run("PrepareRecordsOneOpenAnchor", func(t *testing.T) { anchorPrepare(t, newWorld(t)) })
	t.Run("SentForgottenAndMined", func(t *testing.T) { anchorLifecycle(t, newWorld(t)) })
	t.Run("StepsChangeOnlyTheOpenAnchor", func(t *testing.T) { anchorClosedUntouched(t, newWorld(t)) })
	t.Run("SentPayloadFindsTheNewest", func(t *testing.T) { anchorSentPayload(t, newWorld(t)) })
}

func anchorNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// settle closes an open anchor and anchors (and closes) anything new, leaving nothing new and
// nothing open.
func settle(t *testing.T, s ports.LedgerAnchorStore) {
	t.Helper()
	ctx := context.Background()
	for range 2 {
		if a, ok, err := s.Open(ctx); err != nil {
			t.Fatal(err)
		} else if ok {
			mustDo(t, s.RecordMined(ctx, a.ID, anchorHash(), 1, anchorNow()))
		}
		if _, _, err := s.Prepare(ctx, anchorNow(), "TEST", anchorChainID); err != nil {
			t.Fatal(err)
		}
	}
	if a, ok, err := s.Open(ctx); err != nil || ok {
		t.Fatalf("open anchor %+v (err %v) after settling: want none", a, err)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// anchorHash is a fresh transaction hash, so one database may serve every case.
func anchorHash() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "0x" + hex.EncodeToString(b)
}

// mustOpen returns the open anchor, failing when there is none.
func mustOpen(t *testing.T, s ports.LedgerAnchorStore) ports.LedgerAnchor {
	t.Helper()
	a, ok, err := s.Open(context.Background())
	if err != nil || !ok {
		t.Fatalf("open anchor: found %v, err %v: want one", ok, err)
	}
	return a
}

// mustPrepare links a transfer and prepares an anchor over it.
func mustPrepare(t *testing.T, w AnchorWorld) ports.LedgerAnchor {
	t.Helper()
	w.Advance(t)
	a, ok, err := w.Store.Prepare(context.Background(), anchorNow(), "TEST", anchorChainID)
	if err != nil || !ok {
		t.Fatalf("prepare after a linked transfer: %v, err %v: want an anchor", ok, err)
	}
	return a
}

// With no transfer linked since the last anchor, Prepare records nothing.
func anchorNothingNew(t *testing.T, w AnchorWorld) {
	settle(t, w.Store)
	a, ok, err := w.Store.Prepare(context.Background(), anchorNow(), "TEST", anchorChainID)
	if err != nil || ok {
		t.Fatalf("prepare with nothing new: %+v, %v, err %v: want nothing", a, ok, err)
	}
	if _, open, err := w.Store.Open(context.Background()); err != nil || open {
		t.Fatalf("open %v, err %v: want no anchor", open, err)
	}
}

// Prepare records an unsent anchor over the heads that moved, for the chain asked; Open
// returns it, and no second anchor is prepared while it is open, even with new transfers.
func anchorPrepare(t *testing.T, w AnchorWorld) {
	settle(t, w.Store)
	now := anchorNow()
	w.Advance(t)
	a, ok, err := w.Store.Prepare(context.Background(), now, "TEST", anchorChainID)
	if err != nil || !ok {
		t.Fatalf("prepare: %v, err %v: want an anchor", ok, err)
	}
	if a.ID == 0 || len(a.Root) == 0 || len(a.Payload) == 0 || len(a.Heads) == 0 || a.ChainEnvironment != "TEST" ||
		a.ChainID != anchorChainID || a.TxHash != "" || a.BlockNumber != 0 || a.Mined() || !a.CreatedAt.Equal(now) {
		t.Fatalf("prepared %+v: want an unsent anchor with root, payload and heads for TEST/%d", a, anchorChainID)
	}
	if !anyHeadMoved(a.Heads) {
		t.Fatalf("heads %+v: want one covering the linked transfer", a.Heads)
	}
	open := mustOpen(t, w.Store)
	if open.ID != a.ID || string(open.Payload) != string(a.Payload) || string(open.Root) != string(a.Root) {
		t.Fatalf("open %+v: want the prepared %+v", open, a)
	}
	w.Advance(t)
	if b, ok, err := w.Store.Prepare(context.Background(), anchorNow(), "TEST", anchorChainID); err != nil || ok {
		t.Fatalf("second prepare while one is open: %+v, %v, err %v: want nothing", b, ok, err)
	}
}

// anyHeadMoved reports whether a head covers a range of new transfers.
func anyHeadMoved(heads []ports.AnchorHead) bool {
	for _, h := range heads {
		if h.Position >= h.FromPosition && h.FromPosition > 0 && h.FirstSequence > 0 && h.LastSequence >= h.FirstSequence {
			return true
		}
	}
	return false
}

// RecordSent stores the transaction, ForgetSent clears it, RecordMined closes the anchor with
// the mined hash; the next anchor's heads start where this one's ended.
func anchorLifecycle(t *testing.T, w AnchorWorld) {
	ctx := context.Background()
	settle(t, w.Store)
	a := mustPrepare(t, w)
	sent := anchorHash()
	mustDo(t, w.Store.RecordSent(ctx, a.ID, sent))
	if got := mustOpen(t, w.Store); got.ID != a.ID || got.TxHash != sent {
		t.Fatalf("after RecordSent %+v: want tx %s", got, sent)
	}
	mustDo(t, w.Store.ForgetSent(ctx, a.ID))
	if got := mustOpen(t, w.Store); got.TxHash != "" || got.Mined() {
		t.Fatalf("after ForgetSent %+v: want open, no transaction", got)
	}
	mustDo(t, w.Store.RecordSent(ctx, a.ID, sent))
	mustDo(t, w.Store.RecordMined(ctx, a.ID, anchorHash(), 9, anchorNow()))
	if got, ok, err := w.Store.Open(ctx); err != nil || ok {
		t.Fatalf("after RecordMined open %+v (%v, err %v): want none", got, ok, err)
	}
	next := mustPrepare(t, w)
	if next.ID <= a.ID {
		t.Fatalf("next anchor id %d after %d: want a new, later one", next.ID, a.ID)
	}
	assertContinues(t, a.Heads, next.Heads)
}

// assertContinues checks each head of next starts right after the same chain's head in prev.
func assertContinues(t *testing.T, prev, next []ports.AnchorHead) {
	t.Helper()
	ended := map[[2]any]int64{}
	for _, h := range prev {
		ended[[2]any{h.Environment, h.Stripe}] = h.Position
	}
	for _, h := range next {
		if end, ok := ended[[2]any{h.Environment, h.Stripe}]; ok && h.FromPosition != end+1 {
			t.Fatalf("head %+v: want it to start at %d, after the previous anchor", h, end+1)
		}
	}
}

// A step on an anchor already mined changes nothing: the open anchor keeps its state.
func anchorClosedUntouched(t *testing.T, w AnchorWorld) {
	ctx := context.Background()
	settle(t, w.Store)
	closed := mustPrepare(t, w)
	mustDo(t, w.Store.RecordMined(ctx, closed.ID, anchorHash(), 3, anchorNow()))
	open := mustPrepare(t, w)
	mustDo(t, w.Store.RecordSent(ctx, closed.ID, anchorHash()))
	mustDo(t, w.Store.ForgetSent(ctx, closed.ID))
	mustDo(t, w.Store.RecordMined(ctx, closed.ID, anchorHash(), 4, anchorNow()))
	if got := mustOpen(t, w.Store); got.ID != open.ID || got.TxHash != "" || got.Mined() {
		t.Fatalf("open %+v: want anchor %d untouched by steps on mined %d", got, open.ID, closed.ID)
	}
}

// SentPayload finds the newest transaction sent with the payload on the chain, and nothing for
// another payload or another chain.
func anchorSentPayload(t *testing.T, w AnchorWorld) {
	ctx := context.Background()
	payload := []byte("anchor-contract:" + anchorHash())
	if h, ok, err := w.Store.SentPayload(ctx, anchorChainID, payload); err != nil || ok {
		t.Fatalf("unsent payload: %q, %v, err %v: want nothing", h, ok, err)
	}
	older, newer := anchorHash(), anchorHash()
	w.LogSent(t, anchorChainID, payload, older)
	w.LogSent(t, anchorChainID, payload, newer)
	w.LogSent(t, anchorChainID, []byte("other:"+anchorHash()), anchorHash())
	if h, ok, err := w.Store.SentPayload(ctx, anchorChainID, payload); err != nil || !ok || h != newer {
		t.Fatalf("sent payload: %q, %v, err %v: want the newest, %s", h, ok, err, newer)
	}
	if h, ok, err := w.Store.SentPayload(ctx, anchorChainID+1, payload); err != nil || ok {
		t.Fatalf("payload on another chain: %q, %v, err %v: want nothing", h, ok, err)
	}
}

// PostTransfer links a new transfer into s's ledger: a fresh tenant funded from the world.
// Adapters' anchor worlds use it as their Advance hook.
func PostTransfer(t *testing.T, s ports.Store) { fundedTenant(t, s, 100) }

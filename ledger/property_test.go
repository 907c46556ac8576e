package ledger

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/corridorhq/corridor/core"
)

// model is the test's own idea of the ledger, in plain maps and without any ledger code: the
// Book must agree with it after every step.
type model struct {
	accounts []string
	nonNeg   map[string]bool
	balances map[string]*Balance
	holds    map[string]*modelHold
	moves    map[string]*modelMove
	holdIDs  []string // in creation order, for drawing
	moveIDs  []string
	accepted []acceptedSpec
	now      time.Time
}

type modelHold struct {
	from, to  string
	amount    int64
	expiresAt time.Time
	status    TransferStatus
}

type modelMove struct {
	legs     map[string]int64
	reversed bool
	reversal bool // a REVERSAL itself, which cannot be reversed
}

type acceptedSpec struct {
	spec     TransferSpec
	transfer Transfer
}

func (m *model) available(id string) int64 {
	return m.balances[id].Posted - m.balances[id].PendingDebits
}

// machine drives a Book and the model with the same random operations.
type machine struct {
	book  *Book
	model *model
	seq   int
}

func newMachine(t *rapid.T) *machine {
	book := NewBook()
	m := &model{nonNeg: map[string]bool{}, balances: map[string]*Balance{}, holds: map[string]*modelHold{},
		moves: map[string]*modelMove{}, now: t0.Truncate(time.Second)}
	world, err := book.OpenAccount(core.NewID(core.PrefixAccount), World(core.EnvTest, AssetUSDC, "bank"), t0)
	if err != nil {
		t.Fatal(err)
	}
	m.add(world)
	for i := 0; i < rapid.IntRange(2, 4).Draw(t, "tenants"); i++ {
		spec := TenantAvailable(core.EnvTest, AssetUSDC, "ten_"+strconv.Itoa(i))
		spec.NonNegative = rapid.Bool().Draw(t, "nonNegative")
		a, err := book.OpenAccount(core.NewID(core.PrefixAccount), spec, t0)
		if err != nil {
			t.Fatal(err)
		}
		m.add(a)
	}
	return &machine{book: book, model: m}
}

func (m *model) add(a Account) {
	m.accounts = append(m.accounts, a.ID)
	m.nonNeg[a.ID] = a.NonNegative
	m.balances[a.ID] = &Balance{}
}

func (s *machine) reference() string {
	s.seq++
	return "op:" + strconv.Itoa(s.seq)
}

func drawAmount(t *rapid.T) int64 {
	return rapid.OneOf(rapid.Int64Range(1, 50), rapid.Int64Range(1, 1_000_000)).Draw(t, "amount")
}

func (s *machine) drawPair(t *rapid.T) (string, string) {
	from := rapid.SampledFrom(s.model.accounts).Draw(t, "from")
	to := rapid.SampledFrom(s.model.accounts).Filter(func(id string) bool { return id != from }).Draw(t, "to")
	return from, to
}

// wouldOverdraw applies the legs to the model's Available (after adding the given pending debits)
// and reports whether a NonNegative account ends below zero having lost availability.
func (m *model) wouldOverdraw(postedLegs, pendingDebitLegs map[string]int64) bool {
	for _, id := range m.accounts {
		before := m.available(id)
		after := before + postedLegs[id] - pendingDebitLegs[id]
		if m.nonNeg[id] && after < 0 && after < before {
			return true
		}
	}
	return false
}

// do sends spec to the Book and checks the outcome against wantCode, and that a refusal left
// every balance and the chain as they were.
func (s *machine) do(t *rapid.T, spec TransferSpec, wantCode core.Code) (Transfer, bool) {
	before, chain := s.book.Balances(), len(s.book.Chain())
	tr, replayed, err := s.book.Post(spec, core.NewID(core.PrefixTransfer), s.model.now)
	if got := codeOf(t, err); got != wantCode {
		t.Fatalf("%s %s: code %q, want %q (err %v)", spec.Type, spec.Reference, got, wantCode, err)
	}
	if err != nil || replayed {
		if !reflect.DeepEqual(s.book.Balances(), before) || len(s.book.Chain()) != chain {
			t.Fatalf("%s %s: refused or replayed, yet the book changed", spec.Type, spec.Reference)
		}
		return tr, false
	}
	s.model.accepted = append(s.model.accepted, acceptedSpec{spec: spec, transfer: tr})
	return tr, true
}

func (s *machine) posted(t *rapid.T) {
	from, to := s.drawPair(t)
	amount := drawAmount(t)
	legs := map[string]int64{from: -amount, to: amount}
	postings := Move(from, to, amount)
	if rapid.Bool().Draw(t, "withFee") {
		fee := rapid.SampledFrom(s.model.accounts).Filter(func(id string) bool { return id != from && id != to }).Draw(t, "feeAccount")
		cut := rapid.Int64Range(1, amount).Draw(t, "fee")
		if cut < amount {
			legs[to], legs[fee] = amount-cut, cut
			postings = []Posting{{from, -amount}, {to, amount - cut}, {fee, cut}}
		}
	}
	want := core.Code("")
	if s.model.wouldOverdraw(legs, nil) {
		want = core.CodeInsufficientFunds
	}
	tr, ok := s.do(t, postedSpec(s.reference(), postings...), want)
	if !ok {
		return
	}
	for id, v := range legs {
		s.model.balances[id].Posted += v
	}
	s.model.moves[tr.ID] = &modelMove{legs: legs}
	s.model.moveIDs = append(s.model.moveIDs, tr.ID)
}

func (s *machine) hold(t *rapid.T) {
	from, to := s.drawPair(t)
	amount := drawAmount(t)
	var expiresAt time.Time
	if rapid.Bool().Draw(t, "expires") {
		expiresAt = s.model.now.Add(time.Duration(rapid.IntRange(1, 120).Draw(t, "lifetimeSeconds")) * time.Second)
	}
	want := core.Code("")
	if s.model.wouldOverdraw(nil, map[string]int64{from: amount}) {
		want = core.CodeInsufficientFunds
	}
	tr, ok := s.do(t, pendingSpec(s.reference(), from, to, amount, expiresAt), want)
	if !ok {
		return
	}
	s.model.balances[from].PendingDebits += amount
	s.model.balances[to].PendingCredits += amount
	s.model.holds[tr.ID] = &modelHold{from: from, to: to, amount: amount, expiresAt: expiresAt, status: StatusPending}
	s.model.holdIDs = append(s.model.holdIDs, tr.ID)
}

func (s *machine) post(t *rapid.T) {
	if len(s.model.holdIDs) == 0 {
		t.Skip("no hold yet")
	}
	id := rapid.SampledFrom(s.model.holdIDs).Draw(t, "hold")
	h := s.model.holds[id]
	amount := rapid.OneOf(rapid.Just(h.amount), rapid.Int64Range(1, h.amount+2)).Draw(t, "postAmount")
	want := core.Code("")
	switch {
	case h.status != StatusPending:
		want = core.CodeInvalidState
	case !h.expiresAt.IsZero() && !s.model.now.Before(h.expiresAt):
		want = core.CodeInvalidState
	case amount > h.amount:
		want = core.CodeValidationFailed
	}
	tr, ok := s.do(t, postSpec(s.reference(), id, amount), want)
	if !ok {
		return
	}
	s.model.release(h)
	s.model.balances[h.from].Posted -= amount
	s.model.balances[h.to].Posted += amount
	h.status = StatusPosted
	s.model.moves[tr.ID] = &modelMove{legs: map[string]int64{h.from: -amount, h.to: amount}}
	s.model.moveIDs = append(s.model.moveIDs, tr.ID)
}

func (m *model) release(h *modelHold) {
	m.balances[h.from].PendingDebits -= h.amount
	m.balances[h.to].PendingCredits -= h.amount
}

func (s *machine) void(t *rapid.T) {
	if len(s.model.holdIDs) == 0 {
		t.Skip("no hold yet")
	}
	id := rapid.SampledFrom(s.model.holdIDs).Draw(t, "hold")
	h := s.model.holds[id]
	want := core.Code("")
	if h.status != StatusPending {
		want = core.CodeInvalidState
	}
	if _, ok := s.do(t, voidSpec(s.reference(), id), want); ok {
		s.model.release(h)
		h.status = StatusVoided
	}
}

func (s *machine) reverse(t *rapid.T) {
	if len(s.model.moveIDs) == 0 {
		t.Skip("nothing posted yet")
	}
	id := rapid.SampledFrom(s.model.moveIDs).Draw(t, "move")
	mv := s.model.moves[id]
	negated := map[string]int64{}
	for acc, v := range mv.legs {
		negated[acc] = -v
	}
	want := core.Code("")
	switch {
	case mv.reversed || mv.reversal:
		want = core.CodeInvalidState
	case s.model.wouldOverdraw(negated, nil):
		want = core.CodeInsufficientFunds
	}
	tr, ok := s.do(t, reversalSpec(s.reference(), id), want)
	if !ok {
		return
	}
	for acc, v := range negated {
		s.model.balances[acc].Posted += v
	}
	mv.reversed = true
	s.model.moves[tr.ID] = &modelMove{legs: negated, reversal: true}
	s.model.moveIDs = append(s.model.moveIDs, tr.ID)
}

func (s *machine) reverseHold(t *rapid.T) {
	if len(s.model.holdIDs) == 0 {
		t.Skip("no hold yet")
	}
	id := rapid.SampledFrom(s.model.holdIDs).Draw(t, "hold")
	s.do(t, reversalSpec(s.reference(), id), core.CodeInvalidState)
}

func (s *machine) replay(t *rapid.T) {
	if len(s.model.accepted) == 0 {
		t.Skip("nothing accepted yet")
	}
	a := rapid.SampledFrom(s.model.accepted).Draw(t, "accepted")
	if got, _ := s.do(t, a.spec, ""); !reflect.DeepEqual(got, a.transfer) {
		t.Fatalf("replay of %s returned %+v, want %+v", a.spec.Reference, got, a.transfer)
	}
}

// conflict resends a recorded reference with other content: a post of another amount, or a
// POSTED move of an amount no recorded transfer uses (drawAmount stays below it).
func (s *machine) conflict(t *rapid.T) {
	if len(s.model.accepted) == 0 {
		t.Skip("nothing accepted yet")
	}
	spec := rapid.SampledFrom(s.model.accepted).Draw(t, "accepted").spec
	if spec.Type == TypePostPending {
		spec.Amount++
	} else {
		spec = postedSpec(spec.Reference, Move(s.model.accounts[0], s.model.accounts[1], 7_777_777)...)
	}
	s.do(t, spec, core.CodeLedgerReferenceConflict)
}

func (s *machine) tick(t *rapid.T) {
	s.model.now = s.model.now.Add(time.Duration(rapid.IntRange(0, 90).Draw(t, "seconds")) * time.Second)
}

// check holds after every step: the Book equals the model, the trial balance is zero per
// asset, no NonNegative account is overdrawn, holds are in the model's states, and the whole
// stored ledger audits clean against its own history and hash chain.
func (s *machine) check(t *rapid.T) {
	got := s.book.Balances()
	for _, id := range s.model.accounts {
		if want := *s.model.balances[id]; got[id] != want {
			t.Fatalf("account %s: book %+v, model %+v", id, got[id], want)
		}
		if s.model.nonNeg[id] && got[id].Available() < 0 {
			t.Fatalf("NonNegative account %s has Available %d", id, got[id].Available())
		}
	}
	lines, err := TrialBalance(s.book.Accounts(), got)
	if err != nil || len(lines) != 1 || !lines[0].Balanced() {
		t.Fatalf("trial balance %+v, %v", lines, err)
	}
	for id, h := range s.model.holds {
		if stored, _ := s.book.Transfer(id); stored.State.Status != h.status {
			t.Fatalf("hold %s: book %s, model %s", id, stored.State.Status, h.status)
		}
	}
	if problems := Audit(s.book.AuditInput()); len(problems) != 0 {
		t.Fatalf("audit: %+v", problems)
	}
}

func TestLedger_Properties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := newMachine(t)
		t.Repeat(map[string]func(*rapid.T){
			"posted":      s.posted,
			"hold":        s.hold,
			"post":        s.post,
			"void":        s.void,
			"reverse":     s.reverse,
			"reverseHold": s.reverseHold,
			"replay":      s.replay,
			"conflict":    s.conflict,
			"tick":        s.tick,
			"":            s.check,
		})
	})
}

// TestChain_TamperProperty changes one field of one transfer of a random chain and requires
// VerifyChain to name exactly that transfer.
func TestChain_TamperProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		entries := randomChain(t)
		i := rapid.IntRange(0, len(entries)-1).Draw(t, "index")
		field := rapid.SampledFrom(tamperableFields).Draw(t, "field")
		tampered := append([]ChainEntry(nil), entries...)
		tampered[i].Transfer = tamper(t, tampered[i].Transfer, field)
		if bytes.Equal(CanonicalBytes(tampered[i].Transfer), CanonicalBytes(entries[i].Transfer)) {
			t.Fatalf("tampering %s did not change the canonical bytes", field)
		}
		if got, ok := VerifyChain(nil, tampered); ok || got != i {
			t.Fatalf("tampered %s at %d, VerifyChain = %d, %v", field, i, got, ok)
		}
	})
}

var tamperableFields = []string{"id", "reference", "type", "environment", "asset", "pendingId", "reversedId",
	"amount", "expiresAt", "createdAt", "postingAccount", "postingAmount", "dropPosting", "addPosting",
	"metadataValue", "metadataKey", "addMetadata", "dropMetadata"}

// randomChain records a random mix of posted transfers and holds in a Book and returns its
// chain.
func randomChain(t *rapid.T) []ChainEntry {
	s := newMachine(t)
	world := s.model.accounts[0]
	n := rapid.IntRange(1, 12).Draw(t, "transfers")
	for i := 0; i < n; i++ {
		to := rapid.SampledFrom(s.model.accounts[1:]).Draw(t, "to")
		spec := postedSpec(s.reference(), Move(world, to, drawAmount(t))...)
		if rapid.Bool().Draw(t, "pending") {
			spec = pendingSpec(s.reference(), world, to, drawAmount(t), s.model.now.Add(time.Hour))
		}
		spec.Metadata = map[string]string{"n": strconv.Itoa(s.seq)}
		if _, _, err := s.book.Post(spec, core.NewID(core.PrefixTransfer), s.model.now); err != nil {
			t.Fatal(err)
		}
		s.model.now = s.model.now.Add(time.Second)
	}
	return s.book.Chain()
}

func tamper(t *rapid.T, tr Transfer, field string) Transfer {
	tr.Postings = append([]Posting(nil), tr.Postings...)
	tr.Metadata = copyMetadata(tr.Metadata)
	switch field {
	case "id":
		tr.ID = core.NewID(core.PrefixTransfer)
	case "reference":
		tr.Reference += "x"
	case "type":
		tr.Type = map[TransferType]TransferType{TypePosted: TypeReversal, TypePending: TypePosted}[tr.Type]
	case "environment":
		tr.Environment = core.EnvLive
	case "asset":
		tr.Asset = AssetUSD
	case "pendingId":
		tr.PendingID = core.NewID(core.PrefixTransfer)
	case "reversedId":
		tr.ReversedID = core.NewID(core.PrefixTransfer)
	case "amount":
		tr.Amount += rapid.Int64Range(1, 1000).Draw(t, "delta")
	case "expiresAt":
		tr.ExpiresAt = tr.CreatedAt.Add(time.Duration(rapid.IntRange(1, 1e6).Draw(t, "micros")) * time.Microsecond * 7)
	case "createdAt":
		tr.CreatedAt = tr.CreatedAt.Add(time.Duration(rapid.IntRange(1, 1e6).Draw(t, "micros")) * time.Microsecond)
	case "postingAccount":
		tr.Postings[rapid.IntRange(0, len(tr.Postings)-1).Draw(t, "leg")].AccountID = core.NewID(core.PrefixAccount)
	case "postingAmount":
		tr.Postings[rapid.IntRange(0, len(tr.Postings)-1).Draw(t, "leg")].Amount += rapid.Int64Range(1, 1000).Draw(t, "delta")
	case "dropPosting":
		tr.Postings = tr.Postings[1:]
	case "addPosting":
		tr.Postings = append(tr.Postings, Posting{core.NewID(core.PrefixAccount), 0})
	case "metadataValue":
		tr.Metadata["n"] += "x"
	case "metadataKey":
		tr.Metadata["m"] = tr.Metadata["n"]
		delete(tr.Metadata, "n")
	case "addMetadata":
		tr.Metadata[fmt.Sprintf("k%d", rapid.IntRange(0, 9).Draw(t, "key"))] = ""
	case "dropMetadata":
		tr.Metadata = nil
	}
	return tr
}

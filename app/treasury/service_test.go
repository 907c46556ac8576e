package treasury

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

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/safepay"
	"corridor/core/treasury"
	"corridor/ports"
)

// flakyChain is a test double of the Chain port: it knows some balances and fails to read
// the others, as a node that times out for one address would.
type flakyChain struct {
	ports.Chain // any other method panics: the code under test must not call it
	balances    map[common.Address]int64
}

func (c flakyChain) USDCBalance(_ context.Context, a common.Address) (*big.Int, error) {
	if v, ok := c.balances[a]; ok {
		return big.NewInt(v), nil
	}
	return nil, errors.New("read timed out")
}

// memoryStore runs units of work over one in-memory treasury repository.
type memoryStore struct{ repo *memoryTreasury }

func (s memoryStore) InTx(ctx context.Context, fn func(context.Context, ports.Tx) error) error {
	return fn(ctx, memoryTx{repo: s.repo})
}
func (memoryStore) Ping(context.Context) error { return nil }

type memoryTx struct {
	ports.Tx
	repo *memoryTreasury
}

func (t memoryTx) Treasury() ports.TreasuryRepo { return t.repo }
func (t memoryTx) Payments() ports.PaymentRepo  { return memoryPayments{repo: t.repo} }

// memoryPayments answers the status of the payment linked to the repository's sweep.
type memoryPayments struct {
	ports.PaymentRepo
	repo *memoryTreasury
}

func (p memoryPayments) FindPayment(_ context.Context, _ string, _ core.Environment, id string) (safepay.Payment, error) {
	return safepay.Payment{ID: id, Status: p.repo.paymentStatus}, nil
}

type memoryTreasury struct {
	ports.TreasuryRepo // CreateSweep and the rest panic: a skipped window proposes nothing
	account            treasury.Account
	rule               treasury.Rule
	sweep              *treasury.Sweep // the rule's latest sweep, nil when none
	paymentStatus      safepay.Status
}

func (m *memoryTreasury) FindAccount(context.Context, string, core.Environment, string) (treasury.Account, error) {
	return m.account, nil
}
func (m *memoryTreasury) LatestRuleSweep(context.Context, string) (treasury.Sweep, bool, error) {
	if m.sweep == nil {
		return treasury.Sweep{}, false, nil
	}
	return *m.sweep, true, nil
}
func (m *memoryTreasury) LockRule(context.Context, string) (treasury.Rule, error) { return m.rule, nil }
func (m *memoryTreasury) UpdateRule(_ context.Context, r treasury.Rule) error {
	m.rule = r
	return nil
}

// noPayments fails the test if a skipped window tries to propose a payment.
type noPayments struct{ t *testing.T }

func (p noPayments) ReadSweepPayment(context.Context, auth.Principal, safepay.Request) (PaymentRead, error) {
	p.t.Fatal("a window with an unreadable balance read a payment")
	return nil, nil
}
func (p noPayments) ProposeSweepPayment(context.Context, auth.Principal, PaymentRead) (safepay.Payment, error) {
	p.t.Fatal("a window with an unreadable balance proposed a payment")
	return safepay.Payment{}, nil
}

type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time { return c.now }

func threeBuckets() treasury.Account {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := treasury.Account{ID: "tra_1", TenantID: "ten_1", Environment: core.EnvTest, Name: "ops", CreatedAt: created}
	for i, target := range []int{5000, 3000, 2000} {
		a.Buckets = append(a.Buckets, treasury.Bucket{ID: "bkt_" + string(rune('a'+i)), AccountID: a.ID, WalletID: "wal_" + string(rune('a'+i)),
			Address: common.BigToAddress(big.NewInt(int64(i + 1))).Hex(), TargetBps: target, Position: i})
	}
	return a
}

// TestTreasury_UnreadableBucket: one bucket's balance cannot be read. Its balance is null (not
// zero), every drift is suppressed, the total is null, and a rule window that needs it is
// skipped and recorded, never evaluated against zero; a rule that needs only readable buckets
// still decides.
func TestTreasury_UnreadableBucket(t *testing.T) {
	a := threeBuckets()
	chain := flakyChain{balances: map[common.Address]int64{
		common.HexToAddress(a.Buckets[0].Address): 100_000000,
		common.HexToAddress(a.Buckets[1].Address): 0,
	}}
	threshold := int64(40_000000)
	rule := treasury.Rule{ID: "trl_1", AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment, Type: treasury.RuleSweepExcess,
		SourceBucketID: a.Buckets[2].ID, DestBucketID: a.Buckets[0].ID, Threshold: &threshold, IntervalSeconds: 3600, Enabled: true,
		CreatedAt: a.CreatedAt}
	repo := &memoryTreasury{account: a, rule: rule}
	now := a.CreatedAt.Add(2 * time.Hour)
	s := &Service{store: memoryStore{repo}, clock: fixedClock{now}, chains: kernel.Chains{core.EnvTest: chain},
		payments: noPayments{t}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := context.Background()

	view := treasury.BuildView(a, s.readBalances(ctx, a), nil)
	if view.Total != nil {
		t.Errorf("total %d, want null while a bucket is unreadable", *view.Total)
	}
	if b := view.Buckets[2].Balance; b != nil {
		t.Errorf("unreadable bucket balance %d, want null", *b)
	}
	if b := view.Buckets[1].Balance; b == nil || *b != 0 {
		t.Errorf("a readable empty bucket is zero, got %v", b)
	}
	if b := view.Buckets[0].Balance; b == nil || *b != 100_000000 {
		t.Errorf("readable bucket %v", b)
	}
	for i, b := range view.Buckets {
		if b.DriftBaseUnits != nil || b.DriftBps != nil {
			t.Errorf("bucket %d drift shown while another bucket is unreadable", i)
		}
	}

	// The runner's window: skipped and recorded, no proposal.
	got, err := s.runRule(ctx, rule)
	if err != nil || got != outcomeSkipped {
		t.Fatalf("runRule = %v, %v; want skipped", got, err)
	}
	if repo.rule.LastSkipReason != treasury.SkipUnreadable || repo.rule.LastSkippedAt == nil || !repo.rule.LastSkippedAt.Equal(now) ||
		repo.rule.LastEvaluatedAt == nil || repo.rule.LastFiredAt != nil {
		t.Fatalf("recorded rule: %+v", repo.rule)
	}
	// The window is closed: the same instant does not evaluate again.
	if got, err := s.runRule(ctx, repo.rule); err != nil || got != outcomeNotDue {
		t.Fatalf("second run in the same window = %v, %v", got, err)
	}

	// REBALANCE_TO_TARGET needs every bucket: skipped too.
	rebalance := treasury.Rule{Type: treasury.RuleRebalanceToTarget}
	if d := s.evaluate(ctx, rebalance, a); d.Skip != treasury.SkipUnreadable {
		t.Errorf("rebalance with an unreadable bucket: %+v", d)
	}
	// A rule between readable buckets still decides.
	readable := rule
	readable.SourceBucketID, readable.DestBucketID = a.Buckets[0].ID, a.Buckets[1].ID
	if d := s.evaluate(ctx, readable, a); d.Skip != "" || d.Amount != 60_000000 {
		t.Errorf("rule between readable buckets: %+v", d)
	}
}

// TestTreasury_NoChain: without a chain every balance is unknown, never zero.
func TestTreasury_NoChain(t *testing.T) {
	a := threeBuckets()
	s := &Service{chains: kernel.Chains{}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for i, r := range s.readBalances(context.Background(), a) {
		if r.Readable {
			t.Errorf("bucket %d readable without a chain", i)
		}
	}
}

// TestTreasury_PendingSweepIsNotStacked: every balance readable and the condition holding, a
// rule whose previous sweep still awaits signatures records the window and proposes nothing;
// once that payment is final, the window asks the payments port for the excess.
func TestTreasury_PendingSweepIsNotStacked(t *testing.T) {
	a := threeBuckets()
	chain := flakyChain{balances: map[common.Address]int64{}}
	for _, b := range a.Buckets {
		chain.balances[common.HexToAddress(b.Address)] = 100_000000
	}
	threshold := int64(1_000000)
	rule := treasury.Rule{ID: "trl_1", AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment, Type: treasury.RuleSweepExcess,
		SourceBucketID: a.Buckets[0].ID, DestBucketID: a.Buckets[1].ID, Threshold: &threshold, IntervalSeconds: 3600, Enabled: true,
		CreatedAt: a.CreatedAt}
	for _, status := range []safepay.Status{safepay.StatusAwaitingSignature, safepay.StatusReadyToExecute, safepay.StatusExecuting} {
		repo := &memoryTreasury{account: a, rule: rule, sweep: &treasury.Sweep{ID: "swp_1", RuleID: rule.ID, PaymentID: "pay_1"}, paymentStatus: status}
		s := &Service{store: memoryStore{repo}, clock: fixedClock{a.CreatedAt.Add(2 * time.Hour)}, chains: kernel.Chains{core.EnvTest: chain},
			payments: noPayments{t}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		got, err := s.runRule(context.Background(), rule)
		if err != nil || got != outcomeSkipped || repo.rule.LastSkipReason != SkipPreviousPending || repo.rule.LastFiredAt != nil {
			t.Fatalf("previous payment %s: runRule = %v, %v; rule %+v", status, got, err, repo.rule)
		}
	}
	// The previous payment is final: the window reaches the payments port with the excess.
	repo := &memoryTreasury{account: a, rule: rule, sweep: &treasury.Sweep{ID: "swp_1", RuleID: rule.ID, PaymentID: "pay_1"}, paymentStatus: safepay.StatusCompleted}
	asked := &refusingPayments{}
	s := &Service{store: memoryStore{repo}, clock: fixedClock{a.CreatedAt.Add(2 * time.Hour)}, chains: kernel.Chains{core.EnvTest: chain},
		payments: asked, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	got, err := s.runRule(context.Background(), rule)
	if err != nil || got != outcomeSkipped || asked.request.AmountValue != "99" || asked.request.SourceWalletID != a.Buckets[0].WalletID ||
		!strings.HasPrefix(repo.rule.LastSkipReason, SkipNotProposable+": INVALID_STATE") {
		t.Fatalf("after a final payment: %v, %v, asked %+v, rule %+v", got, err, asked.request, repo.rule)
	}
}

// refusingPayments records what it was asked and refuses, as for a Safe not yet deployed.
type refusingPayments struct{ request safepay.Request }

func (p *refusingPayments) ReadSweepPayment(_ context.Context, _ auth.Principal, in safepay.Request) (PaymentRead, error) {
	p.request = in
	return nil, core.E(core.CodeInvalidState, "wallet is PENDING_DEPLOYMENT")
}

func (p *refusingPayments) ProposeSweepPayment(context.Context, auth.Principal, PaymentRead) (safepay.Payment, error) {
	return safepay.Payment{}, core.E(core.CodeInternal, "not reached")
}

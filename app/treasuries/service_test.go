package treasuries

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

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// treasuryWorld is the treasury service over ports/fake: an in-memory store and chain.
type treasuryWorld struct {
	store  *fake.Store
	chain  *fake.Chain
	svc    *Service
	tenant string // the account's tenant, for the reads by id
}

// newTreasuryWorld stores account a (its bucket addresses are the fake chain's) and rule, and
// builds the service at now with the given payments port.
func newTreasuryWorld(t *testing.T, a treasury.Account, rule treasury.Rule, now time.Time, payments SweepPayments) *treasuryWorld {
	t.Helper()
	w := &treasuryWorld{store: fake.NewStore(), chain: fake.NewChain(84532), tenant: a.TenantID}
	err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Treasury().CreateAccount(ctx, a); err != nil {
			return err
		}
		return tx.Treasury().CreateRule(ctx, rule)
	})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = &Service{store: kernel.NewUnits[txView](w.store, narrow), clock: fixedClock{now}, chains: kernel.Chains{core.EnvTest: w.chain},
		payments: payments, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return w
}

// fund mints USDC to a bucket's address on the fake chain.
func (w *treasuryWorld) fund(t *testing.T, b treasury.Bucket, amount int64) {
	t.Helper()
	if _, err := w.chain.MintUSDC(context.Background(), common.HexToAddress(b.Address), big.NewInt(amount)); err != nil {
		t.Fatal(err)
	}
}

// rule reads the stored rule back.
func (w *treasuryWorld) rule(t *testing.T, id string) treasury.Rule {
	t.Helper()
	var r treasury.Rule
	err := w.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) (err error) {
		r, err = tx.Treasury().LockRule(ctx, w.tenant, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// seedSweep stores a previous sweep of the rule with its payment in status.
func (w *treasuryWorld) seedSweep(t *testing.T, a treasury.Account, rule treasury.Rule, status safepay.Status) {
	t.Helper()
	err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		pay := safepay.Payment{ID: core.NewID(core.PrefixPayment), TenantID: a.TenantID, Environment: a.Environment, Status: status}
		if err := tx.Payments().CreatePayment(ctx, pay); err != nil {
			return err
		}
		return tx.Treasury().CreateSweep(ctx, treasury.Sweep{ID: core.NewID(core.PrefixSweep), AccountID: a.ID, TenantID: a.TenantID,
			Environment: a.Environment, RuleID: rule.ID, PaymentID: pay.ID, Status: treasury.SweepProposed})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// noPayments fails the test if a skipped window tries to propose a payment.
type noPayments struct{ t *testing.T }

func (p noPayments) ReadSweepPayment(context.Context, auth.Principal, safepay.Request) (PaymentRead, error) {
	p.t.Fatal("a window with an unreadable balance read a payment")
	return nil, nil
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
	threshold := int64(40_000000)
	rule := treasury.Rule{ID: "trl_1", AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment, Type: treasury.RuleSweepExcess,
		SourceBucketID: a.Buckets[2].ID, DestBucketID: a.Buckets[0].ID, Threshold: &threshold, IntervalSeconds: 3600, Enabled: true,
		CreatedAt: a.CreatedAt}
	now := a.CreatedAt.Add(2 * time.Hour)
	w := newTreasuryWorld(t, a, rule, now, noPayments{t})
	w.fund(t, a.Buckets[0], 100_000000)
	w.chain.FailBalanceReads(common.HexToAddress(a.Buckets[2].Address))
	s := w.svc
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
	stored := w.rule(t, rule.ID)
	if stored.LastSkipReason != treasury.SkipUnreadable || stored.LastSkippedAt == nil || !stored.LastSkippedAt.Equal(now) ||
		stored.LastEvaluatedAt == nil || stored.LastFiredAt != nil {
		t.Fatalf("recorded rule: %+v", stored)
	}
	// The window is closed: the same instant does not evaluate again.
	if got, err := s.runRule(ctx, stored); err != nil || got != outcomeNotDue {
		t.Fatalf("second run in the same window = %v, %v", got, err)
	}

	// REBALANCE_TO_TARGET needs every bucket: skipped too.
	rebalance := treasury.Rule{Type: treasury.RuleRebalanceToTarget}
	if d, err := s.evaluate(ctx, rebalance, a); err != nil || d.Skip != treasury.SkipUnreadable {
		t.Errorf("rebalance with an unreadable bucket: %+v", d)
	}
	// A rule between readable buckets still decides.
	readable := rule
	readable.SourceBucketID, readable.DestBucketID = a.Buckets[0].ID, a.Buckets[1].ID
	if d, err := s.evaluate(ctx, readable, a); err != nil || d.Skip != "" || d.Amount != 60_000000 {
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

// sweepExcess is a SWEEP_EXCESS rule of a from its first bucket to its second above 1 USD.
func sweepExcess(a treasury.Account) treasury.Rule {
	threshold := int64(1_000000)
	return treasury.Rule{ID: core.NewID(core.PrefixTreasuryRule), AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		Type: treasury.RuleSweepExcess, SourceBucketID: a.Buckets[0].ID, DestBucketID: a.Buckets[1].ID, Threshold: &threshold,
		IntervalSeconds: 3600, Enabled: true, CreatedAt: a.CreatedAt}
}

// TestTreasury_PendingSweepIsNotStacked: every balance readable and the condition holding, a
// rule whose previous sweep still awaits signatures records the window and proposes nothing;
// once that payment is final, the window asks the payments port for the excess.
func TestTreasury_PendingSweepIsNotStacked(t *testing.T) {
	a := threeBuckets()
	rule := sweepExcess(a)
	now := a.CreatedAt.Add(2 * time.Hour)
	for _, status := range []safepay.Status{safepay.StatusAwaitingSignature, safepay.StatusReadyToExecute, safepay.StatusExecuting} {
		w := newTreasuryWorld(t, a, rule, now, noPayments{t})
		w.fund(t, a.Buckets[0], 100_000000)
		w.seedSweep(t, a, rule, status)
		got, err := w.svc.runRule(context.Background(), rule)
		if stored := w.rule(t, rule.ID); err != nil || got != outcomeSkipped || stored.LastSkipReason != SkipPreviousPending || stored.LastFiredAt != nil {
			t.Fatalf("previous payment %s: runRule = %v, %v; rule %+v", status, got, err, stored)
		}
	}
	// The previous payment is final: the window reaches the payments port with the excess.
	asked := &refusingPayments{}
	w := newTreasuryWorld(t, a, rule, now, asked)
	w.fund(t, a.Buckets[0], 100_000000)
	w.seedSweep(t, a, rule, safepay.StatusCompleted)
	got, err := w.svc.runRule(context.Background(), rule)
	stored := w.rule(t, rule.ID)
	if err != nil || got != outcomeSkipped || asked.request.AmountValue != "99" || asked.request.SourceWalletID != a.Buckets[0].WalletID ||
		!strings.HasPrefix(stored.LastSkipReason, SkipNotProposable+": INVALID_STATE") {
		t.Fatalf("after a final payment: %v, %v, asked %+v, rule %+v", got, err, asked.request, stored)
	}
}

// proposingPayments proposes the sweep's payment in the caller's unit of work, as the safepay
// capability does, and counts the proposals.
type proposingPayments struct {
	store    *fake.Store
	proposed []safepay.Request
}

func (p *proposingPayments) ReadSweepPayment(_ context.Context, _ auth.Principal, in safepay.Request) (PaymentRead, error) {
	return func(ctx context.Context, actor auth.Principal) (safepay.Payment, error) {
		return p.propose(ctx, actor, in)
	}, nil
}

func (p *proposingPayments) propose(ctx context.Context, actor auth.Principal, in safepay.Request) (safepay.Payment, error) {
	pay := safepay.Payment{ID: core.NewID(core.PrefixPayment), TenantID: actor.TenantID, Environment: actor.Environment,
		SourceWalletID: in.SourceWalletID, Status: safepay.StatusAwaitingSignature}
	err := p.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Payments().CreatePayment(ctx, pay) })
	if err == nil {
		p.proposed = append(p.proposed, in)
	}
	return pay, err
}

// TestTreasury_RuleFires: a due SWEEP_EXCESS rule whose source holds more than its threshold
// proposes one payment of the excess, records the sweep linked to it with its event, and
// closes the window; the next window, with that payment still awaiting signatures, stacks
// nothing. RunRules finds the rule due through the repository and reports the firing.
func TestTreasury_RuleFires(t *testing.T) {
	a := threeBuckets()
	rule := sweepExcess(a)
	now := a.CreatedAt.Add(2 * time.Hour)
	payments := &proposingPayments{}
	w := newTreasuryWorld(t, a, rule, now, payments)
	payments.store = w.store
	w.fund(t, a.Buckets[0], 25_500000)

	report, err := w.svc.RunRules(context.Background(), core.EnvTest, "")
	if err != nil || report != (RunReport{Evaluated: 1, Fired: 1}) {
		t.Fatalf("RunRules = %+v, %v", report, err)
	}
	if len(payments.proposed) != 1 || payments.proposed[0].AmountValue != "24.5" || payments.proposed[0].Destination.WalletID != a.Buckets[1].WalletID {
		t.Fatalf("proposed %+v", payments.proposed)
	}
	stored := w.rule(t, rule.ID)
	if stored.LastFiredAt == nil || !stored.LastFiredAt.Equal(now) || stored.LastEvaluatedAt == nil || stored.LastSkipReason != "" {
		t.Fatalf("rule after firing %+v", stored)
	}
	var sweep treasury.Sweep
	err = w.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		var ok bool
		sweep, ok, err = tx.Treasury().LatestRuleSweep(ctx, rule.TenantID, rule.ID)
		if !ok {
			return errors.New("no sweep recorded")
		}
		_, err = tx.Payments().FindPayment(ctx, a.TenantID, a.Environment, sweep.PaymentID)
		return err
	})
	if err != nil || sweep.AmountBaseUnits != 24_500000 || sweep.SourceBucketID != a.Buckets[0].ID || sweep.Status != treasury.SweepProposed {
		t.Fatalf("sweep %+v, %v", sweep, err)
	}
	if events := w.store.Events(sweep.ID); len(events) != 1 || events[0].Type != "treasury_sweep.proposed" {
		t.Fatalf("sweep events %+v", events)
	}

	// An hour later the rule is due again; its payment still waits, so nothing is stacked.
	w.svc.clock = fixedClock{now.Add(time.Hour)}
	report, err = w.svc.RunRules(context.Background(), core.EnvTest, "")
	if err != nil || report != (RunReport{Evaluated: 1, Skipped: 1}) || len(payments.proposed) != 1 {
		t.Fatalf("next window: %+v, %v, %d proposals", report, err, len(payments.proposed))
	}
}

// refusingPayments records what it was asked and refuses, as for a Safe not yet deployed.
type refusingPayments struct{ request safepay.Request }

func (p *refusingPayments) ReadSweepPayment(_ context.Context, _ auth.Principal, in safepay.Request) (PaymentRead, error) {
	p.request = in
	return nil, core.E(core.CodeInvalidState, "wallet is PENDING_DEPLOYMENT")
}

// TestTreasury_SweepOutcomeIsADomainEvent: treasury subscribes to the Safe payments'
// Finalized event when it is built; a final payment raised in a unit of work records its
// sweep's outcome in that same unit, with no reference from payments back to treasury.
func TestTreasury_SweepOutcomeIsADomainEvent(t *testing.T) {
	a := threeBuckets()
	rule := sweepExcess(a)
	store := fake.NewStore()
	finalized := &kernel.Subscribers[safepay.Finalized]{}
	if _, err := New(Deps{Store: store, Jobs: fake.Jobs{Store: store}, Wallets: noWallets{}, Payments: noPayments{t},
		PaymentsFinalized: finalized}); err != nil {
		t.Fatal(err)
	}
	pay := safepay.Payment{ID: core.NewID(core.PrefixPayment), TenantID: a.TenantID, Environment: a.Environment,
		Status: safepay.StatusCompleted, UpdatedAt: a.CreatedAt}
	sweep := treasury.Sweep{ID: core.NewID(core.PrefixSweep), AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		RuleID: rule.ID, PaymentID: pay.ID, Status: treasury.SweepProposed, AmountBaseUnits: 5_000000}
	err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Treasury().CreateAccount(ctx, a); err != nil {
			return err
		}
		if err := tx.Treasury().CreateSweep(ctx, sweep); err != nil {
			return err
		}
		return finalized.Publish(ctx, tx, safepay.Finalized{Payment: pay})
	})
	if err != nil {
		t.Fatal(err)
	}
	if events := store.Events(sweep.ID); len(events) != 1 || events[0].Type != "treasury_sweep.completed" {
		t.Fatalf("sweep events %+v, want treasury_sweep.completed", events)
	}
}

// noWallets is a bucket-wallet port the test never reaches.
type noWallets struct{}

func (noWallets) CreateBucketWallet(context.Context, auth.Principal, BucketWallet) (wallet.Wallet, error) {
	return wallet.Wallet{}, errors.New("not reached")
}

// TestTreasury_YieldDayOfAnUnreadableBucketIsBookedLater: a bucket whose balance could not be
// read earns nothing on that run, and a later run of the same day books it, though the account's
// other bucket, booked on the first run, now reads another balance: that bucket's day stays as
// first booked, and its conflict does not keep the other bucket from its day.
func TestTreasury_YieldDayOfAnUnreadableBucketIsBookedLater(t *testing.T) {
	a := threeBuckets()
	for i := range a.Buckets {
		a.Buckets[i].ApyBps = 3650 // 0.1 % a day: 100 USDC a day on 100,000
	}
	rule := treasury.Rule{ID: "trl_1", AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment, Type: treasury.RuleSweepExcess,
		SourceBucketID: a.Buckets[2].ID, DestBucketID: a.Buckets[0].ID, IntervalSeconds: 3600, CreatedAt: a.CreatedAt}
	w := newTreasuryWorld(t, a, rule, a.CreatedAt.Add(48*time.Hour), noPayments{t})
	w.fund(t, a.Buckets[0], 100_000_000000)
	w.fund(t, a.Buckets[2], 100_000_000000)
	unreadable := common.HexToAddress(a.Buckets[2].Address)
	w.chain.FailBalanceReads(unreadable)
	ctx := context.Background()
	if err := w.svc.AccrueYield(ctx, core.EnvTest); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.svc.accruedYield(ctx, a); got[a.Buckets[0].ID] != 100_000000 || got[a.Buckets[2].ID] != 0 {
		t.Fatalf("first run: %v", got)
	}
	w.chain.ServeBalanceReads(unreadable)
	w.fund(t, a.Buckets[0], 50_000_000000) // bucket a reads another balance on the second run
	if err := w.svc.AccrueYield(ctx, core.EnvTest); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.svc.accruedYield(ctx, a); got[a.Buckets[0].ID] != 100_000000 || got[a.Buckets[2].ID] != 100_000000 {
		t.Fatalf("second run of the same day: %v, want each bucket's day booked once", got)
	}
}

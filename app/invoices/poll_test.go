package invoices

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"corridor/core"
	"corridor/core/auth"
	"corridor/core/event"
	"corridor/core/invoice"
	"corridor/core/safepay"
	"corridor/core/wallet"
	"corridor/ports"
)

// fakeClock is a clock the test sets.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// store runs units of work over one in-memory invoice and counts the open ones, so the chain
// double can tell whether it is read inside a transaction.
type store struct {
	repo *repo
	open int
}

func (s *store) InTx(ctx context.Context, fn func(context.Context, ports.Tx) error) error {
	s.open++
	defer func() { s.open-- }()
	return fn(ctx, tx{repo: s.repo})
}
func (*store) Ping(context.Context) error { return nil }

type tx struct {
	ports.Tx
	repo *repo
}

func (t tx) Invoices() ports.InvoiceRepo { return t.repo }
func (t tx) Payments() ports.PaymentRepo { return payments{repo: t.repo} }
func (t tx) Events() ports.EventRepo     { return events{} }

// events accepts every event the poll records.
type events struct{ ports.EventRepo }

func (events) RecordEvent(context.Context, event.Event) (bool, error) { return true, nil }

type payments struct {
	ports.PaymentRepo
	repo *repo
}

func (p payments) FindPayment(_ context.Context, _ string, _ core.Environment, id string) (safepay.Payment, error) {
	return safepay.Payment{ID: id, Status: p.repo.paymentStatus}, nil
}

type repo struct {
	ports.InvoiceRepo // anything else panics
	inv               invoice.Invoice
	paymentStatus     safepay.Status
}

func (r *repo) FindPublicInvoice(context.Context, string) (invoice.Invoice, error) { return r.inv, nil }
func (r *repo) LockInvoice(context.Context, string) (invoice.Invoice, error)       { return r.inv, nil }
func (r *repo) UpdateInvoice(_ context.Context, i invoice.Invoice) error {
	r.inv = i
	return nil
}

// chain answers the hold Safe's balance and fails the test when read inside a transaction.
type chain struct {
	ports.Chain
	t       *testing.T
	store   *store
	balance int64
	reads   int
}

func (c *chain) USDCBalance(context.Context, common.Address) (*big.Int, error) {
	c.reads++
	if c.store.open > 0 {
		c.t.Error("the hold Safe's balance was read inside a unit of work")
	}
	return big.NewInt(c.balance), nil
}

type noPorts struct{}

func (noPorts) CreateHoldWallet(context.Context, auth.Principal, HoldWallet) (wallet.Wallet, error) {
	return wallet.Wallet{}, errors.New("unused")
}
func (noPorts) ReadPayment(context.Context, auth.Principal, safepay.Request) (PaymentRead, error) {
	return nil, errors.New("unused")
}
func (noPorts) ProposePayment(context.Context, auth.Principal, PaymentRead) (safepay.Payment, error) {
	return safepay.Payment{}, errors.New("unused")
}
func (noPorts) ReadSignature(context.Context, auth.Principal, string, string) (PaymentRead, error) {
	return nil, errors.New("unused")
}
func (noPorts) Sign(context.Context, auth.Principal, PaymentRead) (safepay.Payment, error) {
	return safepay.Payment{}, errors.New("unused")
}

type nopJobs struct{}

func (nopJobs) Enqueue(context.Context, ports.JobArgs, ports.JobOptions) error { return nil }

func newPollerWorld(t *testing.T, inv invoice.Invoice, balance int64, now time.Time) (*Service, *repo, *chain) {
	t.Helper()
	r := &repo{inv: inv}
	st := &store{repo: r}
	ch := &chain{t: t, store: st, balance: balance}
	svc, err := New(Deps{Store: st, Jobs: nopJobs{}, Clock: &fakeClock{now: now}, Chains: map[core.Environment]ports.Chain{core.EnvTest: ch},
		Wallets: noPorts{}, Payments: noPorts{}})
	if err != nil {
		t.Fatal(err)
	}
	return svc, r, ch
}

// TestPoll_FundsWinAtExpiry: with the clock past expiresAt, a Safe that covers the amount makes
// the invoice FUNDED and an under-funded one EXPIRED; the balance is read before deciding and
// outside any unit of work; a FUNDED invoice is not polled for funds again.
func TestPoll_FundsWinAtExpiry(t *testing.T) {
	expires := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sent := invoice.Invoice{ID: "inv_1", Environment: core.EnvTest, Status: invoice.StatusSent, AmountBaseUnits: 5_000_000,
		HoldAddress: "0x00000000000000000000000000000000000000aa", ExpiresAt: &expires}
	cases := []struct {
		name    string
		now     time.Time
		balance int64
		want    invoice.Status
	}{
		{"funded before expiry", expires.Add(-time.Hour), 5_000_000, invoice.StatusFunded},
		{"funded at the moment of expiry", expires, 5_000_000, invoice.StatusFunded},
		{"funded after expiry, before the poller ran", expires.Add(time.Hour), 6_000_000, invoice.StatusFunded},
		{"under-funded after expiry", expires.Add(time.Second), 4_999_999, invoice.StatusExpired},
		{"under-funded before expiry", expires.Add(-time.Second), 1, invoice.StatusSent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svc, r, ch := newPollerWorld(t, sent, c.balance, c.now)
			if err := svc.PollInvoice(context.Background(), sent.ID); err != nil {
				t.Fatal(err)
			}
			if r.inv.Status != c.want || ch.reads != 1 {
				t.Fatalf("status %s after %d reads, want %s", r.inv.Status, ch.reads, c.want)
			}
			if c.want == invoice.StatusFunded {
				ch.balance = 0
				if err := svc.PollInvoice(context.Background(), sent.ID); err != nil || r.inv.Status != invoice.StatusFunded || ch.reads != 1 {
					t.Fatalf("a FUNDED invoice was polled again: %s, %d reads, %v", r.inv.Status, ch.reads, err)
				}
			}
		})
	}
}

// TestPoll_SettlementFollowsThePayment: the linked payment completing settles the invoice; a
// failed or cancelled one is unlinked; a pending one changes nothing.
func TestPoll_SettlementFollowsThePayment(t *testing.T) {
	funded := invoice.Invoice{ID: "inv_2", Environment: core.EnvTest, Status: invoice.StatusDelivered, AmountBaseUnits: 1}
	cases := []struct {
		kind     invoice.Settlement
		payment  safepay.Status
		want     invoice.Status
		unlinked bool
	}{
		{invoice.Release, safepay.StatusCompleted, invoice.StatusReleased, false},
		{invoice.Refund, safepay.StatusCompleted, invoice.StatusRefunded, false},
		{invoice.Release, safepay.StatusFailed, invoice.StatusDelivered, true},
		{invoice.Refund, safepay.StatusCancelled, invoice.StatusDelivered, true},
		{invoice.Release, safepay.StatusAwaitingSignature, invoice.StatusDelivered, false},
	}
	for _, c := range cases {
		t.Run(string(c.kind)+" "+string(c.payment), func(t *testing.T) {
			svc, r, _ := newPollerWorld(t, funded.Link(c.kind, "pay_1", time.Now()), 0, time.Now())
			r.paymentStatus = c.payment
			if err := svc.PollInvoice(context.Background(), funded.ID); err != nil {
				t.Fatal(err)
			}
			if r.inv.Status != c.want || (r.inv.SettlementPaymentID() == "") != c.unlinked {
				t.Fatalf("status %s, payment %q", r.inv.Status, r.inv.SettlementPaymentID())
			}
		})
	}
}

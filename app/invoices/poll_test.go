package invoices

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// fakeClock is a clock the test sets.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// watchedChain is the fake chain, failing the test when the hold Safe's balance is read inside
// a unit of work, and counting the reads.
type watchedChain struct {
	*fake.Chain
	t     *testing.T
	store *fake.Store
	reads int
}

func (c *watchedChain) USDCBalance(ctx context.Context, a common.Address) (*big.Int, error) {
	c.reads++
	if c.store.InUnit() {
		c.t.Error("the hold Safe's balance was read inside a unit of work")
	}
	return c.Chain.USDCBalance(ctx, a)
}

// invoiceWorld is the invoices service over ports/fake.
type invoiceWorld struct {
	store    *fake.Store
	chain    *watchedChain
	payments *safePayments
	clock    *fakeClock
	svc      *Service
}

func newInvoiceWorld(t *testing.T, inv invoice.Invoice, balance int64, now time.Time) *invoiceWorld {
	t.Helper()
	w := &invoiceWorld{store: fake.NewStore(), clock: &fakeClock{now: now}}
	w.chain = &watchedChain{Chain: fake.NewChain(84532), t: t, store: w.store}
	w.payments = &safePayments{store: w.store}
	if inv.HoldAddress == "" {
		inv.HoldAddress = "0x00000000000000000000000000000000000000aa"
	}
	if balance > 0 {
		if _, err := w.chain.MintUSDC(context.Background(), common.HexToAddress(inv.HoldAddress), big.NewInt(balance)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Invoices().CreateInvoice(ctx, inv) }); err != nil {
		t.Fatal(err)
	}
	svc, err := New(Deps{Store: w.store, Jobs: fake.Jobs{Store: w.store}, Clock: w.clock, Chains: map[core.Environment]ports.Chain{core.EnvTest: w.chain},
		Wallets: noWallets{}, Payments: w.payments})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = svc
	return w
}

// invoice reads the stored invoice back.
func (w *invoiceWorld) invoice(t *testing.T, id string) invoice.Invoice {
	t.Helper()
	var inv invoice.Invoice
	if err := w.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) (err error) {
		inv, err = tx.Invoices().FindPublicInvoice(ctx, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return inv
}

// seedPayment stores a Safe payment in status and returns its id.
func (w *invoiceWorld) seedPayment(t *testing.T, inv invoice.Invoice, status safepay.Status) string {
	t.Helper()
	pay := safepay.Payment{ID: core.NewID(core.PrefixPayment), TenantID: inv.TenantID, Environment: inv.Environment, Status: status}
	if err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Payments().CreatePayment(ctx, pay) }); err != nil {
		t.Fatal(err)
	}
	return pay.ID
}

// setPaymentStatus moves a stored payment, as the payments capability would.
func (w *invoiceWorld) setPaymentStatus(t *testing.T, id string, status safepay.Status) {
	t.Helper()
	err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		pay, err := tx.Payments().LockPayment(ctx, "", id)
		if err != nil {
			return err
		}
		pay.Status = status
		return tx.Payments().UpdatePayment(ctx, pay)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// safePayments proposes payments in the caller's unit of work, as the safepay capability does:
// the read carries the request, the proposal stores an AWAITING_SIGNATURE payment.
type safePayments struct {
	store    *fake.Store
	requests []safepay.Request
}

func (p *safePayments) ReadPayment(_ context.Context, _ auth.Principal, in safepay.Request) (PaymentRead, error) {
	if p.store.InUnit() {
		return nil, errors.New("the payment was read inside a unit of work")
	}
	return func(ctx context.Context, actor auth.Principal) (safepay.Payment, error) {
		return p.propose(ctx, actor, in)
	}, nil
}

func (p *safePayments) propose(ctx context.Context, actor auth.Principal, in safepay.Request) (safepay.Payment, error) {
	pay := safepay.Payment{ID: core.NewID(core.PrefixPayment), TenantID: actor.TenantID, Environment: actor.Environment,
		SourceWalletID: in.SourceWalletID, Status: safepay.StatusAwaitingSignature}
	err := p.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Payments().CreatePayment(ctx, pay) })
	if err == nil {
		p.requests = append(p.requests, in)
	}
	return pay, err
}

func (p *safePayments) ReadSignature(context.Context, auth.Principal, string, string) (PaymentRead, error) {
	return nil, errors.New("unused")
}

type noWallets struct{}

func (noWallets) CreateHoldWallet(context.Context, auth.Principal, HoldWallet) (wallet.Wallet, error) {
	return wallet.Wallet{}, errors.New("unused")
}

// TestPoll_FundsWinAtExpiry: with the clock past expiresAt, a Safe that covers the amount makes
// the invoice FUNDED and an under-funded one EXPIRED; the balance is read before deciding and
// outside any unit of work; a FUNDED invoice is not polled for funds again.
func TestPoll_FundsWinAtExpiry(t *testing.T) {
	expires := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sent := invoice.Invoice{ID: "inv_1", TenantID: "ten_1", Environment: core.EnvTest, Status: invoice.StatusSent, AmountBaseUnits: 5_000_000,
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
			w := newInvoiceWorld(t, sent, c.balance, c.now)
			if err := w.svc.PollInvoice(context.Background(), sent.ID); err != nil {
				t.Fatal(err)
			}
			if got := w.invoice(t, sent.ID); got.Status != c.want || w.chain.reads != 1 {
				t.Fatalf("status %s after %d reads, want %s", got.Status, w.chain.reads, c.want)
			}
			if c.want == invoice.StatusFunded {
				if err := w.svc.PollInvoice(context.Background(), sent.ID); err != nil || w.invoice(t, sent.ID).Status != invoice.StatusFunded || w.chain.reads != 1 {
					t.Fatalf("a FUNDED invoice was polled again: %d reads, %v", w.chain.reads, err)
				}
			}
		})
	}
}

// TestPoll_SettlementFollowsThePayment: the linked payment completing settles the invoice; a
// failed or cancelled one is unlinked; a pending one changes nothing.
func TestPoll_SettlementFollowsThePayment(t *testing.T) {
	funded := invoice.Invoice{ID: "inv_2", TenantID: "ten_1", Environment: core.EnvTest, Status: invoice.StatusDelivered, AmountBaseUnits: 1}
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
			w := newInvoiceWorld(t, funded, 0, time.Now())
			payID := w.seedPayment(t, funded, c.payment)
			if err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				return tx.Invoices().UpdateInvoice(ctx, funded.Link(c.kind, payID, time.Now()))
			}); err != nil {
				t.Fatal(err)
			}
			if err := w.svc.PollInvoice(context.Background(), funded.ID); err != nil {
				t.Fatal(err)
			}
			if got := w.invoice(t, funded.ID); got.Status != c.want || (got.SettlementPaymentID() == "") != c.unlinked {
				t.Fatalf("status %s, payment %q", got.Status, got.SettlementPaymentID())
			}
		})
	}
}

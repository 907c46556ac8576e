package invoices

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/safepay"
)

// Fast tests of settlement (ReadSettlement, Settle, and the poller following the payment) over
// ports/fake.

func deliveredInvoice(amount int64) invoice.Invoice {
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	return invoice.Invoice{ID: core.NewID("inv"), TenantID: "ten_payee", Environment: core.EnvTest, Status: invoice.StatusDelivered,
		AmountBaseUnits: amount, PayerAddress: "0x00000000000000000000000000000000000000a1", PayeeAddress: "0x00000000000000000000000000000000000000b2",
		ArbiterAddress: "0x00000000000000000000000000000000000000c3", ChainID: 84532, HoldWalletID: "wal_hold",
		HoldAddress: "0x00000000000000000000000000000000000000d4", CreatedAt: at, UpdatedAt: at}
}

func payee() auth.Principal {
	return auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_payee", Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeInvoicesRelease}}
}

func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	if !errors.Is(err, &core.Error{Code: code}) {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func TestInvoices_Settle(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 4, 2, 9, 0, 0, 0, time.UTC)
	t.Run("a release pays the payee, links the payment and settles when it completes", func(t *testing.T) {
		inv := deliveredInvoice(5_000_000)
		w := newInvoiceWorld(t, inv, 5_000_000, now)
		read, err := w.svc.ReadSettlement(ctx, payee(), inv.ID, invoice.Release, inv.PayeeAddress, "")
		if err != nil {
			t.Fatal(err)
		}
		linked, err := w.svc.Settle(ctx, payee(), read)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.payments.requests) != 1 {
			t.Fatalf("%d proposals", len(w.payments.requests))
		}
		req := w.payments.requests[0]
		if req.SourceWalletID != inv.HoldWalletID || req.AmountValue != "5" || req.Destination.Address != inv.PayeeAddress {
			t.Fatalf("proposed %+v", req)
		}
		stored := w.invoice(t, inv.ID)
		if stored.ReleasePaymentID == "" || stored.ReleasePaymentID != linked.ReleasePaymentID || stored.Status != invoice.StatusDelivered {
			t.Fatalf("stored %+v", stored)
		}
		// One settlement in flight: a second release is refused before any chain read.
		reads := w.chain.reads
		_, err = w.svc.ReadSettlement(ctx, payee(), inv.ID, invoice.Release, "", "")
		wantCode(t, err, invoice.CodeSettlementInFlight)
		if w.chain.reads != reads {
			t.Fatal("a refused settlement read the chain")
		}
		// The payment waits for signatures: nothing changes; it completes: RELEASED.
		if err := w.svc.PollInvoice(ctx, inv.ID); err != nil || w.invoice(t, inv.ID).Status != invoice.StatusDelivered {
			t.Fatalf("poll while pending: %v, %s", err, w.invoice(t, inv.ID).Status)
		}
		w.setPaymentStatus(t, stored.ReleasePaymentID, safepay.StatusCompleted)
		if err := w.svc.PollInvoice(ctx, inv.ID); err != nil {
			t.Fatal(err)
		}
		if got := w.invoice(t, inv.ID); got.Status != invoice.StatusReleased {
			t.Fatalf("after the payment completed: %s", got.Status)
		}
		events := w.store.Events(inv.ID)
		if len(events) == 0 || events[len(events)-1].Type != "invoice.released" {
			t.Fatalf("events %+v", events)
		}
	})
	t.Run("a refund returns what the hold Safe holds to the payer", func(t *testing.T) {
		inv := deliveredInvoice(5_000_000)
		w := newInvoiceWorld(t, inv, 3_250_000, now)
		read, err := w.svc.ReadSettlement(ctx, payee(), inv.ID, invoice.Refund, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Settle(ctx, payee(), read); err != nil {
			t.Fatal(err)
		}
		if req := w.payments.requests[0]; req.AmountValue != "3.25" || req.Destination.Address != inv.PayerAddress {
			t.Fatalf("refund proposed %+v", req)
		}
		if got := w.invoice(t, inv.ID); got.RefundPaymentID == "" || got.ReleasePaymentID != "" {
			t.Fatalf("stored %+v", got)
		}
	})
	t.Run("a hold Safe short of the amount cannot be released, nor an empty one refunded", func(t *testing.T) {
		inv := deliveredInvoice(5_000_000)
		w := newInvoiceWorld(t, inv, 4_999_999, now)
		_, err := w.svc.ReadSettlement(ctx, payee(), inv.ID, invoice.Release, "", "")
		wantCode(t, err, core.CodeInvalidState)
		empty := deliveredInvoice(5_000_000)
		w = newInvoiceWorld(t, empty, 0, now)
		_, err = w.svc.ReadSettlement(ctx, payee(), empty.ID, invoice.Refund, "", "")
		wantCode(t, err, invoice.CodeNothingToRefund)
		if len(w.payments.requests) != 0 {
			t.Fatal("a refused settlement proposed a payment")
		}
	})
	t.Run("a settlement raced by another is refused under the lock", func(t *testing.T) {
		inv := deliveredInvoice(5_000_000)
		w := newInvoiceWorld(t, inv, 5_000_000, now)
		first, err := w.svc.ReadSettlement(ctx, payee(), inv.ID, invoice.Release, "", "")
		if err != nil {
			t.Fatal(err)
		}
		second, err := w.svc.ReadSettlement(ctx, payee(), inv.ID, invoice.Release, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Settle(ctx, payee(), first); err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.Settle(ctx, payee(), second)
		wantCode(t, err, invoice.CodeSettlementInFlight)
		if len(w.payments.requests) != 1 {
			t.Fatalf("%d payments proposed for one invoice", len(w.payments.requests))
		}
	})
	t.Run("another tenant, an owner who is no party, a LIVE key are refused", func(t *testing.T) {
		inv := deliveredInvoice(5_000_000)
		w := newInvoiceWorld(t, inv, 5_000_000, now)
		other := payee()
		other.TenantID = "ten_other"
		_, err := w.svc.ReadSettlement(ctx, other, inv.ID, invoice.Release, "", "")
		wantCode(t, err, invoice.CodeInvoiceNotFound)
		_, err = w.svc.ReadSettlement(ctx, payee(), inv.ID, invoice.Release, "0x00000000000000000000000000000000000000e5", "")
		wantCode(t, err, core.CodeValidationFailed)
		live := payee()
		live.Environment = core.EnvLive
		_, err = w.svc.ReadSettlement(ctx, live, inv.ID, invoice.Release, "", "")
		wantCode(t, err, core.CodeSandboxOnly)
	})
}

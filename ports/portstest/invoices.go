package portstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// InvoiceRepo is the contract of ports.InvoiceRepo: invoices list newest first, are the
// tenant's (INVOICE_NOT_FOUND elsewhere) yet public by id, and the poller sees them once SENT;
// bills are the payer's (BILL_NOT_FOUND elsewhere), list newest first by verification, and a
// VERIFIED bill reusing its signer's nonce is ErrBillNonceUsed; a wallet address resolves to
// its tenant and an ACTIVE member's signer address is an active signer.
func InvoiceRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"invoices list newest first, scoped, public by id, pollable once sent", invoiceCRUD},
		{"bills are the payer's; a verified bill's nonce is single-use", invoiceBills},
		{"wallet addresses resolve to their tenant; active members sign", invoiceSigners},
	})
}

func newInvoice(tenantID string, at time.Time) invoice.Invoice {
	return invoice.Invoice{ID: core.NewID(invoice.PrefixInvoice), TenantID: tenantID, Environment: core.EnvTest, PayeeName: "Payee",
		AmountBaseUnits: 500, PayerAddress: randomAddress(), PayeeAddress: randomAddress(), ArbiterAddress: randomAddress(),
		ChainID: 84532, Status: invoice.StatusDraft, CreatedAt: at, UpdatedAt: at}
}

func invoiceCRUD(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	at := ledgerNow()
	a, b := newInvoice(tn.ID, at.Add(-time.Second)), newInvoice(tn.ID, at)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateInvoice", tx.Invoices().CreateInvoice(ctx, a))
		return tx.Invoices().CreateInvoice(ctx, b)
	})
	hold := newWallet(t, s, tn.ID, core.EnvTest)
	a.Status, a.HoldWalletID, a.HoldAddress, a.UpdatedAt = invoice.StatusSent, hold.ID, hold.Address, ledgerNow()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Invoices().UpdateInvoice(ctx, a) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Invoices().ListInvoices(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListInvoices", total, 2)
		wantIDs(t, "ListInvoices", ids(list, func(i invoice.Invoice) string { return i.ID }), []string{b.ID, a.ID})
		_, err2 := tx.Invoices().FindInvoice(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err2, invoice.CodeInvoiceNotFound)
		got, err3 := tx.Invoices().FindPublicInvoice(ctx, a.ID)
		if got.Status != invoice.StatusSent || got.HoldWalletID != hold.ID || got.HoldAddress != hold.Address {
			t.Errorf("FindPublicInvoice after UpdateInvoice = %+v", got)
		}
		_, err4 := tx.Invoices().LockInvoice(ctx, tn.ID, core.NewID(invoice.PrefixInvoice))
		wantCode(t, err4, invoice.CodeInvoiceNotFound)
		_, err6 := tx.Invoices().LockInvoice(ctx, other.ID, a.ID)
		wantCode(t, err6, invoice.CodeInvoiceNotFound)
		if locked, err := tx.Invoices().LockInvoice(ctx, tn.ID, a.ID); err != nil || locked.HoldAddress != hold.Address {
			t.Errorf("LockInvoice of the tenant's own = %+v, %v", locked, err)
		}
		pollable, err5 := tx.Invoices().ListPollable(ctx, core.EnvTest, "", 100_000)
		got2 := ids(pollable, func(i invoice.Invoice) string { return i.ID })
		if !containsString(got2, a.ID) || containsString(got2, b.ID) {
			t.Error("ListPollable does not list exactly the SENT invoice of the two")
		}
		return firstErr(err, err3, err5)
	})
}

func newBill(sender, payer, signer, nonce string, status invoice.Verification, at time.Time) invoice.Bill {
	return invoice.Bill{ID: core.NewID(invoice.PrefixBill), Environment: core.EnvTest, SenderTenantID: sender, PayerTenantID: payer,
		AmountBaseUnits: 100, PayerAddress: randomAddress(), PayeeAddress: randomAddress(), ChainID: 84532, SenderAddress: signer,
		Signature: "0x01", SigNonce: nonce, SigExpiresAt: at.Add(time.Hour), DocHash: "0x02", DomainChainID: 84532,
		DomainVerifyingContract: randomAddress(), VerificationStatus: status, CreatedAt: at}
}

func invoiceBills(t *testing.T, s ports.Store) {
	sender, payer, other := newTenant(t, s), newTenant(t, s), newTenant(t, s)
	signer, at := randomAddress(), ledgerNow()
	a, b := newBill(sender.ID, payer.ID, signer, "7", invoice.Verified, at.Add(-time.Second)), newBill(sender.ID, payer.ID, signer, "7", invoice.Failed, at)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateBill", tx.Invoices().CreateBill(ctx, a))
		return tx.Invoices().CreateBill(ctx, b)
	})
	// The nonce is the signer's, whichever tenant the replay is sent to.
	for _, to := range []string{payer.ID, other.ID} {
		replay := newBill(sender.ID, to, signer, "7", invoice.Verified, at)
		err := unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Invoices().CreateBill(ctx, replay) })
		if !errors.Is(err, ports.ErrBillNonceUsed) {
			wantCode(t, err, core.CodeInvalidState)
		}
	}
	b.PayerDecision, b.PayerPaymentID = "ACCEPTED", ""
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Invoices().UpdateBill(ctx, b) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Invoices().ListInboundBills(ctx, payer.ID, core.EnvTest, "", ports.Page{Take: 10})
		wantTotal(t, "ListInboundBills", total, 2)
		wantIDs(t, "ListInboundBills", ids(list, func(x invoice.Bill) string { return x.ID }), []string{b.ID, a.ID})
		list, _, err2 := tx.Invoices().ListInboundBills(ctx, payer.ID, core.EnvTest, invoice.Verified, ports.Page{Take: 10})
		wantIDs(t, "ListInboundBills VERIFIED", ids(list, func(x invoice.Bill) string { return x.ID }), []string{a.ID})
		_, err3 := tx.Invoices().FindInboundBill(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err3, invoice.CodeBillNotFound)
		_, err5 := tx.Invoices().LockBill(ctx, sender.ID, b.ID)
		wantCode(t, err5, invoice.CodeBillNotFound)
		got, err4 := tx.Invoices().LockBill(ctx, payer.ID, b.ID)
		if got.PayerDecision != "ACCEPTED" {
			t.Errorf("after UpdateBill = %+v", got)
		}
		return firstErr(err, err2, err4)
	})
}

func invoiceSigners(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	signer, pending := randomAddress(), randomAddress()
	m := newMember(tn.ID, "user_"+suffix(t), tenant.MemberActive, nil)
	m.SignerAddress = signer
	p := newMember(tn.ID, "", tenant.MemberPending, nil)
	p.SignerAddress = pending
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateMember", tx.Members().CreateMember(ctx, m))
		return tx.Members().CreateMember(ctx, p)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Invoices().WalletTenant(ctx, core.EnvTest, w.Address)
		if got != tn.ID {
			t.Errorf("WalletTenant = %q, want %s", got, tn.ID)
		}
		_, err2 := tx.Invoices().WalletTenant(ctx, core.EnvLive, w.Address)
		wantCode(t, err2, core.CodeWalletNotFound)
		active, err3 := tx.Invoices().ActiveSigner(ctx, tn.ID, signer)
		notYet, err4 := tx.Invoices().ActiveSigner(ctx, tn.ID, pending)
		if !active || notYet {
			t.Errorf("ActiveSigner = %v (ACTIVE), %v (PENDING); want true, false", active, notYet)
		}
		return firstErr(err, err3, err4)
	})
}

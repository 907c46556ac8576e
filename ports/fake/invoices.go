package fake

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// invoiceTables hold invoices and bills. The two directory answers bills need are read from
// the wallets and members tables, as in Postgres.
type invoiceTables struct {
	invoices table[invoice.Invoice]
	bills    table[invoice.Bill]
}

func newInvoiceTables() invoiceTables {
	return invoiceTables{invoices: newTable[invoice.Invoice](), bills: newTable[invoice.Bill]()}
}

func (t invoiceTables) clone() invoiceTables {
	return invoiceTables{invoices: t.invoices.clone(), bills: t.bills.clone()}
}

type invoiceRepo struct{ s *Store }

var _ ports.InvoiceRepo = invoiceRepo{}

var (
	errInvoiceNotFound = core.NotFound(invoice.CodeInvoiceNotFound, "invoice")
	errBillNotFound    = core.NotFound(invoice.CodeBillNotFound, "bill")
)

func (r invoiceRepo) t() *invoiceTables { return &r.s.state.invoices }

func (r invoiceRepo) CreateInvoice(_ context.Context, i invoice.Invoice) error {
	return r.t().invoices.insert(i.ID, i)
}

func (r invoiceRepo) FindInvoice(_ context.Context, tenantID string, env core.Environment, id string) (invoice.Invoice, error) {
	i, ok := r.t().invoices.rows[id]
	if !ok || i.TenantID != tenantID || i.Environment != env {
		return invoice.Invoice{}, errInvoiceNotFound
	}
	return i, nil
}

func (r invoiceRepo) FindPublicInvoice(_ context.Context, id string) (invoice.Invoice, error) {
	i, ok := r.t().invoices.rows[id]
	if !ok {
		return invoice.Invoice{}, errInvoiceNotFound
	}
	return i, nil
}

func (r invoiceRepo) LockInvoice(ctx context.Context, tenantID, id string) (invoice.Invoice, error) {
	i, err := r.FindPublicInvoice(ctx, id)
	if err == nil && i.TenantID != tenantID {
		return invoice.Invoice{}, errInvoiceNotFound
	}
	return i, err
}

func (r invoiceRepo) UpdateInvoice(_ context.Context, i invoice.Invoice) error {
	return r.t().invoices.update(i.ID, i)
}

func (r invoiceRepo) ListInvoices(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]invoice.Invoice, int, error) {
	rows := r.t().invoices.filter(func(i invoice.Invoice) bool { return i.TenantID == tenantID && i.Environment == env }, true)
	out, total := page(rows, p)
	return out, total, nil
}

// ListPollable: SENT, or with a settlement payment linked, and not final; by id.
func (r invoiceRepo) ListPollable(_ context.Context, env core.Environment, afterID string, limit int) ([]invoice.Invoice, error) {
	rows := r.t().invoices.filter(func(i invoice.Invoice) bool {
		switch i.Status {
		case invoice.StatusReleased, invoice.StatusRefunded, invoice.StatusCancelled:
			return false
		}
		return i.Environment == env && i.ID > afterID && (i.Status == invoice.StatusSent || i.SettlementPaymentID() != "")
	}, false)
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].ID < rows[b].ID })
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}

// CreateBill refuses a VERIFIED bill whose signer already used its nonce, as the
// nonce's lookup row does in Postgres, writing nothing.
func (r invoiceRepo) CreateBill(_ context.Context, b invoice.Bill) error {
	if b.VerificationStatus == invoice.Verified {
		used := r.t().bills.filter(func(x invoice.Bill) bool {
			return x.VerificationStatus == invoice.Verified && x.Environment == b.Environment &&
				strings.EqualFold(x.SenderAddress, b.SenderAddress) && x.SigNonce == b.SigNonce
		}, false)
		if len(used) > 0 {
			return ports.ErrBillNonceUsed
		}
	}
	return r.t().bills.insert(b.ID, b)
}

func (r invoiceRepo) FindInboundBill(_ context.Context, payerTenantID string, env core.Environment, id string) (invoice.Bill, error) {
	b, ok := r.t().bills.rows[id]
	if !ok || b.PayerTenantID != payerTenantID || b.Environment != env {
		return invoice.Bill{}, errBillNotFound
	}
	return b, nil
}

func (r invoiceRepo) LockBill(_ context.Context, payerTenantID, id string) (invoice.Bill, error) {
	b, ok := r.t().bills.rows[id]
	if !ok || b.PayerTenantID != payerTenantID {
		return invoice.Bill{}, errBillNotFound
	}
	return b, nil
}

// UpdateBill writes the payer's decision and payment, the columns the Postgres store writes.
func (r invoiceRepo) UpdateBill(_ context.Context, b invoice.Bill) error {
	stored, ok := r.t().bills.rows[b.ID]
	if !ok {
		return errBillNotFound
	}
	stored.PayerDecision, stored.PayerPaymentID = b.PayerDecision, b.PayerPaymentID
	r.t().bills.rows[b.ID] = stored
	return nil
}

func (r invoiceRepo) ListInboundBills(_ context.Context, payerTenantID string, env core.Environment, status invoice.Verification, p ports.Page) ([]invoice.Bill, int, error) {
	rows := r.t().bills.filter(func(b invoice.Bill) bool {
		return b.PayerTenantID == payerTenantID && b.Environment == env && (status == "" || b.VerificationStatus == status)
	}, true)
	out, total := page(rows, p)
	return out, total, nil
}

// WalletTenant reads the wallets table, the earliest wallet at the address first, as the
// Postgres query does.
func (r invoiceRepo) WalletTenant(_ context.Context, env core.Environment, address string) (string, error) {
	ws := r.s.state.wallets.filter(func(w wallet.Wallet) bool {
		return w.Environment == env && strings.EqualFold(w.Address, address)
	}, false)
	if len(ws) == 0 {
		return "", core.NotFound(core.CodeWalletNotFound, "wallet")
	}
	sortByTime(ws, func(w wallet.Wallet) time.Time { return w.CreatedAt })
	return ws[0].TenantID, nil
}

// ActiveSigner reads the members table: an ACTIVE member of the tenant signing with address.
func (r invoiceRepo) ActiveSigner(_ context.Context, tenantID, address string) (bool, error) {
	for _, m := range r.s.state.tenancy.members.rows {
		if m.TenantID == tenantID && m.Status == tenant.MemberActive && m.SignerAddress != "" && strings.EqualFold(m.SignerAddress, address) {
			return true, nil
		}
	}
	return false, nil
}

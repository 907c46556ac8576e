package ports

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/invoice"
)

// InvoiceRepo stores escrow invoices and verifiable bills, and answers the two directory
// questions bills ask: which tenant a wallet address belongs to, and whether an address is an
// active member's registered signer.
type InvoiceRepo interface {
	CreateInvoice(ctx context.Context, i invoice.Invoice) error
	// FindInvoice is one of the tenant's invoices. Not found: INVOICE_NOT_FOUND.
	FindInvoice(ctx context.Context, tenantID string, env core.Environment, id string) (invoice.Invoice, error)
	// FindPublicInvoice is any invoice by id (the public view shows only public fields): the
	// id's lookup row names its tenant.
	FindPublicInvoice(ctx context.Context, id string) (invoice.Invoice, error)
	// LockInvoice locks the tenant's invoice for update. Not found: INVOICE_NOT_FOUND.
	LockInvoice(ctx context.Context, tenantID, id string) (invoice.Invoice, error)
	UpdateInvoice(ctx context.Context, i invoice.Invoice) error
	// ListInvoices is newest first.
	ListInvoices(ctx context.Context, tenantID string, env core.Environment, page Page) ([]invoice.Invoice, int, error)
	// ListPollable lists invoices the balance poller watches (SENT, or with a settlement payment
	// linked), by id after afterID.
	ListPollable(ctx context.Context, env core.Environment, afterID string, limit int) ([]invoice.Invoice, error)

	// CreateBill inserts b (the payer tenant's row). A VERIFIED bill whose signer already used
	// its nonce, to any payer: ErrBillNonceUsed, and nothing is written.
	CreateBill(ctx context.Context, b invoice.Bill) error
	// FindInboundBill is a bill sent to the payer tenant. Not found: BILL_NOT_FOUND.
	FindInboundBill(ctx context.Context, payerTenantID string, env core.Environment, id string) (invoice.Bill, error)
	// LockBill locks a bill sent to the payer tenant for update. Not found: BILL_NOT_FOUND.
	LockBill(ctx context.Context, payerTenantID, id string) (invoice.Bill, error)
	UpdateBill(ctx context.Context, b invoice.Bill) error
	// ListInboundBills is newest first; status "" lists every verification status.
	ListInboundBills(ctx context.Context, payerTenantID string, env core.Environment, status invoice.Verification, page Page) ([]invoice.Bill, int, error)
	// WalletTenant is the tenant holding a wallet at address in env. Not found: WALLET_NOT_FOUND.
	WalletTenant(ctx context.Context, env core.Environment, address string) (tenantID string, err error)
	// ActiveSigner reports whether address is the signerAddress of an ACTIVE member of tenantID.
	ActiveSigner(ctx context.Context, tenantID, address string) (bool, error)
}

// ErrBillNonceUsed is CreateBill's answer to a replayed nonce.
var ErrBillNonceUsed = core.E(core.CodeInvalidState, "the signer already used this nonce")
